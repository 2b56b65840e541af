"""A larger third-party suite under the pytest plugin: Apache Spark's own PySpark SQL tests.

Apache Spark's SQL test modules (python/pyspark/sql/tests/test_*.py in Spark's source: unittest
classes on pyspark.testing.sqlutils.ReusedSQLTestCase, each class starting a SparkContext, then
SparkSession(sc)) are not in the pyspark wheel or sdist on PyPI, only in Spark's source tree:
--spark-source names a checkout of it. The script copies the chosen modules (and
python/test_support, the data files some read by relative path) into --out, so that pytest
imports them as a package of their own, against the *installed* pyspark and its jars, never the
checkout's pyspark. Then it runs them with --python's pytest twice, serially, with the same flags
(`-q -p no:cacheprovider`, a JUnit XML file for each test's outcome, cwd the copy's root as
Spark's own test runner has it, PYSPARK_PYTHON the same interpreter):

- without the plugin: `-p no:planguard`;
- with it: `--planguard` (mode fail).

It prints the tests collected, passed, failed, skipped and errors of each run, the wall time of
each and their ratio, every test whose outcome differs, and the plugin's own lines: the
`planguard` section of the run's summary (findings below the failing level, NOT CHECKED lines)
and the planguard errors (PLANGUARD_...) in the run's output. Last, a probe (a ReusedSQLTestCase
of its own, no conftest.py) that asserts its session lists planguard.PlanGuardExtensions and is
installed, run with and without the plugin: it passes only with it. The logs and XML files stay
in --out.

    python -m corpora.pyspark_suite --spark-source SPARK_CHECKOUT [--python PYTHON]
                                    [--modules column,dataframe,...] [--out DIR]
                                    [--no-probe] [PYTEST_ARGS after --]
"""
import argparse
import collections
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

# The SQL modules of classic PySpark, without the Spark Connect ones, the streaming ones, those
# needing resources or artifacts the wheel lacks (test_resources, test_artifact), and the UDTF
# module (235 tests, of which most plan a single Python UDTF).
MODULES = ("catalog,collection,column,conf,context,creation,dataframe,dataframe_query_context,"
           "datasources,errors,functions,group,observation,readwriter,repartition,session,sql,"
           "stat,subquery,tvf,udf,utils")
FLAGS = ["-q", "-p", "no:cacheprovider", "-o", "junit_logging=no"]

PROBE = '''"""planguard reached the ReusedSQLTestCase's session: its extension is listed, installed."""
from pyspark.testing import sqlutils  # not the class itself: pytest would collect it here too


class ProbeTests(sqlutils.ReusedSQLTestCase):
    def test_planguard_is_in_the_session(self):
        import planguard

        self.assertIn("planguard.PlanGuardExtensions",
                      self.spark.conf.get("spark.sql.extensions", ""))
        self.assertEqual(self.spark.range(3).count(), 3)
        self.assertTrue(planguard.installed(self.spark))
        self.assertEqual(planguard.violation_count(self.spark), 0)
'''


def copy_suite(source: pathlib.Path, out: pathlib.Path, modules: list) -> list:
    """The chosen modules as package `sqltests` under out/suite/python, test_support beside it."""
    tests = source / "python" / "pyspark" / "sql" / "tests"
    root = out / "suite"
    if root.exists():
        shutil.rmtree(root)
    package = root / "python" / "sqltests"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    paths = []
    for module in modules:
        target = package / f"test_{module}.py"
        shutil.copyfile(tests / f"test_{module}.py", target)
        paths.append(str(target.relative_to(root)))
    shutil.copytree(source / "python" / "test_support", root / "python" / "test_support")
    return paths


def outcomes(junit: pathlib.Path) -> dict:
    """Test id -> passed, failed, error or skipped (a teardown error after a pass is an error)."""
    rank = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
    result = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        test = f"{case.get('classname')}::{case.get('name')}"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed"}.get(child.tag, child.tag)
        if rank[outcome] >= rank.get(result.get(test), -1):
            result[test] = outcome
    return result


def planguard_lines(log: str) -> tuple:
    """The run's `planguard` and `planguard differential` summary sections, and its distinct
    planguard error lines."""
    section, inside = [], False
    for line in log.splitlines():
        if re.match(r"^=+ planguard( differential)? =+$", line):
            inside = True
            continue
        if inside and re.match(r"^=+ .* =+$", line):
            inside = False
        if inside:
            section.append(line)
    errors = sorted(set(re.findall(r"\[PLANGUARD_[A-Z_]+\][^\n]*", log)))
    return section, errors


def run(python: str, root: pathlib.Path, args: list, junit: pathlib.Path, log: pathlib.Path):
    env = dict(os.environ, PYSPARK_PYTHON=python, PYSPARK_DRIVER_PYTHON=python)
    command = [python, "-m", "pytest", *FLAGS, f"--junitxml={junit}", *args]
    start = time.monotonic()
    with open(log, "w") as out:
        code = subprocess.run(command, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT,
                              check=False).returncode
    return code, time.monotonic() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spark-source", required=True, type=pathlib.Path,
                        help="a checkout of Apache Spark (its python/pyspark/sql/tests)")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter whose pyspark, pytest and planguard run the suite")
    parser.add_argument("--modules", default=MODULES,
                        help="comma-separated test module names without test_ (default: %(default)s)")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("/tmp/planguard-pyspark-suite"))
    parser.add_argument("--no-probe", action="store_true")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments, after --")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    modules = [m.strip() for m in args.modules.split(",") if m.strip()]
    paths = copy_suite(args.spark_source, args.out, modules)
    root = args.out / "suite"
    versions = subprocess.run(
        [args.python, "-c", "import pyspark, pytest, planguard, sys; "
         "print(pyspark.__version__, pytest.__version__, planguard.__version__, "
         "sys.version.split()[0])"], capture_output=True, text=True, check=True).stdout.split()
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    print(f"pyspark {versions[0]}, pytest {versions[1]}, planguard {versions[2]}, Python "
          f"{versions[3]}, {java[0] if java else 'java ?'}, {os.cpu_count()} cores")
    print(f"{len(modules)} modules: {', '.join(modules)}")

    runs = {}
    for name, plugin in (("without", ["-p", "no:planguard"]), ("planguard", ["--planguard"])):
        junit, log = args.out / f"{name}.xml", args.out / f"{name}.log"
        code, seconds = run(args.python, root, plugin + args.pytest_args + paths, junit, log)
        text = log.read_text(errors="replace")
        runs[name] = (code, seconds, outcomes(junit) if junit.exists() else {}, text)
        print(f"run {name}: exit {code}, {seconds:.0f} s ({log})", flush=True)

    print(f"\n{'run':10} {'tests':>6} {'passed':>7} {'failed':>7} {'skipped':>8} {'errors':>7} "
          f"{'wall s':>7}")
    for name, (code, seconds, result, _) in runs.items():
        counts = collections.Counter(result.values())
        print(f"{name:10} {len(result):6} {counts['passed']:7} {counts['failed']:7} "
              f"{counts['skipped']:8} {counts['error']:7} {seconds:7.0f}")
    base, guarded = runs["without"], runs["planguard"]
    print(f"wall time ratio planguard/without: {guarded[1] / base[1]:.3f}")

    differ = sorted(t for t in set(base[2]) | set(guarded[2])
                    if base[2].get(t) != guarded[2].get(t))
    print(f"\ntests whose outcome differs: {len(differ)}")
    for test in differ:
        print(f"  {test}: without {base[2].get(test, 'absent')}, "
              f"planguard {guarded[2].get(test, 'absent')}")

    section, errors = planguard_lines(guarded[3])
    print(f"\nplanguard summary section of the planguard run: {len(section)} line(s)")
    for line in section:
        print(f"  {line}")
    print(f"NOT CHECKED lines: {sum('NOT CHECKED' in line for line in section)}")
    print(f"planguard errors (PLANGUARD_...) in the planguard run's output: {len(errors)}")
    for line in errors:
        print(f"  {line}")

    if not args.no_probe:
        probe = root / "probe"
        probe.mkdir(exist_ok=True)
        (probe / "test_planguard_probe.py").write_text(PROBE)
        print("\nprobe (the session lists planguard's extension and has it installed):")
        for name, plugin in (("without", ["-p", "no:planguard"]), ("planguard", ["--planguard"])):
            junit, log = args.out / f"probe-{name}.xml", args.out / f"probe-{name}.log"
            code, _ = run(args.python, root, plugin + ["probe/test_planguard_probe.py"], junit,
                          log)
            result = outcomes(junit) if junit.exists() else {}
            print(f"  {name:10} exit {code}: {', '.join(sorted(result.values())) or 'no result'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A larger suite of the user's kind under the pytest plugin: PySpark's doctests, run by pytest.

The docstrings of PySpark's DataFrame API (shipped in the pyspark wheel, Apache License 2.0) hold
thousands of short DataFrame programs, each docstring a test when pytest collects a module with
`--doctest-modules`. The script runs the chosen modules as such a suite, with the option flags
PySpark's own `_test()` functions use (ELLIPSIS, NORMALIZE_WHITESPACE) and a plugin of its own,
written into --out, that puts a session in every doctest's namespace as `spark` (and its
context as `sc`): `local[2]` splitting data into 4 partitions as PySpark's `local[4]` runs do
(the order of the rows `show()` prints depends on it), no UI, 2 shuffle partitions, the Los
Angeles time zone PySpark's test runner sets, a warehouse of the run's own. Three runs,
serially, with the same flags (`-q -p no:cacheprovider`, a JUnit XML file for each test's
outcome):

- without the plugin: `-p no:planguard`;
- with it: `--planguard` (mode fail);
- differential: `--planguard --planguard-differential` (docs/pytest.md), with
  `--planguard-differential-max-variants` when --max-variants is given.

It prints each run's tests, outcomes and wall time and the ratios to the run without the plugin,
every test whose outcome differs from that run's, the plugin's summary section of each
planguard run (its findings, the differential mode's queries compared, variants run, queries
not compared and why, the time it took) and the planguard errors in each run's output. The
logs and XML files stay in --out. The modules default to the DataFrame API's whose `_test()`
gives its doctests a session and nothing else (the readers' and the catalog's make files and
tables of their own first); `pyspark.sql.functions.builtin` is the largest.

    python -m corpora.doctest_suite [--modules pyspark.sql.column,...] [--max-variants N]
                                    [--python PYTHON] [--out DIR] [PYTEST_ARGS after --]
"""
import argparse
import collections
import os
import pathlib
import subprocess
import sys

from corpora.pyspark_suite import outcomes, planguard_lines, run

# The modules whose docstrings hold the examples: the classic DataFrame's and Column's methods
# inherit theirs from pyspark.sql.dataframe's and pyspark.sql.column's, where pytest finds them.
MODULES = ("pyspark.sql.dataframe,pyspark.sql.column,pyspark.sql.group,pyspark.sql.window,"
           "pyspark.sql.udf")

SESSION_PLUGIN = '''"""Each doctest's namespace has `spark` and `sc`, as in PySpark's _test()."""
import shutil
import tempfile

import pytest
from pyspark.sql import SparkSession


@pytest.fixture(scope="session")
def _doctest_spark():
    warehouse = tempfile.mkdtemp(prefix="doctest-warehouse-")  # each run's tables its own
    spark = (SparkSession.builder.master("local[2]").appName("pyspark-doctests")
             .config("spark.sql.warehouse.dir", warehouse)
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.default.parallelism", "4")  # PySpark's own runs are local[4]
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.session.timeZone", "America/Los_Angeles")
             .getOrCreate())
    yield spark
    spark.stop()
    shutil.rmtree(warehouse, ignore_errors=True)


@pytest.fixture(autouse=True)
def _spark_in_doctests(doctest_namespace, _doctest_spark):
    doctest_namespace["spark"] = _doctest_spark
    doctest_namespace["sc"] = _doctest_spark.sparkContext
'''

FLAGS = ["--doctest-modules", "-o", "doctest_optionflags=ELLIPSIS NORMALIZE_WHITESPACE",
         "-p", "doctest_spark"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter whose pyspark, pytest and planguard run the suite")
    parser.add_argument("--modules", default=MODULES,
                        help="comma-separated PySpark modules (default: %(default)s)")
    parser.add_argument("--max-variants", type=int, default=None,
                        help="the differential run's --planguard-differential-max-variants")
    parser.add_argument("--out", type=pathlib.Path,
                        default=pathlib.Path("/tmp/planguard-doctest-suite"))
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments, after --")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "doctest_spark.py").write_text(SESSION_PLUGIN)
    modules = [m.strip() for m in args.modules.split(",") if m.strip()]
    versions = subprocess.run(
        [args.python, "-c", "import pyspark, pytest, planguard, sys; "
         "print(pyspark.__version__, pytest.__version__, planguard.__version__, "
         "sys.version.split()[0])"], capture_output=True, text=True, check=True).stdout.split()
    print(f"pyspark {versions[0]}, pytest {versions[1]}, planguard {versions[2]}, Python "
          f"{versions[3]}, {os.cpu_count()} cores")
    print(f"{len(modules)} modules: {', '.join(modules)}")

    differential = ["--planguard", "--planguard-differential"]
    if args.max_variants is not None:
        differential.append(f"--planguard-differential-max-variants={args.max_variants}")
    arms = (("without", ["-p", "no:planguard"]), ("planguard", ["--planguard"]),
            ("differential", differential))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(args.out), *filter(None, [os.environ.get("PYTHONPATH")])])
    os.environ["TZ"] = "America/Los_Angeles"
    runs = {}
    for name, plugin in arms:
        junit, log = args.out / f"{name}.xml", args.out / f"{name}.log"
        code, seconds = run(args.python, args.out, FLAGS + plugin + args.pytest_args +
                            ["--pyargs", *modules], junit, log)
        text = log.read_text(errors="replace")
        runs[name] = (code, seconds, outcomes(junit) if junit.exists() else {}, text)
        print(f"run {name}: exit {code}, {seconds:.0f} s ({log})", flush=True)

    base = runs["without"]
    print(f"\n{'run':13} {'tests':>6} {'passed':>7} {'failed':>7} {'skipped':>8} {'errors':>7} "
          f"{'wall s':>7} {'ratio':>6}")
    for name, (_, seconds, result, _) in runs.items():
        counts = collections.Counter(result.values())
        print(f"{name:13} {len(result):6} {counts['passed']:7} {counts['failed']:7} "
              f"{counts['skipped']:8} {counts['error']:7} {seconds:7.0f} "
              f"{seconds / base[1]:6.2f}")

    for name, (_, _, result, text) in list(runs.items())[1:]:
        differ = sorted(t for t in set(base[2]) | set(result) if base[2].get(t) != result.get(t))
        print(f"\n{name}: tests whose outcome differs from the run without the plugin: "
              f"{len(differ)}")
        for test in differ:
            print(f"  {test}: without {base[2].get(test, 'absent')}, "
                  f"{name} {result.get(test, 'absent')}")
        section, errors = planguard_lines(text)
        print(f"{name}: planguard summary section, {len(section)} line(s)")
        for line in section:
            print(f"  {line}")
        print(f"{name}: planguard errors (PLANGUARD_...) in the output: {len(errors)}")
        for line in errors:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""An external corpus of DataFrame programs for planguard's false alarms: PySpark's own doctests.

The docstrings of PySpark's SQL, pandas-on-Spark and streaming modules hold thousands of short
programs written by Spark's developers (Apache License 2.0, shipped in the pyspark wheel): the
DataFrame API, functions, window specs, grouped and cogrouped pandas functions, Arrow and pandas
conversions, readers and writers, streaming queries, and the pandas API on Spark, which builds
some of the largest plans PySpark makes. Each module's doctests run as its own `_test()` function
runs them (its globals and setup), in a session this script supplies: `getOrCreate` returns it,
`stop` does nothing, and `doctest.testmod` is replaced by a runner that records every example's
outcome. Each run is its own process (its own JVM):

- baseline: plain Spark, without planguard;
- control (with --control): plain Spark again, which marks the examples whose outcome differs
  from run to run (random numbers, times, memory addresses): those are compared on nothing;
- planguard: planguard in `fail` mode, `spark.planguard.internalErrors=fail`;
- planner (with --planner): the same, with planguard's planner listed (`configure(planner=True)`).

An example passes when its output is the docstring's. Per run and example: the outcome (`ok`,
`failure` with the output, or `exception` with the error's condition and first line) and the
violations planguard recorded on the JVM. Compared with the baseline of the same AQE setting:

- false alarm: the example passes in the baseline and planguard stopped it (a PLANGUARD_ error);
- difference: it passes in the baseline and fails otherwise in the planguard run;
- warning: planguard recorded a violation (any level) for an example that passed in both.

Usage (see docs/corpus.md):

    python -m corpora.doctest_corpus [--modules GLOB[,GLOB]] [--aqe on|off|both] [--planner]
                                     [--control] [--out DIR] [--jobs N]
"""
import argparse
import concurrent.futures
import doctest
import fnmatch
import importlib
import json
import os
import pathlib
import subprocess
import sys
import threading
import time

from corpora import sql_corpus  # sessions, errors and violations as the SQL corpus reads them

CACHE = sql_corpus.ROOT / ".cache" / "corpus-doctest"
EXAMPLE_TIMEOUT = 120  # seconds, then the example's jobs are cancelled

# Modules whose doctests run DataFrame or SQL programs. Left out: Spark Connect's (they need a
# Connect server), Avro's and Protobuf's functions (their data source jars are not in the wheel),
# the RDD-based and MLlib modules (no plans), and modules without doctests of their own.
MODULES = [
    "pyspark.sql.catalog", "pyspark.sql.classic.column", "pyspark.sql.classic.dataframe",
    "pyspark.sql.classic.window", "pyspark.sql.column", "pyspark.sql.conf", "pyspark.sql.context",
    "pyspark.sql.functions.builtin", "pyspark.sql.functions.partitioning", "pyspark.sql.group",
    "pyspark.sql.merge", "pyspark.sql.observation", "pyspark.sql.readwriter",
    "pyspark.sql.session", "pyspark.sql.tvf", "pyspark.sql.types", "pyspark.sql.udf",
    "pyspark.sql.udtf", "pyspark.sql.pandas.conversion", "pyspark.sql.pandas.group_ops",
    "pyspark.sql.pandas.map_ops", "pyspark.sql.streaming.query",
    "pyspark.sql.streaming.readwriter", "pyspark.ml.functions",
    "pyspark.pandas.accessors", "pyspark.pandas.base", "pyspark.pandas.categorical",
    "pyspark.pandas.config", "pyspark.pandas.datetimes", "pyspark.pandas.extensions",
    "pyspark.pandas.frame", "pyspark.pandas.generic", "pyspark.pandas.groupby",
    "pyspark.pandas.indexes.base", "pyspark.pandas.indexes.category",
    "pyspark.pandas.indexes.datetimes", "pyspark.pandas.indexes.multi", "pyspark.pandas.indexing",
    "pyspark.pandas.internal", "pyspark.pandas.namespace", "pyspark.pandas.numpy_compat",
    "pyspark.pandas.resample", "pyspark.pandas.series", "pyspark.pandas.spark.accessors",
    "pyspark.pandas.sql_formatter", "pyspark.pandas.strings", "pyspark.pandas.utils",
    "pyspark.pandas.window",
]
KINDS = ("baseline", "control", "planguard", "planner")


def selected(patterns: str):
    return [m for m in MODULES if any(fnmatch.fnmatch(m, p) for p in patterns.split(","))]


# --- Running one module's doctests ----------------------------------------------------------------

class Recorder(doctest.DocTestRunner):
    """Records every example's outcome instead of printing a report."""

    def __init__(self, optionflags, on_example):
        super().__init__(verbose=False, optionflags=optionflags)
        self.on_example = on_example

    def report_start(self, out, test, example):
        self.started = time.perf_counter()

    def report_success(self, out, test, example, got):
        self.on_example(test, example, {"outcome": "ok"}, self.started)

    def report_failure(self, out, test, example, got):
        self.on_example(test, example, {"outcome": "failure", "got": got[:500]}, self.started)

    def report_unexpected_exception(self, out, test, example, exc_info):
        self.on_example(test, example, {"outcome": "exception",
                                        **sql_corpus.error_of(exc_info[1])}, self.started)


def run_module(name: str, spark, kind: str, out):
    """Runs one module's `_test()` with the session and a recording `doctest.testmod`; writes a
    JSON line per example to `out`."""
    violations = sql_corpus.ViolationReader(spark, kind in ("planguard", "planner"))
    violations.new()

    def on_example(test, example, result, started):
        record = {"module": name, "test": test.name, "index": test.examples.index(example),
                  "source": example.source[:300], "ms": round((time.perf_counter() - started) * 1000),
                  **result,
                  "violations": [{k: v.get(k) for k in ("id", "level", "phase", "rule",
                                                        "differences")}
                                 for v in violations.new()]}
        out.write(json.dumps(record) + "\n")

    # A module run as a script calls testmod() without itself (pyspark.sql.types).
    def testmod(m=None, globs=None, optionflags=0, extraglobs=None, **_):
        runner = Recorder(optionflags, on_example)
        for test in sorted(doctest.DocTestFinder().find(m or module, globs=globs,
                                                        extraglobs=extraglobs),
                           key=lambda t: t.name):
            timer = threading.Timer(EXAMPLE_TIMEOUT * max(1, len(test.examples)),
                                    spark.sparkContext.cancelAllJobs)
            timer.start()
            try:
                runner.run(test, out=lambda _: None, clear_globs=True)
            finally:
                timer.cancel()
        return doctest.TestResults(runner.failures, runner.tries)

    saved = doctest.testmod
    doctest.testmod = testmod
    # The pandas API on Spark refuses ANSI mode, Spark 4's default (its own tests turn it off).
    ansi = spark.conf.get("spark.sql.ansi.enabled")
    if name.startswith("pyspark.pandas."):
        spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        # pyspark.pandas 4.0 does not import with pandas 3 (the test extras' pandas): recorded.
        module = importlib.import_module(name)
        module._test()
    except SystemExit:  # _test exits non-zero when an example failed
        pass
    except Exception as e:  # a module's import or setup failed: one record says so
        out.write(json.dumps({"module": name, "test": "_test", "index": -1, "source": "",
                              "outcome": "exception", **sql_corpus.error_of(e),
                              "violations": []}) + "\n")
    finally:
        doctest.testmod = saved
        spark.conf.set("spark.sql.ansi.enabled", ansi)
    out.flush()


def run_worker(kind: str, aqe: bool, modules, output: pathlib.Path):
    """Runs the modules' doctests in this process, in one session handed to every `_test()`."""
    import tempfile

    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_HOME", os.path.dirname(importlib.import_module("pyspark").__file__))
    scratch = pathlib.Path(tempfile.mkdtemp(prefix=f"doctest-corpus-{kind}-"))
    spark = sql_corpus.build_session(
        "baseline" if kind == "control" else kind, aqe, scratch / "warehouse")
    SparkSession.Builder.getOrCreate = lambda self: spark
    SparkSession.stop = lambda self: None
    SparkContext.stop = lambda self: None
    # Some _test() functions make a context of their own (`SparkContext("local[4]", ...)`, then
    # `SparkSession(sc)`, which wraps the JVM's default session: this one): it is this one's.
    SparkContext.__init__ = lambda self, *_, **__: self.__dict__.update(
        spark.sparkContext.__dict__)
    cwd = os.getcwd()
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.with_suffix(".partial").open("w") as out:
        for name in modules:
            run_module(name, spark, kind, out)
            os.chdir(cwd)  # some _test() functions change directory
            spark.catalog.clearCache()
    output.with_suffix(".partial").rename(output)


# --- Comparing runs -------------------------------------------------------------------------------

def load(path: pathlib.Path) -> dict:
    with path.open() as f:
        records = [json.loads(line) for line in f]
    return {(r["module"], r["test"], r["index"]): r for r in records}


def compare(baseline: dict, guarded: dict, control: dict = None) -> dict:
    found = {"examples": len(baseline), "baseline_ok": 0, "flaky": 0, "false_alarms": [],
             "differences": [], "warnings": [], "violations": 0}
    for key, base in baseline.items():
        run = guarded.get(key)
        if run is None:
            continue
        found["violations"] += len(run["violations"])
        if control is not None and control.get(key, {}).get("outcome") != base["outcome"]:
            found["flaky"] += 1
            continue
        if base["outcome"] != "ok":
            continue
        found["baseline_ok"] += 1
        if run["outcome"] != "ok":
            planguards = run.get("error", "").startswith("PLANGUARD_")
            found["false_alarms" if planguards else "differences"].append(run)
        elif run["violations"]:
            found["warnings"].append(run)
    return found


def report(results: dict) -> str:
    lines = ["| run | examples | ok in baseline | flaky | false alarms | differences | warnings "
             "| violations recorded |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for run, found in results.items():
        lines.append(f"| {run} | {found['examples']} | {found['baseline_ok']} | {found['flaky']} "
                     f"| {len(found['false_alarms'])} | {len(found['differences'])} "
                     f"| {len(found['warnings'])} | {found['violations']} |")
    for run, found in results.items():
        for title in ("false_alarms", "differences", "warnings"):
            if found[title]:
                lines += ["", f"{title.replace('_', ' ').capitalize()}, {run}:"]
                for r in found[title]:
                    detail = r.get("message") or r.get("got", "").strip()
                    if title == "warnings":
                        v = r["violations"][0]
                        detail = f"{v['id']} {v['level']} {v['phase']}: {(v['differences'] or [''])[0]}"
                    lines += [f"- {r['test']}#{r['index']}: "
                              f"{sql_corpus._one_line(r['source'], 160)}",
                              f"    {r.get('error', '')} {sql_corpus._one_line(detail, 300)}"]
    return "\n".join(lines)


# --- Orchestration --------------------------------------------------------------------------------

def measure(patterns: str = "*", aqe_settings=(True, False), planner: bool = False,
            control: bool = False, out: pathlib.Path = CACHE / "runs", jobs: int = 2) -> dict:
    modules = selected(patterns)
    kinds = ["baseline", "planguard"] + (["control"] if control else []) + \
        (["planner"] if planner else [])
    runs = {(kind, aqe): out / f"{kind}-aqe-{'on' if aqe else 'off'}.jsonl"
            for aqe in aqe_settings for kind in kinds}

    def worker(kind, aqe, path):
        command = [sys.executable, "-m", "corpora.doctest_corpus", "--worker", kind,
                   "--aqe", "on" if aqe else "off", "--modules", ",".join(modules),
                   "--output", str(path)]
        subprocess.run(command, check=True, cwd=sql_corpus.ROOT)

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for future in [pool.submit(worker, kind, aqe, path) for (kind, aqe), path in runs.items()]:
            future.result()
    results = {}
    for aqe in aqe_settings:
        setting = "aqe-on" if aqe else "aqe-off"
        baseline = load(runs[("baseline", aqe)])
        again = load(runs[("control", aqe)]) if control else None
        for kind in kinds:
            if kind in ("planguard", "planner"):
                results[f"{kind}, {setting}"] = compare(baseline, load(runs[(kind, aqe)]), again)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", default="*", help="globs of module names, comma-separated")
    parser.add_argument("--aqe", choices=["on", "off", "both"], default="both")
    parser.add_argument("--planner", action="store_true",
                        help="also run planguard with its planner (configure(planner=True))")
    parser.add_argument("--control", action="store_true",
                        help="run the baseline twice; examples whose outcome differs are flaky")
    parser.add_argument("--out", type=pathlib.Path, default=CACHE / "runs")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once (one JVM each)")
    parser.add_argument("--worker", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--output", type=pathlib.Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        run_worker(args.worker, args.aqe == "on", args.modules.split(","), args.output)
        return
    settings = {"on": (True,), "off": (False,), "both": (True, False)}[args.aqe]
    results = measure(args.modules, settings, args.planner, args.control, args.out, args.jobs)
    text = report(results)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.md").write_text(text + "\n")
    (args.out / "summary.json").write_text(json.dumps(results, indent=1))
    print(text)


if __name__ == "__main__":
    main()

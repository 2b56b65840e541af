"""planguard next to Apache DataFusion Comet (Comet 1.2.0 from Maven Central: its native scan,
native operators, native shuffle and columnar rules) on TPC-H, planguard listed before and after
Comet's extension, adaptive execution on and off.

Maven Central has no Comet for Spark 4.0 (the pyspark pin); it has Comet 1.2.0 for Spark 4.1. So
Comet runs in processes of pyspark 4.1.3 (tests/comet_worker.py) with planguard's 4.1 line jars,
one process per session, since Spark reads spark.sql.extensions, spark.plugins and
spark.shuffle.manager once per JVM. Everything is prepared once and cached under .cache/:

- the Comet jar (`mvn dependency:copy`, .cache/jars/);
- a virtualenv with pyspark 4.1.3 and pyarrow (.cache/venv-spark4.1/, made here with pip), into
  which planguard is installed anew on every run, as a user would: the wheel PLANGUARD_WHEEL
  names (dev/test passes the one dev/setup built), or else one built from this checkout
  (`pip install`, building the 4.1 line alone: PLANGUARD_SPARK_LINES=4.1);
- planguard's 4.1 jars, target/spark-4.1/ (`dev/sbt -Dspark.line=4.1 package Test/package`:
  dev/test builds them before pytest; this module builds them when they are missing or older
  than the sources);
- TPC-H at scale factor 0.01 (Parquet) and its 22 queries in Spark SQL, from
  corpora/corpus.py (DuckDB's tpch extension and sqlglot), made in this process. CI runs the
  odd-numbered queries (aggregates, joins of every kind, EXISTS and NOT EXISTS, correlated and
  view subqueries); `dev/test full` all 22.

Three processes: Comet alone (the baseline), planguard first, planguard last; at most two at once.
Each runs the queries with adaptive execution on and off, but, in CI, planguard last: on alone.

PLANGUARD_COMET_LINE=3.5 runs the same on Spark 3.5 (EMR 7's and Databricks 15.4/16.4's line):
Comet 0.12.0, its newest release for 3.5, in .cache/venv-spark3.5/ with pyspark 3.5.9 and
planguard's 3.5 jars (target/spark-3.5/); not in CI (docs/spark-lines-notes.md).
"""
import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

from conftest import FULL, ROOT, with_root_on_path
from corpora import corpus  # the TPC-H data and queries
from corpora import sql_corpus  # sql_corpus.maven_jar: a jar from Maven Central, fetched once

# Comet's release, the pyspark (the line's Spark in build.sbt) and Scala of each Spark line that
# has a Comet on Maven Central: 4.1 (CI, `dev/test`) and 3.5 (PLANGUARD_COMET_LINE=3.5, Comet's
# newest for Spark 3.5, the line of EMR 7 and Databricks 15.4/16.4).
# With the name of Comet's Parquet scan there (by default: 1.2.0's native DataFusion scan, 0.12.0's
# own).
COMETS = {"4.1": ("org.apache.datafusion:comet-spark-spark4.1_2.13:1.2.0", "pyspark==4.1.3",
                  "2.13", "CometNativeScan"),
          "3.5": ("org.apache.datafusion:comet-spark-spark3.5_2.12:0.12.0", "pyspark==3.5.9",
                  "2.12", "CometScan")}
LINE = os.environ.get("PLANGUARD_COMET_LINE", "4.1")
COMET_ARTIFACT, PYSPARK, SCALA, SCAN = COMETS[LINE]
VENV = ROOT / ".cache" / f"venv-spark{LINE}"
LINE_TARGET = ROOT / "target" / f"spark-{LINE}"
PLANGUARD_JAR = LINE_TARGET / f"planguard-spark{LINE}_{SCALA}-0.1.0.jar"
TESTS_JAR = LINE_TARGET / f"planguard-tests-spark{LINE}_{SCALA}.jar"
WORKER = ROOT / "tests" / "comet_worker.py"
# The settings of adaptive execution each process runs: in CI, planguard listed last with it on
# alone (the order changes where planguard's rules run, not what adaptive execution does).
ADAPTIVE = {"baseline": ["true", "false"], "first": ["true", "false"],
            "last": ["true", "false"] if FULL else ["true"]}
COMET = "org.apache.comet.CometSparkSessionExtensions"
TIMEOUT = 900


def comet_jar() -> pathlib.Path:
    return sql_corpus.maven_jar(COMET_ARTIFACT, ROOT / ".cache" / "jars")


def line_jars() -> None:
    """planguard's 4.1 jars, built with dev/sbt when missing or older than any source."""
    sources = [p for folder in ("jvm/src", "project") for p in (ROOT / folder).rglob("*")
               if p.is_file() and "target" not in p.parts] + [ROOT / "build.sbt"]
    newest = max(p.stat().st_mtime for p in sources)
    jars = [PLANGUARD_JAR, TESTS_JAR]
    if all(j.exists() and j.stat().st_mtime >= newest for j in jars):
        return
    subprocess.run([str(ROOT / "dev" / "sbt"), f"-Dspark.line={LINE}", "package", "Test/package"],
                   cwd=ROOT, check=True, timeout=TIMEOUT)
    assert all(j.exists() for j in jars), jars


def venv() -> pathlib.Path:
    """The virtualenv's python, with pyspark 4.1.3 and pyarrow; made once (a marker file says it
    is complete, so an interrupted install is redone)."""
    python, ready = VENV / "bin" / "python", VENV / "planguard-ready"
    if not (ready.exists() and ready.read_text() == PYSPARK):
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", PYSPARK, "pyarrow>=15"],
                       check=True, timeout=TIMEOUT)
        ready.write_text(PYSPARK)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps",
                    "--force-reinstall", os.environ.get("PLANGUARD_WHEEL") or str(ROOT)],
                   check=True, timeout=TIMEOUT,
                   env=dict(os.environ, PLANGUARD_SPARK_LINES=LINE))
    return python


def tpch() -> tuple:
    """(folder of TPC-H Parquet tables, name -> Spark SQL of the 22 queries, or in CI of the
    odd-numbered ones)."""
    queries = {name: q["sql"] for name, q in corpus.queries().items()
               if q["bench"] == "tpch" and name.startswith("tpch-q")
               and (FULL or int(name.removeprefix("tpch-q")) % 2 == 1)}
    assert len(queries) == (22 if FULL else 11), sorted(queries)
    return corpus.CACHE / "tpch", queries


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """Runs the baseline and planguard first (at once), then planguard last; returns order ->
    the worker's results (`baseline`, `first`, `last`), with `prepare_seconds`."""
    started = time.monotonic()
    python, jar = venv(), comet_jar()
    line_jars()
    data, queries = tpch()
    prepared = time.monotonic() - started
    folder = tmp_path_factory.mktemp("comet")
    results = {"prepare_seconds": round(prepared, 1)}

    def start(order):
        config = folder / f"{order}.json"
        config.write_text(json.dumps({
            "order": None if order == "baseline" else order, "comet_jar": str(jar),
            "planguard_jar": str(PLANGUARD_JAR), "tests_jar": str(TESTS_JAR),
            "data": str(data), "queries": queries, "adaptive": ADAPTIVE[order]}))
        with (folder / f"{order}.log").open("w") as log:
            return subprocess.Popen([str(python), str(WORKER), str(config),
                                     str(folder / f"{order}.out.json")], cwd=ROOT,
                                    stdout=log, stderr=subprocess.STDOUT,
                                    env=with_root_on_path(dict(os.environ,
                                                               PYSPARK_PYTHON=str(python))))

    def finish(order, process):
        try:
            code = process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        out = folder / f"{order}.out.json"
        log = (folder / f"{order}.log").read_text()
        failed = out.with_suffix(".failed")
        assert code == 0 and out.exists(), (
            f"the {order} process failed (exit code {code}):\n"
            + (failed.read_text() if failed.exists() else "") + log[-6000:])
        results[order] = json.loads(out.read_text())

    pair = {order: start(order) for order in ("baseline", "first")}
    for order, process in pair.items():
        finish(order, process)
    finish("last", start("last"))
    results["seconds"] = round(time.monotonic() - started, 1)
    print(f"\nComet test: prepared in {prepared:.0f} s, ran in "
          f"{results['seconds'] - prepared:.0f} s")
    return results


def ran_with(order: str, aqe: str) -> None:
    if aqe == "aqe-off" and "false" not in ADAPTIVE[order]:
        pytest.skip(f"planguard {order}: adaptive execution on alone in CI (`dev/test full`: "
                    "both)")


def test_comet_runs_the_tpch_queries_natively(runs):
    """Comet really ran: in the baseline every query has rows and Comet operators in its executed
    plan (a query Comet silently left to Spark would have none), and most operators are
    Comet's."""
    baseline = runs["baseline"]
    assert baseline["spark"].startswith(LINE)
    for aqe in ("aqe-on", "aqe-off"):
        results = baseline[aqe]
        errors = {n: r["rows"] for n, r in results.items() if isinstance(r["rows"], str)}
        assert errors == {}
        assert {n: r["comet"] for n, r in results.items() if r["comet"] < 1} == {}
        comet = sum(r["comet"] for r in results.values())
        total = sum(r["operators"] for r in results.values())
        # AQE on, the plans' stage wrappers (query stages, shuffle reads) are Spark's own.
        assert comet >= (0.6 if aqe == "aqe-on" else 0.85) * total, (comet, total)
        names = set().union(*(r["comet_names"] for r in results.values()))
        assert {SCAN, "CometExchange", "CometHashAggregate", "CometProject",
                "CometFilter", "CometBroadcastHashJoin"} <= names, names


@pytest.mark.parametrize("order", ["first", "last"])
def test_planguard_is_listed_in_its_place(runs, order):
    result = runs[order]
    assert result["installed"]
    extensions = result["extensions"].split(",")
    planguard_at, comet_at = extensions.index("planguard.PlanGuardExtensions"), \
        extensions.index(COMET)
    assert (planguard_at < comet_at) == (order == "first")


@pytest.mark.parametrize("aqe", ["aqe-on", "aqe-off"])
@pytest.mark.parametrize("order", ["first", "last"])
def test_tpch_with_comet_has_no_false_alarm_and_the_baseline_rows(runs, order, aqe):
    """The TPC-H queries in fail mode with planguard and Comet: no violation recorded on the
    JVM (not even a warning), the rows of Comet without planguard, and the same Comet
    operators."""
    ran_with(order, aqe)
    expected, actual = runs["baseline"][aqe], runs[order][aqe]
    assert actual.keys() == expected.keys()
    recorded = {n: r["recorded"] for n, r in actual.items() if r["violations"]}
    assert recorded == {}
    different = [n for n in expected if expected[n]["rows"] != actual[n]["rows"]]
    assert different == [], [(n, str(expected[n]["rows"])[:300], str(actual[n]["rows"])[:300])
                             for n in different]
    comet = {n: (expected[n]["comet"], actual[n]["comet"]) for n in expected
             if expected[n]["comet"] != actual[n]["comet"]}
    assert comet == {}


# switch -> (invariant, a text the violation's message or plan must hold: Comet's plan).
CAUGHT = {
    "RemoveFinalAggregateExchange": ("DISTRIBUTION", "CometHashAggregate"),
    "SwapRootColumns": ("OPTIMIZER_SCHEMA", None),
    "ReverseRootProjectExec": ("PHYSICAL_SCHEMA", "CometColumnarToRow"),
    "DropLastFieldExec": ("BATCH_SCHEMA", None),
}


@pytest.mark.parametrize("aqe", ["aqe-on", "aqe-off"])
@pytest.mark.parametrize("order", ["first", "last"])
def test_broken_rules_are_caught_on_the_plan_comet_rewrote(runs, order, aqe):
    """The tests jar's broken rules, listed before Comet: each breaks the plan Spark prepared,
    Comet converts what it left, and planguard stops the query naming the invariant. The missing
    exchange is reported under Comet's final aggregate, and the reversed projection on a plan
    whose root is Comet's columnar-to-row transition: planguard checked the plan Comet rewrote."""
    ran_with(order, aqe)
    broken = runs[order][f"broken-{aqe}"]
    assert broken.keys() == CAUGHT.keys()
    for switch, (invariant, shown) in CAUGHT.items():
        entry = broken[switch]
        assert entry.get("invariant") == invariant, (switch, entry)
        name = "DropLastField" if switch == "DropLastFieldExec" else switch
        assert name in entry["rule"], (switch, entry["rule"])
        if shown:
            assert shown in entry["message"] or shown in entry.get("plan", ""), (switch, entry)

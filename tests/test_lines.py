"""One wheel for every Spark line: the jar of the installed pyspark's line is taken, it catches a
broken rule whichever extension order, and a jar of another line never stops a session (it
installs nothing, says so in one line, and the queries run as without it).

These tests run in the development environment and, by dev/test-lines, in a fresh environment
per pyspark release (3.5.9, 4.1.4, 4.2.1, 4.3.0; with `dev/test full` 4.0.5 too) with the wheel
installed into it.
"""
import importlib.metadata
import json
import os
import pathlib
import subprocess
import sys
import zipfile

import pyspark
import pytest

import planguard
from conftest import FULL
from corpora.built_jars import DEFAULT_LINE, LINE, TESTS_JAR
from planguard import ConfigurationError
from planguard._jar import line_for, spark_lines

JOB = """
import json, sys
import planguard
from pyspark.sql import SparkSession
planguard.install_error_conversion()  # a violation raises planguard.InvariantViolation
spark = SparkSession.builder.getOrCreate()
out = {}
for name, sql in json.loads(sys.argv[1]).items():
    try:
        out[name] = [list(row) for row in spark.sql(sql).collect()]
    except planguard.InvariantViolation as e:  # its condition, by PySpark's method on every line
        out[name] = f"ERROR InvariantViolation [{e.getCondition()}] " + str(e).splitlines()[0][:300]
    except Exception as e:
        out[name] = f"ERROR {type(e).__name__} " + str(e).splitlines()[0][:300]
print("RESULT " + json.dumps(out))
"""
QUERIES = {
    "rows": "SELECT k, count(*) AS n FROM VALUES (1), (1), (2) AS t(k) GROUP BY k ORDER BY k",
    # Refused with [PLANGUARD_INVALID_CONF] where planguard is installed, and the mode stays;
    # Spark takes any value.
    "probe": "SET spark.planguard.mode = probe",
    "kept": "SET spark.planguard.mode",
}
ROWS = [[1, 2], [2, 1]]


def submit(tmp_path: pathlib.Path, jars, extensions, *confs: str, queries=QUERIES, job=JOB):
    source, job = job, tmp_path / "job.py"
    job.write_text(source)
    spark_submit = pathlib.Path(pyspark.__file__).parent / "bin" / "spark-submit"
    result = subprocess.run(
        [str(spark_submit), "--master", "local[2]", "--jars", ",".join(map(str, jars)),
         "--conf", f"spark.sql.extensions={','.join(extensions)}",
         "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=2",
         *[arg for c in confs for arg in ("--conf", c)], str(job), json.dumps(queries)],
        capture_output=True, text=True, timeout=600,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    found = [line for line in result.stdout.splitlines() if line.startswith("RESULT ")]
    assert found, result.stdout[-3000:] + result.stderr[-3000:]
    logged = [line for line in (result.stdout + result.stderr).splitlines()
              if "planguard" in line and " WARN " in f" {line} "]
    return json.loads(found[0][len("RESULT "):]), logged


def test_planguard_depends_on_no_pyspark_and_no_pyarrow():
    """Installing planguard never installs, upgrades or downgrades the user's pyspark."""
    required = importlib.metadata.requires("planguard") or []
    assert [r for r in required if "extra ==" not in r] == []


def test_the_wheel_holds_one_set_of_jars_per_line_each_built_for_its_folders_line():
    assert spark_lines() == ["3.5", "4.0", "4.1", "4.2", "4.3"]
    for line in spark_lines():
        jars = [planguard.jar_path(line), planguard.tools_jar_path(line)]
        assert all(f"spark-{line}" in pathlib.Path(j).parent.name for j in jars)
        with zipfile.ZipFile(jars[0]) as jar:
            built = jar.read("planguard/build.properties").decode()
        assert f"spark.line={line}\n" in built


def test_the_running_pysparks_line_takes_its_jar():
    assert LINE == line_for(pyspark.__version__)
    assert pathlib.Path(planguard.jar_path()).parent.name == f"spark-{LINE}"


@pytest.mark.parametrize("version, line", [
    ("3.5.9", "3.5"), ("3.5.1-amzn-0", "3.5"), ("4.0.5", "4.0"), ("4.1.4", "4.1"), ("4.1", "4.1"),
    ("4.2.1", "4.2"), ("4.3.0", "4.3")])
def test_a_spark_version_takes_its_lines_jar(version, line):
    assert line_for(version) == line


def test_a_newer_spark_takes_the_newest_lines_jar_with_a_warning():
    with pytest.warns(UserWarning, match="no jar built for Spark 4.4"):
        assert line_for("4.4.0") == "4.3"


@pytest.mark.parametrize("version", ["3.4.1", "2.4.8", "four"])
def test_an_unsupported_spark_is_refused_naming_the_lines(version):
    with pytest.raises(ConfigurationError, match="3.5, 4.0, 4.1, 4.2, 4.3"):
        line_for(version)


@pytest.mark.parametrize("order", ["first", "last"])
def test_the_running_lines_jar_catches_a_broken_rule_in_either_order(tmp_path, order):
    """Adaptive execution on, then off, in one session."""
    assert TESTS_JAR.exists(), TESTS_JAR
    checks, broken = "planguard.PlanGuardExtensions", "planguard.testing.SwapRootColumnsExtension"
    extensions = [checks, broken] if order == "first" else [broken, checks]
    # The broken rule reorders a root projection's columns: (b, a). A join, so that adaptive
    # execution takes the plan.
    swapped = "SELECT l.id AS a, r.id * 2 AS b FROM range(3) l JOIN range(3) r ON l.id = r.id"
    result, _ = submit(tmp_path, [planguard.jar_path(), TESTS_JAR], extensions, queries={
        "adaptive": swapped, "off": "SET spark.sql.adaptive.enabled = false",
        "not adaptive": swapped})
    for run in ("adaptive", "not adaptive"):
        assert result[run].startswith("ERROR InvariantViolation [PLANGUARD_OPTIMIZER_SCHEMA]"), \
            result


def test_the_running_lines_jar_and_planner_install_and_plan_a_legal_query(tmp_path):
    result, logged = submit(tmp_path, [planguard.jar_path()],
                            [planguard.EXTENSION_CLASS, planguard.PLANNER_EXTENSION_CLASS])
    assert result["rows"] == ROWS
    assert result["probe"].startswith("ERROR IllegalArgumentException [PLANGUARD_INVALID_CONF]"), result
    assert result["kept"] == [["spark.planguard.mode", "fail"]], result
    if pyspark.__version__.startswith(LINE + "."):
        assert not [line for line in logged if "installs nothing" in line], logged
    else:  # a Spark newer than every line: the checks install, the planner does not
        assert any("PlanGuardPlannerExtensions installs nothing" in line for line in logged)


DIFFERENTIAL_JOB = """
import json, sys
from pyspark.sql import SparkSession
from planguard.testing import assert_same_answer
spark = SparkSession.builder.getOrCreate()
out = []
for broken in ("true", "false"):
    spark.conf.set("planguard.testing.DropFilterConjunct", broken)
    orders = spark.range(40).selectExpr("id AS k", "id % 4 AS g").filter("k > 2 AND k < 9")
    query = orders.join(spark.range(4).withColumnRenamed("id", "g"), "g").orderBy("k")
    try:
        out.append(f"same under {assert_same_answer(query).ran} variants")
    except AssertionError as e:
        out.append(str(e))
print("RESULT " + json.dumps(out))
"""


def test_the_differential_mode_names_a_rule_that_changes_rows_on_this_line(tmp_path):
    """The differential mode's JVM classes run on the line's Spark: a query with a join, under
    the broken optimizer rule that drops a filter conjunct (the test jar's), differs when the
    rule is excluded, which is named; with the rule off, every variant answers alike."""
    assert TESTS_JAR.exists(), TESTS_JAR
    broken = "planguard.testing.DropFilterConjunctExtension"
    (on, off), _ = submit(tmp_path, [planguard.jar_path(), TESTS_JAR],
                          [planguard.EXTENSION_CLASS, broken], job=DIFFERENTIAL_JOB)
    assert "Variant: optimizer rule planguard.testing.DropFilterConjunct excluded" in on, on
    assert off.startswith("same under "), off


WRITES_JOB = """
import json, sys, tempfile
import planguard
from pyspark.sql import SparkSession, functions as F
planguard.install_error_conversion()
spark = SparkSession.builder.getOrCreate()
spark.range(10).selectExpr("id % 3 AS k", "id AS a").createOrReplaceTempView("t")
grouped = "SELECT k, sum(a) FROM t GROUP BY k"
df = spark.table("t")
writes = {
    "withColumnRenamed": lambda: spark.sql(grouped).withColumnRenamed("sum(a)", "total"),
    "selectExpr AS": lambda: spark.sql(grouped).selectExpr("k", "`sum(a)` AS total"),
    "alias": lambda: spark.sql(grouped).select("k", F.col("`sum(a)`").alias("total")),
    "toDF": lambda: spark.sql(grouped).toDF("k", "total"),
    "agg(dict) renamed":
        lambda: df.groupBy("k").agg({"a": "sum"}).withColumnRenamed("sum(a)", "total"),
    "sum renamed": lambda: df.groupBy("k").sum("a").withColumnRenamed("sum(a)", "total"),
    "count renamed": lambda: df.groupBy("k").agg(F.count("a")).withColumnRenamed("count(a)", "n"),
    "generated": lambda: spark.sql(grouped),
}
out = {}
for name, make in writes.items():
    try:
        make().write.parquet(tempfile.mkdtemp() + "/out")
        out[name] = "written"
    except planguard.InvariantViolation as e:
        out[name] = f"ERROR [{e.getCondition()}]"
print("RESULT " + json.dumps(out))
"""


def test_a_name_the_user_gave_over_a_generated_one_is_written_under_naming_fail(tmp_path):
    """withColumnRenamed, selectExpr AS, alias and toDF over Spark's generated names: the user's
    names; the write goes on with spark.planguard.check.NAMING=fail. The generated name alone
    fails."""
    job = tmp_path / "writes.py"
    job.write_text(WRITES_JOB)
    spark_submit = pathlib.Path(pyspark.__file__).parent / "bin" / "spark-submit"
    result = subprocess.run(
        [str(spark_submit), "--master", "local[2]", "--jars", planguard.jar_path(),
         "--conf", f"spark.sql.extensions={planguard.EXTENSION_CLASS}",
         "--conf", "spark.planguard.check.NAMING=fail", "--conf", "spark.ui.enabled=false",
         "--conf", "spark.sql.shuffle.partitions=2", str(job)],
        capture_output=True, text=True, timeout=600,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable))
    found = [line for line in result.stdout.splitlines() if line.startswith("RESULT ")]
    assert result.returncode == 0 and found, result.stdout[-3000:] + result.stderr[-3000:]
    written = json.loads(found[0][len("RESULT "):])
    assert written.pop("generated") == "ERROR [PLANGUARD_NAMING]"
    assert set(written.values()) == {"written"}, written


# The other line's jar each pyspark release starts a session with, so that over the releases
# every kind of mismatch is run once: Scala 2.13 on 2.12 (the 4.2 jar on 3.5) and 2.12 on 2.13
# (3.5 on 4.0), a newer line's jar on an older Spark (4.2 on 4.1), an older line's on a newer one
# (4.0 on 4.2, whose KeyGroupedPartitioning it would miss; 4.1 on 4.3).
OTHER_LINE = {"3.5": "4.2", "4.0": "3.5", "4.1": "4.2", "4.2": "4.0", "4.3": "4.1"}


def test_a_jar_of_another_line_never_stops_a_session(tmp_path):
    """The jar of another line: the session starts, one line per extension says that it installs
    nothing and which jar to use, and queries run as without planguard: no probe is refused."""
    line = OTHER_LINE[".".join(pyspark.__version__.split(".")[:2])]
    result, logged = submit(tmp_path, [planguard.jar_path(line)],
                            [planguard.EXTENSION_CLASS, planguard.PLANNER_EXTENSION_CLASS])
    probe = [["spark.planguard.mode", "probe"]]
    assert result == {"rows": ROWS, "probe": probe, "kept": probe}, result
    said = [entry for entry in logged if "installs nothing" in entry]
    assert len(said) == 2, logged
    assert all(f"planguard's jar for Spark {line} runs on Spark {pyspark.__version__}" in entry
               for entry in said), said


# Four files of the external corpus (corpora/sql_corpus.py; tests/test_sql_corpus.py runs a
# larger sample on the default line), 117 statements: commands whose results are collected (SHOW
# TABLES), NATURAL and USING joins, INTERSECT ALL, GROUP BY ordinals and case-insensitive
# references. Statements a line's Spark rejects fail alike without planguard. In CI: adaptive
# execution on (the broken rule above is caught at both settings), on the oldest pyspark (3.5, the
# Scala 2.12 line) and on 4.3, whose line runs no ScalaTest suite (Spark 4.3's test jars are not
# on Maven Central); the others' false alarm cases run in their ScalaTest FalseAlarmsSuite;
# `dev/test full`: every release, AQE off too.
CORPUS_SAMPLE = ",".join(["show-tables.sql", "natural-join.sql", "intersect-all.sql",
                          "group-by-ordinal.sql"])
CORPUS_RUNS = ["planguard, aqe-on"] + (["planguard, aqe-off"] if FULL else [])
CORPUS_RELEASES = {"3.5", "4.3"}


@pytest.fixture(scope="module")
def corpus_sample(tmp_path_factory):
    if LINE == DEFAULT_LINE:
        pytest.skip("tests/test_sql_corpus.py runs a larger sample on the default line")
    if not FULL and ".".join(pyspark.__version__.split(".")[:2]) not in CORPUS_RELEASES:
        pytest.skip("in CI, on pyspark 3.5 and 4.3 only (dev/test full: every release)")
    from corpora import sql_corpus
    return sql_corpus.measure(CORPUS_SAMPLE, aqe_settings=(True, False) if FULL else (True,),
                              out=tmp_path_factory.mktemp("sql-corpus"), jobs=2)


@pytest.mark.parametrize("run", CORPUS_RUNS)
def test_a_corpus_sample_runs_alike_with_and_without_planguard(corpus_sample, run):
    found = corpus_sample[run]
    wrong = {kind: [f"{r['file']}#{r['index']}: {r.get('message', '')[:200]}" for r in found[kind]]
             for kind in ("false_alarms", "new_errors", "row_diffs")}
    assert wrong == {"false_alarms": [], "new_errors": [], "row_diffs": []}

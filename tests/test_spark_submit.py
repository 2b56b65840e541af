"""spark-submit (shipped with pyspark) runs a job with planguard's jar: the job fails on a
deliberately broken optimizer rule, and passes without it or with planguard listed twice."""
import os
import pathlib
import subprocess
import sys
import zipfile

import pyspark
import pytest

import planguard
from conftest import TESTS_JAR

JOB = """
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
rows = spark.range(5).selectExpr("id AS a", "id * 2 AS b").collect()
print("ROWS", [tuple(r) for r in rows])
"""


def submit(tmp_path: pathlib.Path, extensions: str, *confs: str,
           extra_jars=()) -> subprocess.CompletedProcess:
    job = tmp_path / "job.py"
    job.write_text(JOB)
    spark_submit = pathlib.Path(pyspark.__file__).parent / "bin" / "spark-submit"
    return subprocess.run(
        [str(spark_submit), "--master", "local[2]",
         "--jars", ",".join([planguard.jar_path(), str(TESTS_JAR), *map(str, extra_jars)]),
         *[arg for c in confs for arg in ("--conf", c)],
         "--conf", f"spark.sql.extensions={extensions}",
         "--conf", "spark.ui.enabled=false", str(job)],
        capture_output=True, text=True, timeout=600,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable))


def test_broken_rule_fails_the_job(tmp_path):
    result = submit(tmp_path, "planguard.PlanGuardExtensions,"
                              "planguard.testing.SwapRootColumnsExtension")
    assert result.returncode != 0
    # spark-submit's PythonRunner merges the job's stderr into its stdout.
    assert "[PLANGUARD_OPTIMIZER_SCHEMA]" in result.stdout + result.stderr
    assert "ROWS" not in result.stdout


@pytest.mark.parametrize("extensions", [
    "planguard.PlanGuardExtensions",
    "planguard.PlanGuardExtensions,planguard.PlanGuardExtensions",
])
def test_job_passes_without_the_broken_rule(tmp_path, extensions):
    result = submit(tmp_path, extensions)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ROWS [(0, 0), (1, 2), (2, 4), (3, 6), (4, 8)]" in result.stdout


def test_the_planner_plans_once_listed_and_only_then(tmp_path):
    """spark-submit with the planner's extension listed (twice): one strategy, which plans the
    aggregation's exchange; with the checks alone, Spark plans as it does without planguard."""
    job = tmp_path / "job.py"
    job.write_text(PLANNER_JOB)
    spark_submit = pathlib.Path(pyspark.__file__).parent / "bin" / "spark-submit"
    counts = []
    for extensions in ("planguard.PlanGuardExtensions",
                       f"planguard.PlanGuardExtensions,{planguard.PLANNER_EXTENSION_CLASS},"
                       f"{planguard.PLANNER_EXTENSION_CLASS}"):
        result = subprocess.run(
            [str(spark_submit), "--master", "local[2]", "--jars", planguard.jar_path(),
             "--conf", f"spark.sql.extensions={extensions}",
             "--conf", "spark.ui.enabled=false", str(job)],
            capture_output=True, text=True, timeout=600,
            env=dict(os.environ, PYSPARK_PYTHON=sys.executable,
                     PYSPARK_DRIVER_PYTHON=sys.executable))
        assert result.returncode == 0, result.stderr[-3000:]
        counts.append([line for line in result.stdout.splitlines()
                       if line.startswith("PLANNED")])
    assert counts == [["PLANNED 0 False"], ["PLANNED 1 True"]]


PLANNER_JOB = """
from pyspark.sql import SparkSession
spark = SparkSession.builder.config("spark.sql.adaptive.enabled", "false").getOrCreate()
# The planner emits the aggregation's exchange as it plans; Spark adds it afterwards.
planned = spark.range(100).selectExpr("id % 7 AS k").groupBy("k").count()._jdf \\
    .queryExecution().sparkPlan().toString()
strategies = spark._jsparkSession.sessionState().planner().extraPlanningStrategies().size()
print("PLANNED", strategies, "Exchange" in planned)
"""


def test_listed_and_self_registered_installs_once(tmp_path):
    """A jar whose META-INF/services registers planguard, and planguard also listed: one check,
    so one warning in warn mode."""
    services = tmp_path / "self-register.jar"
    with zipfile.ZipFile(services, "w") as jar:
        jar.writestr("META-INF/services/org.apache.spark.sql.SparkSessionExtensionsProvider",
                     "planguard.PlanGuardExtensions\n")
    result = submit(tmp_path, "planguard.PlanGuardExtensions,"
                              "planguard.testing.SwapRootColumnsExtension",
                    "spark.planguard.mode=warn", extra_jars=[services])
    assert result.returncode == 0, result.stderr[-3000:]
    output = (result.stdout + result.stderr).splitlines()
    warnings = [line for line in output if "WARN planguard" in line]
    assert len(warnings) == 1, warnings


PLAIN_JOB = """
import planguard
planguard.install_error_conversion()  # though this session runs without planguard's jar
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
try:
    spark.sql("SELECT * FROM no_such_table").collect()
except AnalysisException as e:
    print("RAISED", e.getCondition())
"""


def test_a_session_without_the_jar_raises_sparks_own_errors():
    """A process that installed planguard's error conversion and runs Spark without planguard's jar
    gets Spark's errors as they are. (Each used to recurse without end: looking for a violation in it threw
    ClassNotFoundException in the JVM, which PySpark's handler sent back to the conversion.)"""
    result = subprocess.run([sys.executable, "-c", PLAIN_JOB], capture_output=True, text=True,
                            timeout=300, env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    assert "RAISED TABLE_OR_VIEW_NOT_FOUND" in result.stdout, result.stderr[-3000:]

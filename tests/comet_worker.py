"""The Comet side of tests/test_comet.py: one Apache DataFusion Comet session in this process.

It runs in the virtualenv of the Spark line test_comet.py runs Comet on (.cache/venv-spark4.1,
pyspark 4.1.3; with PLANGUARD_COMET_LINE=3.5, .cache/venv-spark3.5, pyspark 3.5.9), which
test_comet.py creates, never in the main pytest process: Maven Central's Comet is built for Spark
4.1 (1.2.0) and 3.5 (0.12.0), not for the 4.0 of the development environment's pyspark, and
Spark reads spark.sql.extensions, spark.plugins and spark.shuffle.manager once per JVM.
planguard's Python package is the one installed in that virtualenv; its jars are that line's
(target/spark-<line>/).

    PYTHONPATH=. python tests/comet_worker.py CONFIG.json OUT.json   # from the repository's root

CONFIG (written by test_comet.py): order (null: Comet without planguard; "first" or "last":
planguard listed before or after CometSparkSessionExtensions), comet_jar, planguard_jar,
tests_jar, data (a folder of TPC-H Parquet tables), queries (name -> Spark SQL). OUT gets, for
adaptive execution on and off, each query's rows (or its error), its Comet operator count,
operator count and time, and the planguard violations it recorded; with planguard, what each
broken test rule did. An unexpected failure writes OUT.failed with the traceback.
"""
import json
import pathlib
import re
import sys
import tempfile
import time

import planguard
from pyspark.sql import SparkSession

from corpora import corpus  # corpus.rows: a query's rows, comparable as JSON (PYTHONPATH: the root)
from results_file import results_file  # tests/, the script's own folder

COMET = "org.apache.comet.CometSparkSessionExtensions"
# Comet's installation guide: its plugin, its shuffle manager, off-heap memory (without it the
# driver plugin disables Comet: "Comet plugin is disabled because Spark is not running in
# off-heap mode"), and native execution and shuffle on.
COMET_CONFS = {
    "spark.plugins": "org.apache.spark.CometPlugin",
    "spark.shuffle.manager":
        "org.apache.spark.sql.comet.execution.shuffle.CometShuffleManager",
    "spark.memory.offHeap.enabled": "true",
    "spark.memory.offHeap.size": "1g",
    "spark.comet.enabled": "true",
    "spark.comet.exec.enabled": "true",
    "spark.comet.shuffle.enabled": "true",
}
# Test-only rules from the line's tests jar (jvm/src/test/scala/planguard/testing), each off until
# switched on. They are listed before Comet's extension, so that each breaks the plan Spark
# prepared and Comet then converts what the rule left, as it would a plan of Spark's own.
BROKEN = ["planguard.testing.SwapRootColumnsExtension",
          "planguard.testing.RemoveFinalAggregateExchangeExtension",
          "planguard.testing.RemoveFinalAggregateExchangeStagePrepExtension",
          "planguard.testing.ReverseRootProjectExecExtension",
          "planguard.testing.ReverseRootProjectExecStagePrepExtension",
          "planguard.testing.DropLastFieldExtension"]
SWITCHES = ["SwapRootColumns", "RemoveFinalAggregateExchange", "ReverseRootProjectExec",
            "DropLastFieldExec"]
# (switch, query): each broken rule on a query whose plan it breaks.
PROJECTION = ("SELECT l_orderkey, l_quantity * 2 AS q2, l_partkey FROM lineitem "
              "WHERE l_quantity > 45")
# (switch, query): each broken rule on a query whose plan it breaks. lineitem is one Parquet row
# group, one partition: the aggregate reads it repartitioned, so that a missing exchange under
# the final aggregate gives wrong groups.
BROKEN_CASES = [
    ("RemoveFinalAggregateExchange",
     "SELECT l_returnflag, l_linestatus, count(*) AS n, sum(l_quantity) AS q "
     "FROM (SELECT /*+ REPARTITION(3) */ * FROM lineitem) GROUP BY l_returnflag, l_linestatus"),
    ("SwapRootColumns", PROJECTION),
    ("ReverseRootProjectExec", PROJECTION),
    ("DropLastFieldExec", PROJECTION),
]
# Plan-tree lines: the indentation and tree characters, an optional codegen stage id, the name.
NODE = re.compile(r"^[\s:|+\-]*(?:\*\(\d+\) )?([A-Za-z]\w*)")


def session(config: dict, warehouse: str) -> SparkSession:
    order = config["order"]
    jars = [config["comet_jar"]]
    extensions = [COMET]
    if order is not None:
        jars += [config["planguard_jar"], config["tests_jar"]]
        extensions = ([planguard.EXTENSION_CLASS, *BROKEN, COMET] if order == "first"
                      else [*BROKEN, COMET, planguard.EXTENSION_CLASS])
    builder = (SparkSession.builder.master("local[2]").appName(f"planguard-comet-{order}")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.memory", "2g")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.warehouse.dir", warehouse)
               .config("spark.jars", ",".join(jars))
               # The shuffle manager and the plugin are loaded as the context starts.
               .config("spark.driver.extraClassPath", ":".join(jars))
               .config("spark.sql.extensions", ",".join(extensions))
               .config("spark.planguard.mode", "fail")
               .config("spark.planguard.internalErrors", "fail"))
    for key, value in COMET_CONFS.items():
        builder.config(key, value)
    for switch in SWITCHES:
        builder.config(f"planguard.testing.{switch}", "false")
    spark = builder.getOrCreate()
    planguard.install_error_conversion()  # installed by spark.sql.extensions, not configure()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def operators(plan_text: str) -> list:
    """The operator names of a physical plan's text; of an adaptive plan, its final plan's."""
    if "== Final Plan ==" in plan_text:
        plan_text = plan_text.split("== Final Plan ==", 1)[1].split("== Initial Plan ==", 1)[0]
    names = []
    for line in plan_text.splitlines():
        found = NODE.match(line)
        if found and not line.lstrip().startswith("=="):
            names.append(found.group(1))
    return names


def run_queries(spark, queries: dict, guarded: bool) -> dict:
    out = {}
    for name, sql in queries.items():
        before = planguard.violation_count(spark) if guarded else 0
        started = time.monotonic()
        entry = {}
        try:
            df = spark.sql(sql)
            entry["rows"] = corpus.rows(df)
            names = operators(df._jdf.queryExecution().executedPlan().toString())
            entry["comet"] = sum(n.startswith("Comet") for n in names)
            entry["operators"] = len(names)
            entry["comet_names"] = sorted({n for n in names if n.startswith("Comet")})
        except Exception as e:  # recorded, compared by the test
            entry["rows"] = f"ERROR {type(e).__name__}: {str(e)[:1500]}"
        entry["seconds"] = round(time.monotonic() - started, 3)
        if guarded:
            count = planguard.violation_count(spark) - before
            entry["violations"] = count
            if count:
                entry["recorded"] = planguard.violations(spark)[-count:]
        out[name] = entry
    return out


def run_broken(spark, expected: dict) -> dict:
    """Each broken rule switched on: the exception it raised (invariant, phase, rule, the plan
    planguard reported) or, if the query ran, its rows and whether they are the right ones."""
    out = {}
    for switch, sql in BROKEN_CASES:
        spark.conf.set(f"planguard.testing.{switch}", "true")
        entry = {"sql": sql}
        before = planguard.violation_count(spark)
        try:
            entry["rows"] = corpus.rows(spark.sql(sql))
            entry["right_rows"] = entry["rows"] == expected.get(sql)
        except planguard.InvariantViolation as e:
            entry.update(invariant=e.invariant, phase=e.phase, rule=e.rule,
                         message=str(e)[:3000])
        except Exception as e:
            entry["error"] = f"{type(e).__name__}: {str(e)[:3000]}"
        finally:
            spark.conf.set(f"planguard.testing.{switch}", "false")
        recorded = planguard.violations(spark)[-(planguard.violation_count(spark) - before):] \
            if planguard.violation_count(spark) > before else []
        if recorded:
            entry["plan"] = recorded[-1].get("plan", "")  # what planguard names: the plan's root
        out[switch] = entry
    return out


def main(config_path: str, out_path: str) -> None:
    config = json.loads(pathlib.Path(config_path).read_text())
    out = pathlib.Path(out_path)
    with results_file(out) as results, tempfile.TemporaryDirectory() as warehouse:
        started = time.monotonic()
        spark = session(config, warehouse)
        guarded = config["order"] is not None
        results.update(spark=spark.version, start_seconds=round(time.monotonic() - started, 1))
        if guarded:
            results["installed"] = planguard.installed(spark)
        results["extensions"] = spark.sparkContext.getConf().get("spark.sql.extensions")
        for path in sorted(pathlib.Path(config["data"]).glob("*.parquet")):
            spark.read.parquet(str(path)).createOrReplaceTempView(path.stem)
        for adaptive in config.get("adaptive", ("true", "false")):
            spark.conf.set("spark.sql.adaptive.enabled", adaptive)
            key = "aqe-on" if adaptive == "true" else "aqe-off"
            results[key] = run_queries(spark, config["queries"], guarded)
            if guarded:
                plain = {sql: corpus.rows(spark.sql(sql)) for _, sql in BROKEN_CASES}
                results[f"broken-{key}"] = run_broken(spark, plain)
        results["seconds"] = round(time.monotonic() - started, 1)
        spark.stop()

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

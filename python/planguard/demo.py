"""`planguard demo`: a local Spark session runs a few queries (projections, functions, literals,
a join and a two-phase aggregate) and every check passes; then a deliberately broken optimizer rule,
from the demo's own jar, is caught in fail mode and reported in warn mode.
"""
import sys
import time

from pyspark.sql import SparkSession

import planguard
from planguard._jar import demo_jar_path

_QUERIES = [
    ("projected columns", "SELECT t1.id, a, t2.id, b FROM t1 JOIN t2 ON t1.id = t2.id"),
    ("function transformed columns", "SELECT ABS(t1.id), abs(-id) FROM t1"),
    ("function with operators", "SELECT t1.id + ABS(id), ABS(id * t1.id) FROM t1"),
    ("project literals", "SELECT 1, 2+5, 'foo_bar'"),
    ("two-phase aggregate",
     "SELECT l_orderkey, COUNT(l_partkey) AS n FROM lineitem JOIN orders "
     "ON l_orderkey = o_orderkey GROUP BY l_orderkey ORDER BY l_orderkey"),
]
_BROKEN_QUERY = "SELECT l_orderkey AS id, l_partkey AS part FROM lineitem"
_BROKEN_SWITCH = "planguard.demo.breakRootColumns"


def _say(text=""):
    print(text, flush=True)


def _session() -> SparkSession:
    builder = (SparkSession.builder.master("local[2]").appName("planguard demo")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2"))
    planguard.configure(builder, mode="fail")
    # The demo's broken rule, from its own jar, listed after planguard like any third-party
    # extension.
    options = builder._options
    builder.config("spark.jars", options["spark.jars"] + "," + demo_jar_path())
    builder.config("spark.sql.extensions",
                   options["spark.sql.extensions"] + ",planguard.demo.BrokenRuleDemoExtension")
    return builder.getOrCreate()


def _tables(spark: SparkSession) -> None:
    spark.sql("CREATE OR REPLACE TEMP VIEW t1 AS "
              "SELECT * FROM VALUES (1, 'foo'), (2, 'bar') AS t1(id, a)")
    spark.sql("CREATE OR REPLACE TEMP VIEW t2 AS "
              "SELECT * FROM VALUES (1, 'hello'), (2, 'world') AS t2(id, b)")
    spark.range(1000).selectExpr("id % 100 AS l_orderkey", "id AS l_partkey") \
        .createOrReplaceTempView("lineitem")
    spark.range(100).selectExpr("id AS o_orderkey").createOrReplaceTempView("orders")


def run() -> int:
    started = time.time()
    _say("planguard demo: starting a local Spark session with planguard installed ...")
    spark = _session()
    spark.sparkContext.setLogLevel("ERROR")
    _tables(spark)
    _say(f"planguard installed: {planguard.installed(spark)}\n")

    _say("1. A few queries; every plan is checked before it runs:")
    for title, sql in _QUERIES:
        rows = spark.sql(sql).collect()
        _say(f"   ok  {title}: {len(rows)} rows, columns {spark.sql(sql).columns}")

    _say("\n2. A deliberately broken optimizer rule reverses the root projection's columns:")
    _say(f"   {_BROKEN_QUERY}")
    spark.conf.set(_BROKEN_SWITCH, "true")
    try:
        spark.sql(_BROKEN_QUERY).collect()
        _say("   NOT CAUGHT: planguard let the broken plan run")
        return 1
    except planguard.InvariantViolation as e:
        _say(f"   caught in fail mode: {e.invariant} in phase {e.phase}")
        _say(f"   expected {e.expected.simpleString()}")
        _say(f"   actual   {e.actual.simpleString()}")
        _say(f"   broken by {e.rule}")
        _say("   no row was produced.")

    spark.sparkContext.setLogLevel("WARN")
    spark.conf.set("spark.planguard.mode", "warn")
    rows = spark.sql(_BROKEN_QUERY).collect()
    _say(f"\n3. In warn mode the same query logs one warning (above) and returns {len(rows)} "
         "rows, in the broken rule's column order.")
    spark.conf.set(_BROKEN_SWITCH, "false")
    spark.stop()
    _say(f"\nplanguard demo finished in {time.time() - started:.0f}s.")
    return 0


if __name__ == "__main__":
    sys.exit(run())

"""planguard's planner against Spark's: TPC-H end to end (rows collected on the driver) with
spark.planguard.planner.enabled=true vs false, planguard in fail mode in both. Runs are
interleaved (each repetition runs the query once each way, the order alternating); a query's ratio
is the median of its per-repetition ratios (planner on / off), which cancels the drift a shared
machine has between repetitions; the summary is their geometric mean. Targets (issue 4): geometric
mean <= 1.00, no query above 1.05. See benchmarks/planning_overhead.py for the method. The last
column says whether the planner prepared the very plan Spark prepares (adaptive execution on and
off): where it did, a ratio away from 1 is this machine's noise.

With --eager on or always the planner's side also aggregates eagerly below joins
(spark.planguard.planner.eagerAggregation; the tables here are temporary views without column
statistics, so `on` pushes nothing and `always` pushes wherever sound), and the last column says
whether it pushed an aggregation in that query.

The data is TPC-H at --scale (default 1), generated once with DuckDB's tpch extension into
.cache/tpch-sf<scale>/ (Parquet), the queries transpiled to Spark SQL with sqlglot.

    python -m benchmarks.planner_tpch [--scale SF] [--repetitions N] [--only q01,q06]
        [--shuffle-partitions P] [--driver-memory 6g] [--eager off|on|always]
"""
import argparse
import glob
import json
import os
import pathlib
import platform
import re
import sys
import time

from pyspark.sql import SparkSession

import planguard

from benchmarks.planning_overhead import TESTS_JAR, geomean, median_ms, paired_ratio

ROOT = pathlib.Path(__file__).resolve().parent.parent

PLANNER = "spark.planguard.planner.enabled"
EAGER = "spark.planguard.planner.eagerAggregation"


def generate(scale: float, bench: str = "tpch") -> pathlib.Path:
    """A benchmark's tables as Parquet and its queries in Spark SQL, once per scale factor: TPC-H
    (22 queries, DuckDB's dbgen) or TPC-DS (99, dsdgen)."""
    data = ROOT / ".cache" / f"{bench}-sf{scale:g}"
    if (data / "queries.json").exists():
        return data
    import duckdb
    import duckdb_extension_tpcds
    import duckdb_extension_tpch
    import sqlglot

    module, generator = {"tpch": (duckdb_extension_tpch, "dbgen"),
                         "tpcds": (duckdb_extension_tpcds, "dsdgen")}[bench]
    started = time.monotonic()
    data.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.load_extension(glob.glob(os.path.join(os.path.dirname(module.__file__),
                                              "extensions", "*", "*.duckdb_extension"))[0])
    con.execute(f"CALL {generator}(sf={scale})")
    for (table,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall():
        con.execute(f"COPY {table} TO '{data / table}.parquet' (FORMAT parquet)")
    queries = {f"q{n:02d}": sqlglot.transpile(sql, read="duckdb", write="spark")[0]
               for n, sql in con.execute(f"SELECT query_nr, query FROM {bench}_queries()").fetchall()}
    (data / "queries.json").write_text(json.dumps(queries, indent=1))
    print(f"generated {bench.upper()} SF {scale:g} in {time.monotonic() - started:.0f} s")
    return data


def session(shuffle_partitions: int, driver_memory: str) -> SparkSession:
    builder = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.memory", driver_memory)
               .config("spark.sql.shuffle.partitions", str(shuffle_partitions)))
    planguard.configure(builder, mode="fail", planner=True)
    builder.config("spark.jars", builder._options["spark.jars"] + "," + str(TESTS_JAR))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def same_plan(spark, sql: str) -> bool:
    """True when the planner prepares the plan Spark prepares, subqueries included, with adaptive
    execution off (the whole plan) and on (the adaptive plans' initial plans; a plan adaptive
    execution does not take is not the same): the plans' texts, expression ids left out."""
    adaptive = spark.conf.get("spark.sql.adaptive.enabled")
    plans = {}
    for aqe in ("false", "true"):
        spark.conf.set("spark.sql.adaptive.enabled", aqe)
        for planner in ("true", "false"):
            spark.conf.set(PLANNER, planner)
            text = spark.sql(sql)._jdf.queryExecution().executedPlan().toString()
            plans[aqe, planner] = re.sub(r"#\d+L?|plan_id=\d+", "", text)
    spark.conf.unset(PLANNER)
    spark.conf.set("spark.sql.adaptive.enabled", adaptive)
    return all(plans[aqe, "true"] == plans[aqe, "false"] for aqe in ("false", "true"))


def eagerly_aggregated(spark, sql: str) -> bool:
    """True when the planner's side aggregates part of the query below a join (the partial
    results' columns EagerAggregation names)."""
    spark.conf.set(PLANNER, "true")
    text = spark.sql(sql)._jdf.queryExecution().optimizedPlan().toString()
    spark.conf.unset(PLANNER)
    return re.search(r"\bpartial_(sum|count|min|max|avg_sum)#", text) is not None


def measure(spark, timer, sql: str, repetitions: int):
    """Interleaved timings: (planner on, planner off), each a list of per-repetition timings."""
    times = {"true": [], "false": []}
    for i in range(repetitions):
        for planner in (["true", "false"] if i % 2 == 0 else ["false", "true"]):
            spark.conf.set(PLANNER, planner)
            times[planner].append(list(timer(spark._jsparkSession, sql)))
    spark.conf.unset(PLANNER)
    return times["true"], times["false"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--only", default="", help="comma-separated query names (q01,q06)")
    parser.add_argument("--shuffle-partitions", type=int, default=8)
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--eager", choices=["off", "on", "always"], default="off")
    args = parser.parse_args()
    data = generate(args.scale)
    spark = session(args.shuffle_partitions, args.driver_memory)
    spark.conf.set(EAGER, args.eager)
    for path in sorted(data.glob("*.parquet")):
        spark.read.parquet(str(path)).createOrReplaceTempView(path.stem)
    queries = json.loads((data / "queries.json").read_text())
    if args.only:
        queries = {k: v for k, v in queries.items() if k in args.only.split(",")}
    timing = spark._jvm.planguard.bench.PlanningTime
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, Spark {spark.version}, local[2]; TPC-H SF {args.scale:g}, "
          f"spark.sql.shuffle.partitions={args.shuffle_partitions}, adaptive execution "
          f"{spark.conf.get('spark.sql.adaptive.enabled')}; {args.repetitions} interleaved runs "
          f"per query; eager aggregation {args.eager}\n")
    print(f"{'query':8} {'planner ms':>11} {'Spark ms':>9} {'ratio':>7}  same plan  eager")
    ratios, same = [], []
    for name, sql in queries.items():
        same.append(same_plan(spark, sql))
        eager = eagerly_aggregated(spark, sql)
        measure(spark, timing.run, sql, 1)  # warm-up
        on, off = measure(spark, timing.run, sql, args.repetitions)
        ratios.append(paired_ratio(on, off, 0))
        print(f"{name:8} {median_ms(on, 0):11.1f} {median_ms(off, 0):9.1f} {ratios[-1]:7.3f}  "
              f"{'yes' if same[-1] else 'no':9}  {'pushed' if eager else '-'}", flush=True)
    if ratios:
        mean = geomean(ratios)
        print(f"\nend to end geometric mean ratio: {mean:.3f} over {len(ratios)} queries; "
              f"max {max(ratios):.3f}; above 1.05: {sum(r > 1.05 for r in ratios)}; the same "
              f"prepared plan as Spark's: {sum(same)} of {len(same)}")
        met = mean <= 1.00 and max(ratios) <= 1.05
        print("target (geometric mean <= 1.00, no query above 1.05): "
              f"{'met' if met else 'not met'}")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

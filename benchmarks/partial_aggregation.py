"""Adaptive partial aggregation (spark.planguard.planner.partialAggregation.adaptive) against
Spark's planner: aggregations end to end, side by side in one run. Per query: the wall-time
speedup (Spark's time / planguard's, the median of interleaved pairs: above 1 is faster), the
shuffle bytes written, the aggregates' spill and peak memory each way, and whether the partial
aggregate gave up (rows passed through). planguard is in fail mode both ways; "planguard" is its
planner with adaptive partial aggregation on, "Spark" planguard with its planner off.

Shapes: GROUP BYs over --rows rows (default 8 million, generated once into .cache/partial-agg/
as Parquet) with keys of every cardinality, and with --tpch, TPC-H at --scale (see
benchmarks/planner_tpch.py). Targets (issue 53): no query below 0.97, geometric mean >= 1.05,
shuffle bytes never higher.

    python -m benchmarks.partial_aggregation [--rows N] [--repetitions N] [--tpch] [--scale SF]
        [--only high,q18] [--probe-rows N] [--shuffle-partitions P] [--driver-memory 6g]
"""
import argparse
import json
import os
import pathlib
import platform
import sys

from benchmarks.planning_overhead import geomean, median_ms, paired_ratio
from benchmarks.planner_tpch import PLANNER, generate, session

ROOT = pathlib.Path(__file__).resolve().parent.parent
ADAPTIVE = "spark.planguard.planner.partialAggregation.adaptive"
# The synthetic shapes: each GROUP BY under a global aggregate, so that few rows reach the driver.
SHAPES = {
    "unique": "SELECT count(*), sum(s), sum(c) FROM (SELECT id, sum(v) s, count(*) c FROM big "
              "GROUP BY id)",
    "high": "SELECT count(*), sum(s), max(a) FROM (SELECT high, sum(v) s, avg(d) a FROM big "
            "GROUP BY high)",
    "high-string": "SELECT count(*), sum(c) FROM (SELECT name, count(*) c, min(v) m FROM big "
                   "GROUP BY name)",
    "two-per-key": "SELECT count(*), sum(s) FROM (SELECT pair, sum(v) s FROM big GROUP BY pair)",
    "low": "SELECT low, sum(v), avg(d), count(*) FROM big GROUP BY low",
    "medium": "SELECT count(*), sum(s) FROM (SELECT medium, sum(v) s FROM big GROUP BY medium)",
}
# Where each metric comes from: Spark's names for them (SQLMetrics).
METRICS = {"shuffle": "shuffle bytes written", "spill": "spill size", "peak": "peak memory",
           "passed": "rows passed through"}


def synthetic(spark, rows: int) -> None:
    """`big`: `rows` rows, written once. `id` is unique, `high` has rows / 2 values spread over the
    whole table, `pair` two rows per key next to each other, `medium` 100,000 values, `low` 100."""
    path = ROOT / ".cache" / "partial-agg" / f"big-{rows}"
    if not (path / "_SUCCESS").exists():
        spark.range(0, rows, 1, 8).selectExpr(
            "id", f"(id * 7919) % {max(rows // 2, 1)} AS high", "id DIV 2 AS pair",
            "id % 100000 AS medium", "id % 100 AS low", "id * 0.25D AS v",
            "CAST(id % 1000 AS DECIMAL(12, 2)) AS d", "concat('name-', id * 31 % 1000003) AS name"
        ).write.mode("overwrite").parquet(str(path))
    spark.read.parquet(str(path)).createOrReplaceTempView("big")


def planned(spark, adaptive: bool) -> None:
    spark.conf.set(PLANNER, str(adaptive).lower())
    spark.conf.set(ADAPTIVE, str(adaptive).lower())


def metrics(spark, sql: str, adaptive: bool) -> dict:
    """One run's metrics, summed over the plan that ran."""
    planned(spark, adaptive)
    df = spark.sql(sql)
    df.collect()
    named = spark._jvm.planguard.testing.PlanMetrics.named
    return {key: named(df._jdf, name) for key, name in METRICS.items()}


def measure(spark, timer, sql: str, repetitions: int):
    """Interleaved timings: (planguard, Spark), each a list of per-repetition timings."""
    times = {True: [], False: []}
    for i in range(repetitions):
        for adaptive in ([True, False] if i % 2 == 0 else [False, True]):
            planned(spark, adaptive)
            times[adaptive].append(list(timer(spark._jsparkSession, sql)))
    return times[True], times[False]


def mb(n: int) -> str:
    return f"{n / 1e6:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=8_000_000)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--tpch", action="store_true", help="also the TPC-H queries")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--only", default="", help="comma-separated shapes or queries (high,q18)")
    parser.add_argument("--probe-rows", type=int,
                        help="spark.planguard.planner.partialAggregation.probeRows (its default)")
    parser.add_argument("--shuffle-partitions", type=int, default=8)
    parser.add_argument("--driver-memory", default="6g")
    args = parser.parse_args()
    spark = session(args.shuffle_partitions, args.driver_memory)
    if args.probe_rows:
        spark.conf.set("spark.planguard.planner.partialAggregation.probeRows", args.probe_rows)
    synthetic(spark, args.rows)
    queries = dict(SHAPES)
    if args.tpch:
        data = generate(args.scale)
        for path in sorted(data.glob("*.parquet")):
            spark.read.parquet(str(path)).createOrReplaceTempView(path.stem)
        queries.update(json.loads((data / "queries.json").read_text()))
    if args.only:
        queries = {k: v for k, v in queries.items() if k in args.only.split(",")}
    timing = spark._jvm.planguard.bench.PlanningTime
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, Spark {spark.version}, local[2]; {args.rows:,} rows"
          f"{f', TPC-H SF {args.scale:g}' if args.tpch else ''}, spark.sql.shuffle.partitions="
          f"{args.shuffle_partitions}, adaptive execution "
          f"{spark.conf.get('spark.sql.adaptive.enabled')}; {args.repetitions} interleaved runs "
          f"per query; probe {spark.conf.get('spark.planguard.planner.partialAggregation.probeRows')}"
          f" rows, give up above "
          f"{spark.conf.get('spark.planguard.planner.partialAggregation.skipRatio')}\n")
    print(f"{'query':12} {'planguard ms':>12} {'Spark ms':>9} {'speedup':>8} "
          f"{'shuffle MB':>15} {'spill MB':>13} {'peak MB':>13} {'passed through':>15}")
    speedups, higher = [], []
    for name, sql in queries.items():
        ours, spark_s = metrics(spark, sql, True), metrics(spark, sql, False)
        on, off = measure(spark, timing.run, sql, args.repetitions)
        speedups.append(1 / paired_ratio(on, off, 0))
        if ours["shuffle"] > spark_s["shuffle"]:
            higher.append(name)
        print(f"{name:12} {median_ms(on, 0):12.0f} {median_ms(off, 0):9.0f} {speedups[-1]:8.3f} "
              f"{mb(ours['shuffle']):>7}/{mb(spark_s['shuffle']):>7} "
              f"{mb(ours['spill']):>6}/{mb(spark_s['spill']):>6} "
              f"{mb(ours['peak']):>6}/{mb(spark_s['peak']):>6} {ours['passed']:15,}", flush=True)
    if speedups:
        mean = geomean(speedups)
        print(f"\ngeometric mean speedup: {mean:.3f} over {len(speedups)} queries; min "
              f"{min(speedups):.3f}; below 0.97: {sum(s < 0.97 for s in speedups)}; shuffle bytes "
              f"higher: {', '.join(higher) or 'none'}")
        met = min(speedups) >= 0.97 and mean >= 1.05 and not higher
        print("target (none below 0.97, geometric mean >= 1.05, shuffle bytes never higher): "
              f"{'met' if met else 'not met'}")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

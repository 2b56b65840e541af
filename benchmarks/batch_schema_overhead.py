"""BATCH_SCHEMA's cost at execution: TPC-H end to end (rows collected on the driver) with the check
on (spark.planguard.check.BATCH_SCHEMA=fail, at --scope, sampling every --every-th row or batch)
vs off, planguard enabled in both. Runs are interleaved (each repetition runs the query once each
way, the order alternating); a query's ratio is the median of its per-repetition ratios (on / off),
which cancels the drift a shared machine has between repetitions; the summary is their geometric
mean. See benchmarks/planning_overhead.py, whose session, corpus and timing it reuses.

    python -m benchmarks.batch_schema_overhead [--repetitions N] [--scope root|stages]
        [--every K] [--only NAME]
"""
import argparse
import os
import platform
import sys

from benchmarks.planning_overhead import Corpus, geomean, median_ms, paired_ratio, session

CHECK = "spark.planguard.check.BATCH_SCHEMA"


def measure(spark, timer, sql: str, repetitions: int):
    """Interleaved timings: (check on, check off), each a list of per-repetition timings."""
    times = {"fail": [], "off": []}
    for i in range(repetitions):
        for level in (["fail", "off"] if i % 2 == 0 else ["off", "fail"]):
            spark.conf.set(CHECK, level)
            times[level].append(list(timer(spark._jsparkSession, sql)))
    spark.conf.unset(CHECK)
    return times["fail"], times["off"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--scope", choices=["root", "stages"], default="root")
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--only", default="tpch-", help="run only the queries whose name "
                        "contains this (TPC-H by default)")
    args = parser.parse_args()
    spark = session()
    spark.conf.set("spark.planguard.batchSchema.scope", args.scope)
    spark.conf.set("spark.planguard.batchSchema.every", str(args.every))
    timing = spark._jvm.planguard.bench.PlanningTime
    queries = Corpus(spark, args.only)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, Spark {spark.version}, local[2]; BATCH_SCHEMA scope "
          f"{args.scope}, every {args.every}; {args.repetitions} interleaved runs per query\n")
    print(f"{'query':34} {'checked ms':>11} {'off ms':>9} {'ratio':>7}")
    ratios = []
    for name, query in queries.queries.items():
        sql = queries.use(query)
        measure(spark, timing.run, sql, 1)  # warm-up
        on, off = measure(spark, timing.run, sql, args.repetitions)
        ratios.append(paired_ratio(on, off, 0))
        print(f"{name:34} {median_ms(on, 0):11.1f} {median_ms(off, 0):9.1f} {ratios[-1]:7.3f}")
    if ratios:
        print(f"\nend to end geometric mean ratio: {geomean(ratios):.3f} over {len(ratios)} "
              f"queries; max {max(ratios):.3f}; above 1.05: {sum(r > 1.05 for r in ratios)}")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""planguard's cost, measured side by side in one session: each corpus query's time from SQL text
to the executed plan with planguard in fail mode vs spark.planguard.enabled=false, interleaved
(the order alternates every repetition), and TPC-H end to end. Prints per-query medians, the
ratios and their geometric means. Timing is done on the JVM (planguard-tests.jar).

    python benchmarks/planning_overhead.py [--repetitions N] [--run-repetitions M] [--only NAME]
"""
import argparse
import math
import os
import pathlib
import platform
import statistics
import sys

from pyspark.sql import SparkSession

import planguard

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402

TESTS_JAR = HERE.parent / "target" / "planguard-tests.jar"


def session() -> SparkSession:
    builder = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2"))
    planguard.configure(builder, mode="fail")
    builder.config("spark.jars", builder._options["spark.jars"] + "," + str(TESTS_JAR))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def measure(spark, timer, sql: str, repetitions: int, start_enabled: bool):
    """Interleaved timings: (enabled, disabled) lists of seconds."""
    times = {True: [], False: []}
    for i in range(repetitions):
        order = [True, False] if (i % 2 == 0) == start_enabled else [False, True]
        for enabled in order:
            spark.conf.set("spark.planguard.enabled", str(enabled).lower())
            times[enabled].append(timer(spark._jsparkSession, sql) / 1e9)
    spark.conf.set("spark.planguard.enabled", "true")
    return times[True], times[False]


def geomean(ratios):
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--run-repetitions", type=int, default=5)
    parser.add_argument("--only", default="", help="run only the queries whose name contains this")
    args = parser.parse_args()
    spark = session()
    timing = spark._jvm.planguard.bench.PlanningTime
    queries = {k: v for k, v in corpus.queries().items() if args.only in k}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"Spark {spark.version}, local[2]")
    print(f"planning: {args.repetitions} interleaved repetitions per query, after 3 warm-ups\n")
    print(f"{'query':34} {'planguard ms':>13} {'disabled ms':>12} {'ratio':>7}")
    ratios, current = [], None
    for name, query in queries.items():
        if query["bench"] != current:
            corpus.register(spark, query["bench"])
            current = query["bench"]
        measure(spark, timing.plan, query["sql"], 3, True)  # warm-up
        on, off = measure(spark, timing.plan, query["sql"], args.repetitions, len(ratios) % 2 == 0)
        ratio = statistics.median(on) / statistics.median(off)
        ratios.append(ratio)
        print(f"{name:34} {statistics.median(on) * 1e3:13.2f} {statistics.median(off) * 1e3:12.2f} "
              f"{ratio:7.3f}")
    print(f"\nplanning geometric mean ratio: {geomean(ratios):.3f} over {len(ratios)} queries; "
          f"max {max(ratios):.3f}")

    print(f"\nTPC-H end to end: {args.run_repetitions} interleaved runs per query\n")
    corpus.register(spark, "tpch")
    run_ratios = []
    for name, query in queries.items():
        if not name.startswith("tpch-"):
            continue
        measure(spark, timing.run, query["sql"], 1, True)  # warm-up
        on, off = measure(spark, timing.run, query["sql"], args.run_repetitions,
                          len(run_ratios) % 2 == 0)
        run_ratios.append(statistics.median(on) / statistics.median(off))
        print(f"{name:34} {statistics.median(on) * 1e3:13.1f} {statistics.median(off) * 1e3:12.1f} "
              f"{run_ratios[-1]:7.3f}")
    print(f"\nTPC-H end-to-end geometric mean ratio: {geomean(run_ratios):.3f}")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

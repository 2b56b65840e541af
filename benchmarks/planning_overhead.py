"""planguard's cost, measured side by side in one session: each corpus query's time from SQL text
to the executed plan with planguard in fail mode vs spark.planguard.enabled=false, interleaved
(each repetition times one plan of each, the order alternating), then TPC-H end to end the same
way. A query's ratio is the median of its per-repetition ratios (planguard / disabled), which
cancels the drift a shared machine has between repetitions; the summary is their geometric mean.

Planning is timed twice per plan, on the JVM (planguard-tests.jar): wall clock, and the CPU time
of the planning thread (planning is single-threaded, so this is its cost without what other
processes do meanwhile). Before any timing, the corpus is planned in both modes round robin for
--warmup-seconds, so that the JIT has compiled planguard's code as it has Spark's, as in a driver
that has planned a few thousand queries.

    python benchmarks/planning_overhead.py [--repetitions N] [--run-repetitions M]
        [--warmup-seconds S] [--only NAME]
"""
import argparse
import math
import os
import pathlib
import platform
import statistics
import sys
import time

from pyspark.sql import SparkSession

import planguard

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402

TESTS_JAR = HERE.parent / "target" / "planguard-tests.jar"


def session() -> SparkSession:
    builder = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.ui.showConsoleProgress", "false"))
    planguard.configure(builder, mode="fail")
    builder.config("spark.jars", builder._options["spark.jars"] + "," + str(TESTS_JAR))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


class Corpus:
    """The corpus queries, with the temp views of the benchmark each one reads."""

    def __init__(self, spark, only: str):
        self.spark = spark
        self.queries = {k: v for k, v in corpus.queries().items() if only in k}
        self.registered = None

    def use(self, query) -> str:
        if query["bench"] != self.registered:
            corpus.register(self.spark, query["bench"])
            self.registered = query["bench"]
        return query["sql"]


def measure(spark, timer, sql: str, repetitions: int):
    """Interleaved timings: {enabled: [per-repetition timings]}, each a list of nanoseconds."""
    times = {True: [], False: []}
    for i in range(repetitions):
        for enabled in ([True, False] if i % 2 == 0 else [False, True]):
            spark.conf.set("spark.planguard.enabled", str(enabled).lower())
            times[enabled].append(list(timer(spark._jsparkSession, sql)))
    spark.conf.set("spark.planguard.enabled", "true")
    return times[True], times[False]


def paired_ratio(on, off, k: int) -> float:
    return statistics.median(a[k] / b[k] for a, b in zip(on, off))


def median_ms(times, k: int) -> float:
    return statistics.median(t[k] for t in times) / 1e6


def geomean(ratios):
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def summary(what: str, ratios) -> str:
    return (f"{what} geometric mean ratio: {geomean(ratios):.3f} over {len(ratios)} queries; "
            f"max {max(ratios):.3f}; above 1.10: {sum(r > 1.10 for r in ratios)}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--run-repetitions", type=int, default=10)
    parser.add_argument("--warmup-seconds", type=float, default=120)
    parser.add_argument("--only", default="", help="run only the queries whose name contains this")
    args = parser.parse_args()
    spark = session()
    timing = spark._jvm.planguard.bench.PlanningTime
    queries = Corpus(spark, args.only)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"Spark {spark.version}, local[2]")

    deadline, warm = time.monotonic() + args.warmup_seconds, 0
    while time.monotonic() < deadline or warm == 0:
        for query in queries.queries.values():
            measure(spark, timing.plan, queries.use(query), 1)
            warm += 2
    print(f"warm-up: {warm} plans; then {args.repetitions} interleaved repetitions per query\n")

    print(f"{'query':34} {'planguard ms':>13} {'disabled ms':>12} {'ratio':>7} {'cpu ratio':>10}")
    wall, cpu = [], []
    for name, query in queries.queries.items():
        on, off = measure(spark, timing.plan, queries.use(query), args.repetitions)
        wall.append(paired_ratio(on, off, 0))
        cpu.append(paired_ratio(on, off, 1))
        print(f"{name:34} {median_ms(on, 0):13.2f} {median_ms(off, 0):12.2f} {wall[-1]:7.3f} "
              f"{cpu[-1]:10.3f}")
    print("\n" + summary("planning (wall clock)", wall))
    print(summary("planning (planning thread CPU)", cpu))

    tpch = {k: v for k, v in queries.queries.items() if k.startswith("tpch-")}
    if not tpch or args.run_repetitions == 0:
        return 0
    print(f"\nTPC-H end to end, wall clock: {args.run_repetitions} interleaved runs per query\n")
    print(f"{'query':34} {'planguard ms':>13} {'disabled ms':>12} {'ratio':>7}")
    runs = []
    for name, query in tpch.items():
        sql = queries.use(query)
        measure(spark, timing.run, sql, 1)  # warm-up
        on, off = measure(spark, timing.run, sql, args.run_repetitions)
        runs.append(paired_ratio(on, off, 0))
        print(f"{name:34} {median_ms(on, 0):13.1f} {median_ms(off, 0):12.1f} {runs[-1]:7.3f}")
    print("\n" + summary("TPC-H end-to-end", runs))
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

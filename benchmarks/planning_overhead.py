"""planguard's cost, measured side by side in one session: each corpus query's time from SQL text
to the executed plan with planguard in fail mode vs spark.planguard.enabled=false, then TPC-H end
to end the same way.

Timing goes round robin over the corpus, as a driver sees queries: each round plans every query
once in each mode (the order alternating from round to round), and a query's ratio is the median of
its per-round ratios (planguard / disabled), which cancels the drift a shared machine has between
rounds; the summary is their geometric mean. Planning is timed twice per plan, on the JVM
(the test jar): wall clock, and the CPU time of the planning thread (planning is
single-threaded, so this is its cost without what other processes do meanwhile).

Before any timing the corpus is planned the same way for --warmup-seconds: planguard's check rules
run once or a few times per plan, Spark's code many times, and the JIT compiles a method with C2
only after some thousands of calls. The script prints how the JIT has compiled planguard's methods
when the warm-up ends.

End to end, after --run-warmup-seconds of TPC-H runs in both modes (execution runs planguard code
that planning does not: adaptive stages and re-planning), each round runs every TPC-H query to
completion (rows collected) in three arms: planguard, disabled, and disabled again. The last is an
A/A control: its ratio to the first disabled arm is what this machine measures when nothing
differs. Printed per query (and their geometric mean) and for the 22 queries' total time.

    python -m benchmarks.planning_overhead [--rounds N] [--run-rounds M] [--warmup-seconds W]
        [--run-warmup-seconds V] [--only NAME]
"""
import argparse
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

from pyspark.sql import SparkSession

import planguard
from corpora import corpus
from corpora.built_jars import TESTS_JAR  # the broken rules, for the running line

# The check rules that run once per plan, whose compilation the warm-up reports.
ENTRY_POINTS = ("CheckAnalyzedPlan", "CheckPreparedPlan", "CheckAdaptivePlan")


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


def measure(spark, timer, sql: str, repetitions: int, arms=(True, False), first: int = 0):
    """Interleaved timings, one list per arm (planguard enabled or not) of per-repetition timings,
    each a list of nanoseconds. Repetition i (counted from `first`) runs every arm once, the order
    rotating and reversing from one repetition to the next."""
    times = [[] for _ in arms]
    for i in range(first, first + repetitions):
        order = list(range(len(arms)))
        order = order[i % len(arms):] + order[:i % len(arms)]
        for k in (order if (i // len(arms)) % 2 == 0 else order[::-1]):
            spark.conf.set("spark.planguard.enabled", str(arms[k]).lower())
            times[k].append(list(timer(spark._jsparkSession, sql)))
    spark.conf.set("spark.planguard.enabled", "true")
    return times


def round_robin(spark, timer, queries, rounds: int, arms=(True, False)):
    """{query name: one list per arm of per-round timings}: each round times every query once in
    each arm."""
    times = {name: [[] for _ in arms] for name in queries.queries}
    for r in range(rounds):
        for name, query in queries.queries.items():
            for k, t in enumerate(measure(spark, timer, queries.use(query), 1, arms, first=r)):
                times[name][k] += t
    return times


def paired_ratio(on, off, k: int) -> float:
    return statistics.median(a[k] / b[k] for a, b in zip(on, off))


def median_ms(times, k: int) -> float:
    return statistics.median(t[k] for t in times) / 1e6


def geomean(ratios):
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def summary(what: str, ratios) -> str:
    return (f"{what} geometric mean ratio: {geomean(ratios):.3f} over {len(ratios)} queries; "
            f"max {max(ratios):.3f}; above 1.10: {sum(r > 1.10 for r in ratios)}")


def jit_tiers(spark) -> str:
    """How the JIT has compiled planguard's methods so far (jcmd): how many at each tier (4 is C2),
    and the tier of each check rule's entry point (the highest, if compiled more than once)."""
    jcmd = shutil.which("jcmd") or os.path.join(os.environ.get("JAVA_HOME", ""), "bin", "jcmd")
    pid = spark._jvm.java.lang.ProcessHandle.current().pid()
    try:
        listing = subprocess.run([jcmd, str(pid), "Compiler.codelist"], capture_output=True,
                                 text=True, timeout=60).stdout
    except OSError:
        return "unknown (no jcmd)"
    tiers, entries = {}, {}
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[3].startswith("planguard."):
            tiers[fields[1]] = tiers.get(fields[1], 0) + 1
            for rule in ENTRY_POINTS:
                if fields[3].startswith(f"planguard.rules.{rule}.apply("):
                    entries[rule] = max(entries.get(rule, "0"), fields[1])
    return (", ".join(f"{n} at tier {t}" for t, n in sorted(tiers.items())) + "; " +
            ", ".join(f"{rule} tier {entries.get(rule, '-')}" for rule in ENTRY_POINTS))


def total_ratio(on, off) -> float:
    """The median over rounds of the ratio of all queries' total times."""
    return statistics.median(sum(q[i][0] for q in on) / sum(q[i][0] for q in off)
                             for i in range(len(on[0])))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--run-rounds", type=int, default=30)
    parser.add_argument("--warmup-seconds", type=float, default=240)
    parser.add_argument("--run-warmup-seconds", type=float, default=60)
    parser.add_argument("--only", default="", help="run only the queries whose name contains this")
    args = parser.parse_args()
    spark = session()
    timing = spark._jvm.planguard.bench.PlanningTime
    queries = Corpus(spark, args.only)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"Spark {spark.version}, local[2]")

    deadline, warm = time.monotonic() + args.warmup_seconds, 0
    while time.monotonic() < deadline or warm == 0:
        round_robin(spark, timing.plan, queries, 1)
        warm += len(queries.queries)
    print(f"warm-up: {warm} plans in each mode; planguard's methods compiled by the JIT: "
          f"{jit_tiers(spark)}")
    print(f"then {args.rounds} rounds, each planning every query once in each mode\n")

    print(f"{'query':34} {'planguard ms':>13} {'disabled ms':>12} {'ratio':>7} {'cpu ratio':>10}")
    wall, cpu = [], []
    for name, (on, off) in round_robin(spark, timing.plan, queries, args.rounds).items():
        wall.append(paired_ratio(on, off, 0))
        cpu.append(paired_ratio(on, off, 1))
        print(f"{name:34} {median_ms(on, 0):13.2f} {median_ms(off, 0):12.2f} {wall[-1]:7.3f} "
              f"{cpu[-1]:10.3f}")
    print("\n" + summary("planning (wall clock)", wall))
    print(summary("planning (planning thread CPU)", cpu))

    tpch = Corpus(spark, args.only)
    tpch.queries = {k: v for k, v in tpch.queries.items() if k.startswith("tpch-")}
    if not tpch.queries or args.run_rounds == 0:
        return 0
    deadline, warm = time.monotonic() + args.run_warmup_seconds, 0
    while time.monotonic() < deadline or warm == 0:
        round_robin(spark, timing.run, tpch, 1)
        warm += len(tpch.queries)
    print(f"\nTPC-H end to end, wall clock: after {warm} runs in each mode, {args.run_rounds} "
          "rounds, each running every query once in each arm; the control is disabled again / "
          "disabled\n")
    print(f"{'query':34} {'planguard ms':>13} {'disabled ms':>12} {'ratio':>7} {'control':>8}")
    times = round_robin(spark, timing.run, tpch, args.run_rounds, arms=(True, False, False))
    runs, controls = [], []
    for name, (on, off, again) in times.items():
        runs.append(paired_ratio(on, off, 0))
        controls.append(paired_ratio(again, off, 0))
        print(f"{name:34} {median_ms(on, 0):13.1f} {median_ms(off, 0):12.1f} {runs[-1]:7.3f} "
              f"{controls[-1]:8.3f}")
    print("\n" + summary("TPC-H end-to-end", runs))
    print(summary("TPC-H end-to-end A/A control", controls))
    on, off, again = ([arms[k] for arms in times.values()] for k in range(3))
    print(f"TPC-H end-to-end, the {len(times)} queries' total time: ratio "
          f"{total_ratio(on, off):.3f}; A/A control {total_ratio(again, off):.3f}")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""planguard's cost on the DataFrame pipelines users build step by step, side by side in one JVM:
two sessions of one SparkContext, one with planguard (fail mode) and one without it, and a second
session without it as an A/A control.

Every DataFrame API call analyzes the plan it makes, so a pipeline of n steps is analyzed n times,
each time whole: a rule that walks the whole plan on every step costs O(n^2). Shapes (sizes by
default): a fact LEFT JOINed USING a key to n dimensions, one after another (10, 20, 40); n
`withColumn` calls (100, 200, 400); n sources appended with `union` (100, 300); a table of n
columns filtered, extended, selected whole and aggregated (1,000, 3,000). Three figures each:
building the pipeline (every step, analysis included); planning the finished DataFrame to its
executed plan (optimization, planning, preparation; nothing runs); and planning it, then reading
the schema of its result, as every action does before its first row (plan+schema): Spark derives
the analyzed plan's output once, on first reading (a union's by merging every child's), and
planguard's checks read it while the query is planned, so an action then finds it derived.
Planned outside any SQL execution, as `df.queryExecution.executedPlan` and `explain` plan (the
default), or with --as-action inside a SQL execution of its own, as `collect`, `count` and writes
plan before their first task: planguard completes the checks of a plan prepared outside an
execution when it first runs, so only the second counts every check, and Spark's own per-action
work too (the plan's description, the events for the UI and listeners). The
arms take turns at every repetition (one build, one planning and one schema read each), until each
has spent 100 ms building and 100 ms planning: one planning of a few milliseconds varies more than
what is measured, and the machine drifts over longer spans.

Rounds go round robin over the shapes, each round timing every shape in every arm, the first arm
rotating from round to round. A figure's ratio is the median, over every repetition of every
round, of the ratio of the two timings that repetition paired, with a 95 % interval for that
median (the sign test's, which assumes nothing of the distribution); the control is the same for
the second arm without planguard, and shows how far the machine alone moves the figure. Also
printed, the median of per-round ratios of the arms' total times in the round, as earlier runs
reported it: a collection's pause of tens of milliseconds in one arm moves a round's
total, and with it that figure, by more than the difference measured (docs/benchmarks.md). After
--warmup-seconds of the same rounds, untimed (the JIT compiles planguard's rules and Spark's), and
with --warmup-plannings N, after the planguard arm has built and planned each small shape that
--only selects N more times (each pipeline built afresh, as the timed rounds do). planguard's
rules run once per query, Spark's planning code many times: a planning figure depends on how many
queries the JVM has planned before (docs/benchmarks.md, "Cold code"), so the script prints how
many plannings the warm-up ran.

    python -m benchmarks.pipeline_overhead [--rounds N] [--warmup-seconds W]
        [--warmup-plannings N] [--only SHAPES] [--as-action]
"""
import argparse
import math
import os
import platform
import statistics
import sys
import time

from pyspark.sql import SparkSession

import planguard
from corpora.built_jars import TESTS_JAR  # the broken rules, for the running line

SHAPES = [("joins", 10), ("joins", 20), ("joins", 40), ("withColumn", 100), ("withColumn", 200),
          ("withColumn", 400), ("unions", 100), ("unions", 300), ("wide", 1000), ("wide", 3000)]
# Built and planned --warmup-plannings times each when --only selects them: planguard's rules are
# the same code for every shape.
SMALL = [("joins", 10), ("withColumn", 100), ("unions", 100), ("wide", 1000)]


def session() -> SparkSession:
    """A SparkContext with planguard's jar and the benchmark's, and no extension listed: the
    planguard arm's session adds planguard itself."""
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.driver.memory", "4g")
             .config("spark.jars", f"{planguard.jar_path()},{TESTS_JAR}")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


FIGURES = ("build", "plan", "plan+schema")


def one_round(timing, sessions, shapes, r: int, as_action: bool):
    """{shape: [per repetition: [per arm: (build ns, plan ns, plan+schema ns)]]} of one round,
    the arms taking turns at every repetition, the first arm rotating with r."""
    result = {}
    n = len(sessions)
    for shape, size in shapes:
        times = list(timing.interleaved(sessions, shape, size, r % n, as_action))
        arm = [times[1 + 3 * j:4 + 3 * j] for j in range(times[0] * n)]
        result[(shape, size)] = [[(b, p, p + s) for b, p, s in arm[i * n:(i + 1) * n]]
                                 for i in range(times[0])]
    return result


def median_with_interval(values):
    """The median and a 95 % interval for it: the order statistics n/2 -/+ 1.96 sqrt(n)/2, which
    hold whatever the distribution (the sign test's interval)."""
    values = sorted(values)
    n = len(values)
    half = 1.96 * math.sqrt(n) / 2
    low, high = max(0, math.floor(n / 2 - half)), min(n - 1, math.ceil(n / 2 + half) - 1)
    return statistics.median(values), values[low], values[high]


def ratios(rounds, shape, figure: int, arm: int, per_round: bool):
    """The ratios of `arm` to the arm without planguard for one figure (FIGURES' index): per
    repetition, each pair of timings made within milliseconds of each other; or per round, of the
    arms' total times in the round."""
    if per_round:
        return [sum(rep[arm][figure] for rep in rnd[shape]) /
                sum(rep[1][figure] for rep in rnd[shape]) for rnd in rounds]
    return [rep[arm][figure] / rep[1][figure] for rnd in rounds for rep in rnd[shape]]


def selected(shape, only: str) -> bool:
    """True when --only's list names `shape` ((name, size)): by a part of its name, or as
    name:size; every shape when the list is empty."""
    name, size = shape
    return not only or any(part == f"{name}:{size}" or (":" not in part and part in name)
                           for part in only.split(","))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--warmup-seconds", type=float, default=120)
    parser.add_argument("--warmup-plannings", type=int, default=0,
                        help="then the planguard arm builds afresh and plans each small shape "
                             "that --only selects this many times")
    parser.add_argument("--only", default="",
                        help="only these shapes, comma-separated: a name part (every size of the "
                             "shapes whose name contains it) or name:size (withColumn:400)")
    parser.add_argument("--as-action", action="store_true",
                        help="plan inside a SQL execution, as an action does before its first "
                             "task (default: outside any, as df.queryExecution and explain do)")
    parser.add_argument("--disabled", action="store_true",
                        help="the planguard arm with spark.planguard.enabled=false: what listing "
                             "planguard costs when its hooks check nothing")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a conf of the planguard arm's session (repeatable): what one "
                             "check costs, with spark.planguard.check.<INVARIANT>=off")
    args = parser.parse_args()
    shapes = [s for s in SHAPES if selected(s, args.only)]
    spark = session()
    timing = spark._jvm.planguard.bench.PipelineTime
    plain, guarded = timing.sessions(spark._jsparkSession)
    again = timing.sessions(spark._jsparkSession)[0]
    confs = [c.split("=", 1) for c in args.conf] + (
        [["spark.planguard.enabled", "false"]] if args.disabled else [])
    for key, value in confs:
        guarded.conf().set(key, value)
    sessions = [guarded, plain, again]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, Spark {spark.version}, local[2]; planned "
          + ("as an action, inside a SQL execution" if args.as_action
             else "outside any SQL execution")
          + "".join(f"; the planguard arm with {key}={value}" for key, value in confs))

    deadline, warm, plannings = time.monotonic() + args.warmup_seconds, 0, 0
    while time.monotonic() < deadline or warm == 0:
        one = one_round(timing, sessions, shapes, warm, args.as_action)
        plannings += sum(len(reps) for reps in one.values())
        warm += 1
    small = [s for s in SMALL if selected(s, args.only)] if args.warmup_plannings else []
    for shape, size in small:
        timing.plan(guarded, shape, size, args.warmup_plannings, args.as_action)
        plannings += args.warmup_plannings
    print(f"warm-up: {warm} rounds, then {args.warmup_plannings} plannings of each of "
          f"{', '.join(f'{s} {n}' for s, n in small) or 'no shape'}: the planguard arm planned "
          f"{plannings} times; then {args.rounds} rounds, each building and planning every shape "
          "in each arm, the arms taking turns, for at least 100 ms per arm building and "
          "planning\n")

    rounds = [one_round(timing, sessions, shapes, r, args.as_action) for r in range(args.rounds)]
    print(f"{'shape':16} {'figure':11} {'planguard ms':>13} {'without ms':>11} {'pairs':>6} "
          f"{'ratio [95 % interval]':>22} {'control [95 % interval]':>24} {'per round':>10} "
          f"{'control':>8}")
    worst = {figure: 0.0 for figure in FIGURES}
    for shape in shapes:
        for f, figure in enumerate(FIGURES):
            ms = [statistics.median(rep[k][f] for rnd in rounds for rep in rnd[shape]) / 1e6
                  for k in range(2)]
            pairs = ratios(rounds, shape, f, 0, False)
            ratio, low, high = median_with_interval(pairs)
            control, c_low, c_high = median_with_interval(ratios(rounds, shape, f, 2, False))
            by_round = statistics.median(ratios(rounds, shape, f, 0, True))
            control_by_round = statistics.median(ratios(rounds, shape, f, 2, True))
            worst[figure] = max(worst[figure], ratio)
            print(f"{shape[0] + ' ' + str(shape[1]):16} {figure:11} {ms[0]:13.2f} {ms[1]:11.2f} "
                  f"{len(pairs):6} {ratio:7.3f} [{low:.3f}, {high:.3f}] "
                  f"{control:8.3f} [{c_low:.3f}, {c_high:.3f}] {by_round:10.3f} "
                  f"{control_by_round:8.3f}")
    print(f"\nhighest ratio: building {worst['build']:.3f}, planning {worst['plan']:.3f}, "
          f"planning and reading the schema {worst['plan+schema']:.3f}")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where planguard's planning time goes, phase by phase: one shape of benchmarks/pipeline_overhead.py
planned afresh in two sessions of one SparkContext, one with planguard (fail mode) and one
without, taking turns, each of Spark's lazy planning steps timed on its own.

Spark computes a QueryExecution's plans lazily, each from the one before: analyzed (a no-op for an
analyzed plan), normalized (the plan normalization rules, with the eagerly run commands),
withCachedData, optimizedPlan, sparkPlan (physical planning) and executedPlan (preparation, the
columnar rules and, with adaptive execution, the initial adaptive plan). planguard hooks into
normalization (it remembers the analyzed root) and preparation (its checks). Each step is timed
from Python, one py4j call each (some 50–100 µs, the same in every arm); the figures are medians over
--reps plannings per arm, after the planguard arm planned 10 joins --warmup-plannings times. A
third arm, a second session without planguard, is the A/A control: its difference from the first
is what the method cannot tell from nothing (the arms take turns, the first rotating).
--disabled times the planguard arm with spark.planguard.enabled=false: what its hooks cost when
they check nothing.

    python -m benchmarks.planning_phases [--shape joins] [--size 10] [--reps 200]
        [--warmup-plannings 2000] [--disabled]
"""
import argparse
import statistics
import sys
import time

from benchmarks.pipeline_overhead import session

STEPS = ["analyzed", "normalized", "withCachedData", "optimizedPlan", "sparkPlan", "executedPlan"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shape", default="joins")
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--warmup-plannings", type=int, default=2000)
    parser.add_argument("--disabled", action="store_true")
    args = parser.parse_args()
    spark = session()
    jvm = spark._jvm
    timing = jvm.planguard.bench.PipelineTime
    plain, guarded = timing.sessions(spark._jsparkSession)
    again = timing.sessions(spark._jsparkSession)[0]
    if args.disabled:
        guarded.conf().set("spark.planguard.enabled", "false")
    mode = jvm.org.apache.spark.sql.execution.CommandExecutionMode.ALL()
    timing.plan(guarded, "joins", 10, args.warmup_plannings, False)
    arms = [("planguard", guarded), ("without", plain), ("control", again)]
    for _, arm in arms:
        timing.plan(arm, args.shape, args.size, 20, False)

    times = {name: [] for name, _ in arms}
    for r in range(args.reps):
        for name, arm in arms[r % 3:] + arms[:r % 3]:
            analyzed = timing.build(arm, args.shape, args.size).queryExecution().analyzed()
            qe = arm.sessionState().executePlan(analyzed, mode)
            marks = [time.perf_counter_ns()]
            for step in STEPS:
                getattr(qe, step)()
                marks.append(time.perf_counter_ns())
            times[name].append([b - a for a, b in zip(marks, marks[1:])])

    print(f"{args.shape} {args.size}, Spark {spark.version}, planguard "
          f"{'disabled' if args.disabled else 'enabled'}, {args.warmup_plannings} plannings of "
          f"10 joins first, median of {args.reps} plannings per arm\n")
    print(f"{'step':16} {'planguard ms':>13} {'without ms':>11} {'difference µs':>14} "
          f"{'control µs':>11}")

    def medians(of):
        return [statistics.median(of(t) for t in times[name]) for name, _ in arms]

    for i, step in enumerate(STEPS):
        with_, without, control = medians(lambda t: t[i])
        print(f"{step:16} {with_ / 1e6:13.3f} {without / 1e6:11.3f} "
              f"{(with_ - without) / 1e3:14.1f} {(control - without) / 1e3:11.1f}")
    with_, without, control = medians(sum)
    print(f"{'total':16} {with_ / 1e6:13.3f} {without / 1e6:11.3f} "
          f"{(with_ - without) / 1e3:14.1f} {(control - without) / 1e3:11.1f}"
          f"\nratio {with_ / without:.3f}, control {control / without:.3f}")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

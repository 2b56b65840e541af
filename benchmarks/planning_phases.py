"""Where planguard's planning time goes, phase by phase: one shape of benchmarks/pipeline_overhead.py
planned afresh in two sessions of one SparkContext, one with planguard (fail mode) and one
without, taking turns, each of Spark's lazy planning steps timed on its own.

Spark computes a QueryExecution's plans lazily, each from the one before: analyzed (a no-op for an
analyzed plan), normalized (the plan normalization rules, with the eagerly run commands),
withCachedData, optimizedPlan, sparkPlan (physical planning) and executedPlan (preparation, the
columnar rules and, with adaptive execution, the initial adaptive plan). planguard hooks into
normalization (it remembers the analyzed root) and preparation (its checks). Each step is timed
from Python, one py4j call each (some 50–100 µs, the same in both arms); the figures are medians over
--reps plannings per arm, after the planguard arm planned 10 joins --warmup-plannings times.
--disabled times the planguard arm with spark.planguard.enabled=false: what its hooks cost when
they check nothing.

    python benchmarks/planning_phases.py [--shape joins] [--size 10] [--reps 200]
        [--warmup-plannings 2000] [--disabled]
"""
import argparse
import statistics
import sys
import time

from pipeline_overhead import session

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
    if args.disabled:
        guarded.conf().set("spark.planguard.enabled", "false")
    mode = jvm.org.apache.spark.sql.execution.CommandExecutionMode.ALL()
    timing.plan(guarded, "joins", 10, args.warmup_plannings)
    for arm in (guarded, plain):
        timing.plan(arm, args.shape, args.size, 20)

    times = {"planguard": [], "without": []}
    for r in range(args.reps):
        arms = [("planguard", guarded), ("without", plain)]
        for name, arm in arms if r % 2 == 0 else reversed(arms):
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
    print(f"{'step':16} {'planguard ms':>13} {'without ms':>11} {'difference µs':>14}")
    for i, step in enumerate(STEPS):
        with_, without = (statistics.median(t[i] for t in times[k]) for k in times)
        print(f"{step:16} {with_ / 1e6:13.3f} {without / 1e6:11.3f} {(with_ - without) / 1e3:14.1f}")
    with_, without = (statistics.median(sum(t) for t in times[k]) for k in times)
    print(f"{'total':16} {with_ / 1e6:13.3f} {without / 1e6:11.3f} {(with_ - without) / 1e3:14.1f}"
          f"\nratio {with_ / without:.3f}")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

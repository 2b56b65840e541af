"""What the NOT NULL claims' walk of a plan costs beside Spark's planning of it, for the four sizes
of benchmarks/pipeline_overhead.py: each pipeline built once in a session without planguard, then,
taking turns --reps times, its optimized plan walked (as OPTIMIZER_SCHEMA's claims are read, at
planning), its physical plan walked (as each prepared plan and adaptive stage is, before it runs)
and the pipeline planned afresh to its executed plan. A profiling aid (docs/benchmarks.md, "Where
the time goes"), not planguard's cost: the ratio printed is the two walks' share of one planning,
and a plan walked again and again is out of the CPU caches at each walk, which a plan that
planning has just made is not.

    python -m benchmarks.claims_walk [--reps 300] [--rounds 3] [--only joins:40,wide:3000]
"""
import argparse

from benchmarks.pipeline_overhead import session

SIZES = [("joins", 40), ("withColumn", 400), ("unions", 300), ("wide", 3000)]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", help="shape:size pairs, comma-separated (default: "
                        + ",".join(f"{shape}:{size}" for shape, size in SIZES) + ")")
    args = parser.parse_args()
    sizes = SIZES if not args.only else [(pair.split(":")[0], int(pair.split(":")[1]))
                                         for pair in args.only.split(",")]
    spark = session()
    timing = spark._jvm.planguard.bench.ClaimsTime
    plain = spark._jsparkSession.newSession()
    print(f"{'shape':16} {'optimized µs':>13} {'physical µs':>12} {'planning µs':>12} "
          f"{'walks / planning':>17}")
    for shape, size in sizes:
        timing.apply(plain, shape, size, args.reps // 3)  # warm-up
        for _ in range(args.rounds):
            optimized, physical, planning = (t / 1e3 for t in
                                             timing.apply(plain, shape, size, args.reps))
            print(f"{shape + ' ' + str(size):16} {optimized:13.0f} {physical:12.0f} "
                  f"{planning:12.0f} {(optimized + physical) / planning:17.3f}", flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The benchmark that decides how planguard's planner aggregates by default (issue 53): four arms
side by side in one run, end to end (rows collected on the driver), planguard in fail mode in
each:
  Spark     planguard listed, its planner off: Spark's plans;
  adaptive  the planner with adaptive partial aggregation
            (spark.planguard.planner.partialAggregation.adaptive);
  both      the same and eager aggregation below joins (spark.planguard.planner.eagerAggregation
            `on`, its gate; --eager always pushes wherever sound);
  eager     the planner with eager aggregation alone;
  control   (with --control) Spark's plans again, timed as an arm of its own: the A/A ratio,
            how far two runs of one plan differ here, against which the others' are read.
Per query, the rows of each arm must be Spark's (a query whose rows differ, or that fails where
Spark's plan runs, is reported and counts against the arm). Per query and arm: the speedup over
Spark (Spark's time / the arm's, the median of interleaved runs whose order rotates: above 1 is
faster), shuffle bytes written, the aggregates' spill and peak memory, the rows partial aggregates
passed through (adaptive arm), and how many aggregations eager aggregation pushed below a join.
Where it pushed none, `both` plans as `adaptive` does and `eager` as Spark does (the planner
prepares Spark's plans: tests/test_corpus.py), and neither is timed again ("=a", "=S").

Workloads:
  GROUP BYs over --rows rows (default 8 million, .cache/partial-agg/) with keys of every
  cardinality;
  aggregations over joins of --rows fact rows with 1 million dimension rows, where the gate pushes
  and where it must not (the join key grouped by, the other side broadcast);
  with --tpch / --tpcds, TPC-H / TPC-DS at --scale (DuckDB's generators, .cache/<bench>-sf<scale>/).
Every table but `big` is a catalog table over the Parquet files with column statistics (ANALYZE
TABLE ... FOR ALL COLUMNS), and spark.sql.cbo.enabled is on in every arm, so that the gate reads
what Spark knows.

Targets (issue 53), each planguard arm against Spark: no query below 0.97, geometric mean >= 1.05,
>= 1.2 where eager aggregation pushes, shuffle bytes never higher.

    python -m benchmarks.planner_aggregation [--rows N] [--repetitions N] [--tpch] [--tpcds]
        [--scale SF] [--only high,tpch-q18,tpcds-*] [--eager on|always] [--probe-rows N]
        [--shuffle-partitions P] [--driver-memory 6g] [--control]
"""
import argparse
import fnmatch
import json
import os
import pathlib
import platform
import sys
import time

from benchmarks.planning_overhead import geomean, median_ms, paired_ratio
from benchmarks.planner_tpch import EAGER, PLANNER, generate, session

ROOT = pathlib.Path(__file__).resolve().parent.parent
ADAPTIVE = "spark.planguard.planner.partialAggregation.adaptive"
# Each arm: (planner, adaptive partial aggregation, eager aggregation); None: --eager's mode.
ARMS = {"Spark": (False, False, "off"), "adaptive": (True, True, "off"),
        "both": (True, True, None), "eager": (True, False, None)}
# The A/A arm (--control): Spark's plans, timed beside the others, compared with Spark's.
CONTROL = "control"
CONTROL_ARM = (False, False, "off")
# Where eager aggregation pushed nothing, the arm plans as this one does.
SAME_UNPUSHED = {"both": "adaptive", "eager": "Spark"}
# The synthetic GROUP BYs: each under a global aggregate, so that few rows reach the driver.
GROUP_BYS = {
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
# Aggregations over joins: `facts` has 8 rows per `dims` key (1 million keys: too large to
# broadcast), `tiny` 1,000 keys (broadcast).
JOINS = {
    "join": "SELECT d.h, sum(f.v), count(*) FROM facts f JOIN dims d ON f.k = d.k GROUP BY d.h",
    "join-left": "SELECT d.h, sum(f.v), max(f.v) FROM facts f LEFT JOIN dims d ON f.k = d.k "
                 "GROUP BY d.h",
    "join-key-grouped": "SELECT count(*), sum(s) FROM (SELECT f.k, sum(f.v) s FROM facts f "
                        "JOIN dims d ON f.k = d.k GROUP BY f.k)",
    "join-broadcast": "SELECT t.h, sum(f.v), count(*) FROM facts f JOIN tiny t ON f.k = t.k "
                      "GROUP BY t.h",
}
# Where each metric comes from: Spark's names for them (SQLMetrics).
METRICS = {"shuffle": "shuffle bytes written", "spill": "spill size", "peak": "peak memory",
           "passed": "rows passed through"}


def written(path: pathlib.Path, write) -> str:
    """`path` as a string, the Parquet files written there by `write(path)` once."""
    if not (path / "_SUCCESS").exists():
        write(str(path))
    return str(path)


def catalog_table(spark, name: str, path: str) -> None:
    """`name` as a catalog table over the Parquet files at `path`, with column statistics."""
    spark.sql(f"CREATE TABLE IF NOT EXISTS {name} USING parquet LOCATION '{path}'")
    spark.sql(f"ANALYZE TABLE {name} COMPUTE STATISTICS FOR ALL COLUMNS")


def synthetic(spark, rows: int) -> None:
    """`big` (a view): `rows` rows; `id` is unique, `high` has rows / 2 values spread over the whole
    table, `pair` two rows per key next to each other, `medium` 100,000 values, `low` 100.
    `facts`, `dims` and `tiny` (catalog tables): `rows` facts over 1 million keys, 1 million
    dimension rows, 1,000."""
    cache = ROOT / ".cache" / "partial-agg"
    big = written(cache / f"big-{rows}", lambda path: spark.range(0, rows, 1, 8).selectExpr(
        "id", f"(id * 7919) % {max(rows // 2, 1)} AS high", "id DIV 2 AS pair",
        "id % 100000 AS medium", "id % 100 AS low", "id * 0.25D AS v",
        "CAST(id % 1000 AS DECIMAL(12, 2)) AS d", "concat('name-', id * 31 % 1000003) AS name"
    ).write.mode("overwrite").parquet(path))
    spark.read.parquet(big).createOrReplaceTempView("big")
    keys = 1_000_000
    tables = {
        "facts": (f"facts-{rows}", lambda path: spark.range(0, rows, 1, 8).selectExpr(
            f"(id * 7919) % {keys} AS k", "id * 0.25D AS v").write.parquet(path)),
        "dims": ("dims", lambda path: spark.range(0, keys, 1, 2).selectExpr(
            "id AS k", "id % 1000 AS h").write.parquet(path)),
        "tiny": ("tiny", lambda path: spark.range(0, 1000, 1, 1).selectExpr(
            "id AS k", "id % 10 AS h").write.parquet(path)),
    }
    for name, (directory, write) in tables.items():
        catalog_table(spark, name, written(cache / directory, write))


def benchmark(spark, bench: str, scale: float) -> dict:
    """TPC-H or TPC-DS as catalog tables of the database `bench`; its queries, named bench-qNN."""
    data = generate(scale, bench)
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {bench}")
    started = time.monotonic()
    for path in sorted(data.glob("*.parquet")):
        catalog_table(spark, f"{bench}.{path.stem}", str(path))
    print(f"{bench.upper()} SF {scale:g}: tables analyzed in {time.monotonic() - started:.0f} s",
          flush=True)
    return {f"{bench}-{name}": (bench, sql)
            for name, sql in json.loads((data / "queries.json").read_text()).items()}


def arm(spark, name: str, eager: str) -> None:
    planner, adaptive, mode = CONTROL_ARM if name == CONTROL else ARMS[name]
    spark.conf.set(PLANNER, str(planner).lower())
    spark.conf.set(ADAPTIVE, str(adaptive).lower())
    spark.conf.set(EAGER, mode or eager)


def metrics(spark, sql: str) -> dict:
    """One run's rows (sorted, doubles to 12 significant digits: sums may be added in another
    order), its metrics summed over the plan that ran, and the aggregations pushed below joins."""
    df = spark.sql(sql)
    found = {"rows": sorted(str([f"{v:.12g}" if isinstance(v, float) else v for v in row])
                            for row in df.collect())}
    jvm = spark._jvm
    found.update({key: jvm.planguard.testing.PlanMetrics.named(df._jdf, name)
                  for key, name in METRICS.items()})
    reasons = getattr(jvm.planguard.planner.eager.EagerAggregationReason, "in")  # `in`: Scala's
    found["pushed"] = reasons(df._jdf.queryExecution().executedPlan()).length()
    return found


def measure(spark, timer, sql: str, arms: list, repetitions: int, eager: str) -> dict:
    """Interleaved timings, arm -> a list of per-repetition timings; the order rotates."""
    times = {a: [] for a in arms}
    for i in range(repetitions):
        for a in arms[i % len(arms):] + arms[:i % len(arms)]:
            arm(spark, a, eager)
            times[a].append(list(timer(spark._jsparkSession, sql)))
    return times


def speedup(times: dict, a: str) -> float:
    """Spark's time over the arm's, the median of the interleaved runs' ratios."""
    return paired_ratio(times["Spark"], times[a], 0)


def mb(n: int) -> str:
    return f"{n / 1e6:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=8_000_000)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--tpch", action="store_true", help="also the TPC-H queries")
    parser.add_argument("--tpcds", action="store_true", help="also the TPC-DS queries")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--only", default="",
                        help="comma-separated queries or globs (high,join,tpch-q18,tpcds-*)")
    parser.add_argument("--eager", choices=["on", "always"], default="on")
    parser.add_argument("--probe-rows", type=int,
                        help="spark.planguard.planner.partialAggregation.probeRows (its default)")
    parser.add_argument("--shuffle-partitions", type=int, default=8)
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--control", action="store_true",
                        help="time Spark's plans a second time, as an arm: the A/A ratio")
    args = parser.parse_args()
    started = time.monotonic()
    spark = session(args.shuffle_partitions, args.driver_memory)
    spark.conf.set("spark.sql.cbo.enabled", "true")
    if args.probe_rows:
        spark.conf.set("spark.planguard.planner.partialAggregation.probeRows", args.probe_rows)
    synthetic(spark, args.rows)
    queries = {name: ("default", sql) for name, sql in {**GROUP_BYS, **JOINS}.items()}
    for bench in [b for b in ("tpch", "tpcds") if getattr(args, b)]:
        queries.update(benchmark(spark, bench, args.scale))
    if args.only:
        queries = {k: v for k, v in queries.items()
                   if any(fnmatch.fnmatchcase(k, pattern) for pattern in args.only.split(","))}
    timing = spark._jvm.planguard.bench.PlanningTime
    benches = "".join(f", {b.upper()} SF {args.scale:g}" for b in ("tpch", "tpcds")
                      if getattr(args, b))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, Spark {spark.version}, local[2]; {args.rows:,} rows"
          f"{benches}"
          f", spark.sql.shuffle.partitions={args.shuffle_partitions}, adaptive execution "
          f"{spark.conf.get('spark.sql.adaptive.enabled')}, CBO on; {args.repetitions} interleaved "
          f"runs per query and arm after one; probe "
          f"{spark.conf.get('spark.planguard.planner.partialAggregation.probeRows')} rows, give up "
          f"above {spark.conf.get('spark.planguard.planner.partialAggregation.skipRatio')}; eager "
          f"aggregation {args.eager}\n")
    rewriting = [a for a in ARMS if a != "Spark"]
    control = [CONTROL] if args.control else []
    print(f"{'query':17} {'Spark ms':>8} " + " ".join(f"{a:>8}" for a in rewriting + control) +
          f" {'shuffle MB S/a/b/e':>27} {'spill MB S/a/b/e':>27} {'peak MB S/a/b/e':>23} "
          f"{'passed through':>15} pushed")
    speedups = {a: [] for a in rewriting + control}
    pushed_speedups = {"both": [], "eager": []}
    higher, failed = [], []
    for name, (database, sql) in queries.items():
        spark.sql(f"USE {database}")
        found = {}
        try:
            for a in ARMS:  # the first run of each arm, its metrics read: a warm-up too
                arm(spark, a, args.eager)
                found[a] = metrics(spark, sql)
        except Exception as e:  # noqa: BLE001 - reported, and the run goes on
            message = str(e).strip().splitlines()[0][:200]
            print(f"{name:17} fails in the {a} arm: {message}", flush=True)
            if a != "Spark":
                failed.append(f"{name} ({a})")
            continue
        differ = [a for a in ARMS if found[a]["rows"] != found["Spark"]["rows"]]
        if differ:
            print(f"{name:17} rows differ from Spark's in the {', '.join(differ)} arm", flush=True)
            failed.extend(f"{name} ({a})" for a in differ)
            continue
        pushed = found["both"]["pushed"]
        timed = (list(ARMS) if pushed else ["Spark", "adaptive"]) + control
        times = measure(spark, timing.run, sql, timed, args.repetitions, args.eager)
        columns = []
        for a in rewriting:
            same = a not in times
            speedups[a].append(speedup(times, SAME_UNPUSHED[a]) if same else speedup(times, a))
            columns.append(f"{'=' + SAME_UNPUSHED[a][0]:>8}" if same else f"{speedups[a][-1]:8.3f}")
            # Shuffle bytes of the same plan vary by a few bytes between runs.
            if found[a]["shuffle"] > found["Spark"]["shuffle"] * 1.001 + 1000:
                higher.append(f"{name} ({a})")
            if pushed and a in pushed_speedups:
                pushed_speedups[a].append(speedups[a][-1])
        for a in control:
            speedups[a].append(speedup(times, a))
            columns.append(f"{speedups[a][-1]:8.3f}")

        def each(key):
            return "/".join(f"{mb(found[a][key]):>6}" for a in ARMS)
        print(f"{name:17} {median_ms(times['Spark'], 0):8.0f} {' '.join(columns)} "
              f"{each('shuffle'):>27} {each('spill'):>27} {each('peak'):>23} "
              f"{found['adaptive']['passed']:15,} {pushed or '-'}", flush=True)
    spark.sql("USE default")
    if speedups["adaptive"]:
        print()
        for a in rewriting:
            s, mean = speedups[a], geomean(speedups[a])
            print(f"{a}: geometric mean speedup {mean:.3f} over {len(s)} queries; min "
                  f"{min(s):.3f}; below 0.97: {sum(x < 0.97 for x in s)}"
                  + (f"; where eager aggregation pushed ({len(pushed_speedups[a])} queries): "
                     f"geometric mean {geomean(pushed_speedups[a]):.3f}, min "
                     f"{min(pushed_speedups[a]):.3f}" if pushed_speedups.get(a) else ""))
        for a in control:
            s = speedups[a]
            print(f"{a} (Spark's plans again, the A/A ratio): geometric mean {geomean(s):.3f}, "
                  f"from {min(s):.3f} to {max(s):.3f}; outside [0.97, 1.03]: "
                  f"{sum(not 0.97 <= x <= 1.03 for x in s)} of {len(s)}")
        print(f"shuffle bytes higher than Spark's: {', '.join(higher) or 'none'}")
        print(f"failed or rows differing from Spark's: {', '.join(failed) or 'none'}")

        def met(a: str) -> bool:
            return (min(speedups[a]) >= 0.97 and geomean(speedups[a]) >= 1.05
                    and min(pushed_speedups.get(a) or [1.2]) >= 1.2
                    and not any(h.endswith(f"({a})") for h in higher + failed))
        print("targets (none below 0.97, geometric mean >= 1.05, >= 1.2 where eager aggregation "
              "pushed, shuffle bytes never higher): "
              + ", ".join(f"{a} {'met' if met(a) else 'not met'}" for a in rewriting))
    print(f"\n{time.monotonic() - started:.0f} s in all")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The benchmark scripts run as docs/benchmarks.md runs them, on a small sample (their figures are
taken on a quiet machine, not here): a script that no longer runs cannot give a figure."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run(module: str, *args: str) -> str:
    """The output of the script benchmarks/<module>.py, run as a module; it must succeed."""
    result = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{module}", *args],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def pipeline_rows(output: str):
    """The figures' rows, split: shape, size, figure, ms, ms, pairs, ratio, ..."""
    rows = [line.split() for line in output.splitlines() if line.startswith("joins")]
    assert all(int(r[5]) > 0 and float(r[6]) > 0 for r in rows)  # pairs and a ratio per figure
    return rows


def test_pipeline_overhead_runs_one_round_of_two_joins():
    output = run("pipeline_overhead", "--rounds", "1", "--warmup-seconds", "0",
                 "--warmup-plannings", "2", "--only", "joins:10,joins:40")
    # The warm-up plans the small shapes --only selects, and no other.
    assert "then 2 plannings of each of joins 10:" in output
    assert "planned outside any SQL execution" in output
    assert [(r[1], r[2]) for r in pipeline_rows(output)] == [
        (n, f) for n in ("10", "40") for f in ("build", "plan", "plan+schema")]
    assert "highest ratio: building" in output


def test_pipeline_overhead_plans_as_an_action():
    output = run("pipeline_overhead", "--rounds", "1", "--warmup-seconds", "0",
                 "--warmup-plannings", "2", "--only", "joins:10", "--as-action")
    assert "planned as an action, inside a SQL execution" in output
    assert [r[2] for r in pipeline_rows(output)] == ["build", "plan", "plan+schema"]


def test_claims_walk_times_each_size():
    output = run("claims_walk", "--reps", "3", "--rounds", "1",
                 "--only", "joins:10,withColumn:40,unions:30,wide:300")
    rows = [line.split() for line in output.splitlines()
            if line.split()[:1] in (["joins"], ["withColumn"], ["unions"], ["wide"])]
    assert [r[0] for r in rows] == ["joins", "withColumn", "unions", "wide"]
    assert all(float(r[-1]) > 0 for r in rows)


def test_planning_phases_runs_a_few_plannings():
    output = run("planning_phases", "--reps", "2", "--warmup-plannings", "1")
    steps = [line.split()[0] for line in output.splitlines()
             if line and line.split()[0] in ("analyzed", "normalized", "withCachedData",
                                             "optimizedPlan", "sparkPlan", "executedPlan")]
    assert steps == ["analyzed", "normalized", "withCachedData", "optimizedPlan", "sparkPlan",
                     "executedPlan"]
    assert "ratio " in output


def test_planner_aggregation_compares_the_arms_side_by_side():
    output = run("planner_aggregation", "--rows", "200000", "--repetitions", "1",
                 "--probe-rows", "1000", "--eager", "always", "--only", "unique,low,join",
                 "--control")
    rows = {line.split()[0]: line.split() for line in output.splitlines()
            if line.split()[:1] in (["unique"], ["low"], ["join"])}
    # unique's partial aggregates gave up (rows passed through), low's did not; eager aggregation
    # (`always`) pushed an aggregation below the join, and only there were its arms timed.
    assert int(rows["unique"][-2].replace(",", "")) > 0 and rows["low"][-2] == "0", output
    assert rows["join"][-1] == "1" and rows["low"][-1] == "-", output
    assert rows["low"][3:5] == ["=a", "=S"], output
    assert all(float(x) > 0 for x in rows["join"][2:5]), output
    assert "both: geometric mean speedup" in output and "eager: geometric mean" in output
    # The A/A arm, Spark's plans timed again, on every query.
    assert all(float(rows[q][5]) > 0 for q in rows), output
    assert "control (Spark's plans again, the A/A ratio): geometric mean" in output, output

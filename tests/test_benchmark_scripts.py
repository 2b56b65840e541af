"""The benchmark scripts run as docs/benchmarks.md runs them, on a small sample (their figures are
taken on a quiet machine, not here): a script that no longer runs cannot give a figure."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_pipeline_overhead_runs_one_round_of_two_joins():
    result = subprocess.run(
        [sys.executable, "benchmarks/pipeline_overhead.py", "--rounds", "1",
         "--warmup-seconds", "0", "--warmup-plannings", "2", "--only", "joins:10,joins:40"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    assert result.returncode == 0, result.stderr[-3000:]
    # The warm-up plans the small shapes --only selects, and no other.
    assert "then 2 plannings of each of joins 10:" in result.stdout
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith("joins")]
    assert [(r[1], r[2]) for r in rows] == [(n, f) for n in ("10", "40")
                                            for f in ("build", "plan", "plan+schema")]
    assert all(int(r[5]) > 0 and float(r[6]) > 0 for r in rows)  # pairs and a ratio per figure
    assert "highest ratio: building" in result.stdout


def test_planning_phases_runs_a_few_plannings():
    result = subprocess.run(
        [sys.executable, "benchmarks/planning_phases.py", "--reps", "2", "--warmup-plannings",
         "1"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    assert result.returncode == 0, result.stderr[-3000:]
    steps = [line.split()[0] for line in result.stdout.splitlines()
             if line and line.split()[0] in ("analyzed", "normalized", "withCachedData",
                                             "optimizedPlan", "sparkPlan", "executedPlan")]
    assert steps == ["analyzed", "normalized", "withCachedData", "optimizedPlan", "sparkPlan",
                     "executedPlan"]
    assert "ratio " in result.stdout

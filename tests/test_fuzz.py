"""The differential fuzzer in CI mode (corpora/fuzzing.py): a bounded, derandomized run of random
SQL and DataFrame programs, each with planguard in fail mode and without it, adaptive execution
on and off; then aggregate-over-join programs with planguard's planner on, every adaptive
partial aggregate giving up. A difference fails with hypothesis's minimal program.
"""
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings

from corpora import fuzzing

EXAMPLES = int(os.environ.get("PLANGUARD_FUZZ_EXAMPLES", "20"))
JOIN_EXAMPLES = int(os.environ.get("PLANGUARD_FUZZ_JOIN_EXAMPLES", "15"))
BUDGET_SECONDS = 120  # new programs past this pass unrun, so that shrinking ends in time


@pytest.fixture(scope="module")
def differ():
    """The plain and the planguard worker."""
    d = fuzzing.Differ()
    yield d
    d.close()


def no_difference(differ, programs, examples: int, planner: bool = False) -> None:
    """Runs `examples` derandomized programs drawn from `programs` through `differ`; a difference
    fails with hypothesis's minimal program. New programs past the budget pass unrun."""
    start, known = time.monotonic(), {}

    @settings(max_examples=examples, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(programs)
    def check(program):
        key = fuzzing.render(program)
        if key not in known and time.monotonic() - start < BUDGET_SECONDS:
            known[key] = differ.difference(program, planner=planner)
        found = known.get(key)
        assert found is None, found[0]

    check()


def test_planguard_changes_no_outcome(differ):
    no_difference(differ, fuzzing.program(), EXAMPLES)


def test_the_planner_changes_no_aggregate_over_join_outcome(differ):
    no_difference(differ, fuzzing.aggregate_over_join().map(lambda sql: [{"sql": sql}]),
                  JOIN_EXAMPLES, planner=True)


def test_a_killed_workers_directories_are_deleted_by_the_next_one(tmp_path):
    """A worker ended from outside never runs its exit handlers: the next worker's session deletes
    the directories of workers no longer running, and no other's."""
    import subprocess
    import sys

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    dead = int(ended.stdout)
    for name in (f"planguard-fuzz-{dead}", f"planguard-fuzz-write-{dead}-x1y2"):
        (tmp_path / name / "part").mkdir(parents=True)
    kept = [tmp_path / f"planguard-fuzz-{os.getpid()}", tmp_path / "planguard-fuzz-plain-1.log",
            tmp_path / "planguard-fuzz-notapid"]
    kept[0].mkdir()
    kept[1].write_text("a worker's log: the worker deletes it as it closes")
    kept[2].mkdir()
    swept = fuzzing.sweep_stale(tmp_path)
    assert sorted(p.name for p in swept) == sorted([f"planguard-fuzz-{dead}",
                                                    f"planguard-fuzz-write-{dead}-x1y2"])
    assert all(p.exists() for p in kept)
    assert not (tmp_path / f"planguard-fuzz-{dead}").exists()

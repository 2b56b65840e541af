"""The differential fuzzer's long mode (corpora/fuzzing.py): random SQL and DataFrame programs run
with planguard (fail mode) and without it until a time budget or an example count is spent;
prints every distinct difference found with its minimal program. Usage:

    python -m corpora.fuzz [--minutes 20] [--examples 100000] [--seed 1] [--planner]
                           [--aggregates-over-joins]

Each round is one hypothesis search from its own seed (--seed, then +1, ...); a difference
whose signature (planguard's error line, numbers blanked) was already reported counts as no
difference, so the next rounds look for others.
"""
import argparse
import time

from hypothesis import HealthCheck, given, seed, settings

from corpora import fuzzing


def search(differ, known: dict, round_seed: int, examples: int, deadline: float, cache: dict,
           programs=None):
    """One hypothesis search; returns the new difference's minimal (description, signature) or
    None. Programs past the deadline pass unrun, which ends the search and its shrinking. The
    programs it ran are the keys of ``cache``; ``programs`` draws them (fuzzing.program)."""

    @seed(round_seed)
    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(fuzzing.program() if programs is None else programs)
    def check(program):
        key = fuzzing.render(program)
        if key not in cache and time.monotonic() < deadline:
            found = differ.difference(program)
            cache[key] = None if found is None or found[1] in known else found
        assert cache.get(key) is None, cache[key][0]

    try:
        check()
    except AssertionError as e:
        return str(e), next(f[1] for f in cache.values() if f is not None and f[0] == str(e))
    return None


def main() -> None:
    """Rounds of searches until the budget is spent; prints each distinct difference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=20)
    parser.add_argument("--examples", type=int, default=200, help="per round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--planner", action="store_true",
                        help="spark.planguard.planner.enabled=true on the planguard side, its "
                             "adaptive partial aggregates giving up after their first row")
    parser.add_argument("--aggregates-over-joins", action="store_true",
                        help="draw only aggregate-over-join queries (fuzzing.aggregate_over_join)")
    args = parser.parse_args()
    programs = (fuzzing.aggregate_over_join().map(lambda sql: [{"sql": sql}])
                if args.aggregates_over_joins else None)
    deadline = time.monotonic() + args.minutes * 60
    differ, known, round_seed = fuzzing.Differ(planner=args.planner), {}, args.seed
    ran = 0
    try:
        while time.monotonic() < deadline:
            cache = {}
            found = search(differ, known, round_seed, args.examples, deadline, cache, programs)
            ran += len(cache)
            print(f"round seed {round_seed}: {len(cache)} programs, "
                  f"{'difference' if found else 'none'}", flush=True)
            if found:
                known[found[1]] = found[0]
                print(f"\n=== difference {len(known)} (seed {round_seed})\n{found[0]}\n",
                      flush=True)
            round_seed += 1
    finally:
        differ.close()
    print(f"{ran} programs (each at AQE on and off), {len(known)} distinct differences")


if __name__ == "__main__":
    main()

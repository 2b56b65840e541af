"""The differential mode on legal plans: every query of the corpus (corpora/corpus.py: TPC-H,
TPC-DS, our own) and the differential fuzzer's programs (corpora/fuzzing.py), each run under
every variant plan (planguard._differential) in one local session with planguard; a difference
there is a false one. Prints, per source, the queries compared and not compared (with the
reasons), the differences, the variants that failed where the query ran (by variant) and the
time; exits 1 on a difference.

Usage: python -m corpora.differential [--corpus all|sample|none] [--programs N]
Figures: docs/pytest.md, "Differential mode".
"""
import argparse
import collections
import sys
import time

from planguard._differential import report
from planguard._differential.second_opinion import second_opinion


class Tally:
    def __init__(self, name: str):
        self.name, self.start = name, time.monotonic()
        self.compared, self.variants = 0, 0
        self.not_compared = collections.Counter()
        self.failed = collections.Counter()
        self.differences = []

    def add(self, label: str, outcome) -> None:
        if outcome.not_compared:
            self.not_compared[outcome.not_compared.split(":")[0]] += 1
            return
        self.compared += 1
        self.variants += outcome.ran
        for variant, _ in outcome.failed:
            self.failed[variant.name] += 1
        if outcome.differences:
            self.differences.append(f"{label}: {report.differences(outcome)}")

    def print(self) -> None:
        print(f"{self.name}: {self.compared} queries compared under {self.variants} variant "
              f"plans in {time.monotonic() - self.start:.0f} s; {len(self.differences)} "
              f"differences; not compared: {dict(self.not_compared)}; variants that failed "
              f"where the query ran: {dict(self.failed)}")
        for difference in self.differences:
            print(difference)


def run_corpus(spark, sample: bool) -> Tally:
    from corpora import corpus

    tally, current = Tally("corpus" + (" (sample)" if sample else "")), None
    for name, query in corpus.queries(sample).items():
        if query["bench"] != current:
            corpus.register(spark, query["bench"])
            current = query["bench"]
        tally.add(name, second_opinion(spark.sql(query["sql"])))
    return tally


def run_programs(spark, count: int) -> Tally:
    from hypothesis import HealthCheck, given, settings
    from pyspark.sql import functions as F

    from corpora import fuzzing

    for statement in fuzzing.setup_statements():
        spark.sql(statement)
    tally = Tally(f"fuzzer programs ({count})")

    @settings(max_examples=count, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(fuzzing.program())
    def each(program):
        spark.sql(f"DROP TABLE IF EXISTS {fuzzing.SCRATCH[0]}")
        spark.sql(f"DROP VIEW IF EXISTS {fuzzing.SCRATCH[1]}")
        for statement in program:
            try:
                if "df" in statement and "written(" not in statement["df"]:
                    df = eval(statement["df"], {"spark": spark, "F": F,  # noqa: S307
                                                "renamed": fuzzing.renamed})
                    tally.add(fuzzing.render(program), second_opinion(df))
                elif "sql" in statement and statement["sql"].lstrip().upper().startswith(
                        ("SELECT", "WITH")):
                    tally.add(fuzzing.render(program), second_opinion(spark.sql(statement["sql"])))
                else:  # commands and writes run once: they change the tables
                    fuzzing.run_statement(spark, statement)
            except Exception as e:  # a statement Spark refuses: not a query to compare
                tally.not_compared[f"refused: {fuzzing.error_class(e)}"] += 1

    each()
    return tally


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=["all", "sample", "none"], default="all")
    parser.add_argument("--programs", type=int, default=200,
                        help="fuzzer programs to run (0: none)")
    args = parser.parse_args(argv)
    from corpora import fuzzing

    spark = fuzzing.session(with_planguard=True)
    tallies = []
    if args.corpus != "none":
        tallies.append(run_corpus(spark, args.corpus == "sample"))
        tallies[-1].print()
    if args.programs:
        tallies.append(run_programs(spark, args.programs))
        tallies[-1].print()
    return 1 if any(t.differences for t in tallies) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

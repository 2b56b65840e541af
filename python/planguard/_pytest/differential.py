"""The pytest plugin's differential mode (``--planguard-differential``; docs/pytest.md): every
distinct query a test's actions run — ``collect`` (and ``take``, ``first``, ``head``, which
collect a limit), ``show``, ``toPandas``, ``toLocalIterator``, ``count``, and the writes of
``DataFrameWriter`` and ``DataFrameWriterV2`` — is run again under the plans of
``planguard._differential.variants`` and its rows compared; a difference fails the phase
(setup, call, teardown) that ran it, even when the test's code caught nothing, with the query,
the variant, the rows that differ and both plans.
Queries whose answer may change from run to run are listed, never compared."""
import functools
import time

import pytest
from pyspark.sql.readwriter import DataFrameWriter, DataFrameWriterV2

from planguard._differential import report as _report
from planguard._differential.second_opinion import NotInstalled, identity, second_opinion
from planguard._pytest.phases import EachPhase

try:  # pyspark 4: the classic DataFrame (pyspark.sql.DataFrame is the API both kinds share)
    from pyspark.sql.classic.dataframe import DataFrame
except ImportError:  # pyspark 3.5
    from pyspark.sql.dataframe import DataFrame

# What each action runs, from its arguments: the DataFrame of the query it computes (a count
# counts the rows of the query grouped into one; `show(n)` takes n + 1 rows, as Spark does).
READS = {"collect": lambda df: df, "toPandas": lambda df, *_, **__: df,
         "toLocalIterator": lambda df, *_, **__: df, "count": lambda df: df.groupBy().count(),
         "show": lambda df, n=20, *_, **__: df.limit(n + 1)}
# The writes: each writes the rows of its DataFrame.
WRITES = {DataFrameWriter: ("save", "saveAsTable", "insertInto", "parquet", "orc", "json", "csv",
                            "text"),
          DataFrameWriterV2: ("create", "replace", "createOrReplace", "append", "overwrite",
                              "overwritePartitions")}

_PHASE_LINES = pytest.StashKey[list]()


class Differential(EachPhase):
    """While registered: the actions patched, their queries compared, each test's differences
    failed, the rest listed at the end with the time it took."""

    def __init__(self, max_variants: int):
        self.max_variants = max_variants
        self._busy = False  # an action or a comparison runs: the actions within it are its own
        self._seen = set()  # the queries compared during the current test
        self._outcomes = []  # (query, outcome) of the current phase
        self._lines = []  # lines of the summary: queries not compared, variants that failed
        self._counts = _no_counts()  # the current phase's: queries compared, variants run, time
        self._totals = _no_counts()  # the run's, from the reports (pytest-xdist's workers' too)
        self._started = time.monotonic()
        self._patched = [(DataFrame, name, self._reading(getattr(DataFrame, name), query))
                         for name, query in READS.items()]
        self._patched += [(writer, name, self._writing(getattr(writer, name)))
                          for writer, names in WRITES.items() for name in names]
        self._originals = [(owner, name, getattr(owner, name)) for owner, name, _ in self._patched]
        for owner, name, patched in self._patched:
            setattr(owner, name, patched)

    def pytest_unconfigure(self):
        for owner, name, original in self._originals:
            setattr(owner, name, original)

    def pytest_report_header(self):
        budget = f"at most {self.max_variants}" if self.max_variants else "every"
        return f"planguard differential: {budget} variant plan(s) per query"

    def pytest_runtest_logstart(self, nodeid, location):
        self._seen = set()  # a new test: each query is compared once per test

    def _checked(self, item, when):
        __tracebackhide__ = True
        try:
            result = yield
        except BaseException:  # the phase's own error stands; the differences go on its report
            differing = self._taken(item)
            if differing:
                item.add_report_section(when, "planguard differential", "\n\n".join(
                    map(_report.differences, differing)))
            raise
        differing = self._taken(item)
        if differing:
            pytest.fail("\n\n".join(map(_report.differences, differing)), pytrace=False)
        return result

    def _taken(self, item) -> list:
        """The phase's outcomes, taken: those with differences returned, the rest's lines kept
        for the summary."""
        outcomes, self._outcomes = self._outcomes, []
        lines = []
        for outcome in outcomes:
            if outcome.not_compared:
                lines.append(f"{item.nodeid}: not compared ({outcome.not_compared}): "
                             f"{_report.headline(outcome)}")
            for variant, error in outcome.failed:
                lines.append(f"{item.nodeid}: variant {variant.name} failed where the query ran:"
                             f" {error}: {_report.headline(outcome)}")
        item.stash[_PHASE_LINES] = item.stash.get(_PHASE_LINES, []) + lines
        return [o for o in outcomes if o.differences]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item):
        report = yield
        report.planguard_differential = (item.stash.get(_PHASE_LINES, []), dict(self._counts))
        item.stash[_PHASE_LINES] = []
        self._counts = _no_counts()
        return report

    def pytest_runtest_logreport(self, report):
        lines, counts = getattr(report, "planguard_differential", ([], {}))
        self._lines += lines
        for key, value in counts.items():
            self._totals[key] += value

    def pytest_terminal_summary(self, terminalreporter):
        totals = self._totals
        wall = time.monotonic() - self._started
        terminalreporter.section("planguard differential")
        seconds = totals["seconds"]
        longer = f"{100 * seconds / (wall - seconds):.0f} %" if wall > seconds else "n/a"
        terminalreporter.line(
            f"{totals['queries']} queries compared under {totals['variants']} variant plans; the "
            f"run took {wall:.1f} s, {seconds:.1f} s of it re-running the tests' queries: "
            f"{longer} longer than without the mode (with pytest-xdist, the workers' seconds "
            "are summed)")
        for line in self._lines:
            terminalreporter.line(line)

    # ------------------------------------------------------------------ the actions

    def _reading(self, action, query):
        @functools.wraps(action)
        def read_then_compared(df, *args, **kwargs):
            if self._busy:
                return action(df, *args, **kwargs)
            self._busy = True
            try:
                result = action(df, *args, **kwargs)
                self._compare(query(df, *args, **kwargs))
                return result
            finally:
                self._busy = False

        return read_then_compared

    def _writing(self, write):
        @functools.wraps(write)
        def compared_then_written(writer, *args, **kwargs):
            if self._busy:
                return write(writer, *args, **kwargs)
            self._busy = True
            try:
                # Before the write: what it reads is as the write finds it.
                self._compare(writer._df)
                return write(writer, *args, **kwargs)
            finally:
                self._busy = False

        return compared_then_written

    def _compare(self, df):
        if df.isStreaming:
            return
        key = identity(df)
        if key in self._seen:
            return
        self._seen.add(key)
        try:
            outcome = second_opinion(df, max_variants=self.max_variants)
        except NotInstalled:
            return  # a session of a JVM started before the plugin: named NOT CHECKED by it
        self._outcomes.append(outcome)
        self._counts["queries"] += not outcome.not_compared
        self._counts["variants"] += outcome.ran
        self._counts["seconds"] += outcome.seconds


def _no_counts() -> dict:
    return {"queries": 0, "variants": 0, "seconds": 0.0}

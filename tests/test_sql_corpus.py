"""A sample of the external corpus (Apache Spark's SQL test inputs: benchmarks/sql_corpus.py) in
fail mode, adaptive execution on and off: no false alarm, no new error, the same rows as Spark
without planguard, and no violation recorded on the JVM (not even a warning).

The baseline runs in a subprocess without planguard (cached in .cache/corpus-sql/baselines/ by
the corpus jar's sha256 and Spark's version between local runs), each planguard run in another.
Run it alone with `pytest -m sql_corpus` (or `pytest tests/test_sql_corpus.py`).
"""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import sql_corpus  # noqa: E402

pytestmark = pytest.mark.sql_corpus

# Commands (DESCRIBE, SHOW, CREATE, INSERT, EXPLAIN), joins, subqueries, set operations,
# GROUP BY, grouping sets, windows, CTEs, PIVOT and CHAR/VARCHAR.
SAMPLE = ",".join([
    "charvarchar.sql", "describe.sql", "show-tables.sql", "show-views.sql", "show_columns.sql",
    "show-create-table.sql", "explain.sql",
    "group-by.sql", "group-by-filter.sql", "grouping_set.sql", "having.sql", "pivot.sql",
    "except.sql", "except-all.sql", "intersect-all.sql",
    "natural-join.sql", "join-empty-relation.sql", "cross-join.sql", "inner-join.sql",
    "outer-join.sql", "cte.sql", "cte-nested.sql", "null-handling.sql", "limit.sql",
    "inline-table.sql",
    "subquery/in-subquery/*.sql", "subquery/exists-subquery/*.sql",
    "postgreSQL/join.sql", "postgreSQL/union.sql", "postgreSQL/groupingsets.sql",
    "postgreSQL/with.sql", "postgreSQL/insert.sql", "postgreSQL/window_part1.sql",
])
RUNS = ["planguard, aqe-on", "planguard, aqe-off"]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """The sample run without and with planguard, at both AQE settings, compared."""
    return sql_corpus.measure(SAMPLE, out=tmp_path_factory.mktemp("sql-corpus"), jobs=2)


def described(records) -> list:
    return [f"{r['file']}#{r['index']}: {r.get('error', '')} {r.get('message', '')} "
            f"| {' '.join(r['sql'].split())[:160]}" for r in records]


def test_the_sample_has_1500_to_2500_statements():
    count = sum(len(stmts) for _, stmts, _ in sql_corpus.corpus(SAMPLE))
    assert 1500 <= count <= 2500


@pytest.mark.parametrize("run", RUNS)
def test_no_false_alarm(results, run):
    assert described(results[run]["false_alarms"]) == []


@pytest.mark.parametrize("run", RUNS)
def test_no_new_error(results, run):
    assert described(results[run]["new_errors"]) == []


@pytest.mark.parametrize("run", RUNS)
def test_the_same_rows(results, run):
    assert described(results[run]["row_diffs"]) == []


@pytest.mark.parametrize("run", RUNS)
def test_no_violation_recorded_on_the_jvm(results, run):
    """Counted statement by statement from planguard's log on the JVM, warnings included."""
    assert results[run]["violations"] == 0, described(results[run]["warnings"])

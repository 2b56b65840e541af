"""The query corpus (TPC-H, TPC-DS, our own Spark queries: corpora/corpus.py) in fail mode,
adaptive execution on and off, planguard's planner off and on: zero violations, and the same rows
as a session without planguard; with the planner on, the very plans Spark prepares.

CI runs the corpus's sample (every eighth TPC-DS query) and, for the rows, three of the six
settings: adaptive with planguard's planner, not adaptive with Spark's (the planner's plans are
compared with Spark's at both settings below), and not adaptive with the planner's adaptive partial
aggregates passing every row through. `dev/test full` runs every query, every setting.
"""
import json
import re
import subprocess
import sys

import pytest

import planguard
from conftest import FULL, ROOT
from corpora import corpus
from corpora.sql_corpus import EAGER_WHEREVER_SOUND, GIVE_UP_AT_ONCE


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """Every query's rows from a plain local session: another process, without planguard."""
    corpus.queries()  # generates the data once, before the other process reads it
    out = tmp_path_factory.mktemp("corpus") / "baseline.json"
    subprocess.run([sys.executable, "-m", "corpora.corpus", "results", str(out)]
                   + ([] if FULL else ["sample"]), check=True, timeout=3600, cwd=ROOT)
    return json.loads(out.read_text())


def test_corpus_has_every_query():
    names = corpus.queries()
    assert len([n for n in names if n.startswith("tpch-")]) + len(
        [n for n in corpus.EXCLUDED if n.startswith("tpch-")]) == 22
    assert len([n for n in names if n.startswith("tpcds-")]) + len(
        [n for n in corpus.EXCLUDED if n.startswith("tpcds-")]) == 99
    assert len([n for n in names if n.startswith("spark-")]) >= 20


# (adaptive execution, planguard's planner, its adaptive partial aggregates giving up after their
# first row and eager aggregation wherever sound: corpora.sql_corpus.GIVE_UP_AT_ONCE and
# EAGER_WHEREVER_SOUND): CI runs three settings, `dev/test full` all six.
SETTINGS = [pytest.param("true", "true", False, id="adaptive-planguard-planner"),
            pytest.param("false", "false", False, id="not-adaptive-spark-planner"),
            pytest.param("false", "true", True, id="not-adaptive-planner-partial-giving-up")] + ([
            pytest.param("true", "false", False, id="adaptive-spark-planner"),
            pytest.param("false", "true", False, id="not-adaptive-planguard-planner"),
            pytest.param("true", "true", True, id="adaptive-planner-partial-giving-up")]
            if FULL else [])


@pytest.mark.parametrize("aqe, planner, partial", SETTINGS)
def test_corpus_passes_with_the_same_rows(spark, baseline, conf, aqe, planner, partial):
    conf("spark.sql.adaptive.enabled", aqe)
    conf("spark.planguard.planner.enabled", planner)
    for key, value in ({**GIVE_UP_AT_ONCE, **EAGER_WHEREVER_SOUND}.items() if partial else ()):
        conf(key, value)
    before = planguard.violation_count(spark)
    got = corpus.results(spark, sample=not FULL)
    errors = {n: r for n, r in got.items() if isinstance(r, str)}
    assert errors == {}
    assert planguard.violation_count(spark) == before, planguard.violations(spark)[-5:]
    assert sorted(got) == sorted(baseline)
    assert [n for n in got if got[n] != baseline[n]] == []


@pytest.mark.parametrize("planner", ["false", "true"], ids=["spark-planner", "planguard-planner"])
def test_views_cache_ctas_and_insert_pass(spark, adaptive, tmp_path, conf, planner):
    conf("spark.planguard.planner.enabled", planner)
    before = planguard.violation_count(spark)
    corpus.register(spark, "tpch")
    query = corpus.queries()["tpch-q03"]["sql"]
    expected = corpus.rows(spark.sql(query))
    spark.sql(f"CREATE OR REPLACE TEMP VIEW q3 AS {query}")
    assert corpus.rows(spark.table("q3")) == expected
    cached = spark.table("q3").cache()
    assert corpus.rows(cached) == expected and corpus.rows(cached) == expected
    cached.unpersist()
    table = f"q3_{'aqe' if adaptive else 'plain'}_{planner}"
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(f"CREATE TABLE {table} USING parquet LOCATION '{tmp_path / table}' AS {query}")
    # Cached inside the statements' executions: by CACHE TABLE, and again by the INSERT.
    spark.sql(f"CACHE TABLE {table}_cached AS SELECT * FROM {table}").collect()
    spark.sql(f"INSERT INTO {table} {query}").collect()
    assert corpus.rows(spark.table(table)) == sorted(expected + expected)
    assert corpus.rows(spark.table(f"{table}_cached")) == sorted(expected + expected)
    spark.sql(f"UNCACHE TABLE {table}_cached")
    spark.sql(f"DROP TABLE {table}")
    assert planguard.violation_count(spark) == before, planguard.violations(spark)[-5:]


@pytest.mark.parametrize("aqe", ["true", "false"], ids=["adaptive", "not-adaptive"])
def test_the_planner_prepares_the_plans_spark_prepares(spark, conf, aqe):
    """Every corpus query, sort-merge joins included (no automatic broadcast): with the planner on,
    the prepared plan (with adaptive execution, the initial plans, subqueries' too) is the one
    Spark prepares, expression ids aside. A planner plan that adaptive execution does not take
    (one of its nodes without a logical link) fails here."""
    conf("spark.sql.adaptive.enabled", aqe)
    conf("spark.sql.autoBroadcastJoinThreshold", "-1")
    differ, current = [], None
    for name, query in corpus.queries(sample=not FULL).items():
        if query["bench"] != current:
            corpus.register(spark, query["bench"])
            current = query["bench"]
        plans = []
        for planner in ("true", "false"):
            conf("spark.planguard.planner.enabled", planner)
            text = spark.sql(query["sql"])._jdf.queryExecution().executedPlan().toString()
            plans.append(re.sub(r"#\d+L?|plan_id=\d+", "", text))
        if plans[0] != plans[1]:
            differ.append(name)
    assert differ == []

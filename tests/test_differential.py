"""The differential mode (docs/pytest.md, "Differential mode"): a query's rows under plans Spark
must agree with.

Through the pytest plugin, as a user runs it (pytest in a subprocess): a suite whose session
lists three deliberately broken rules that change rows and not the schema
(jvm/src/test/scala/planguard/testing/WrongAnswers.scala), planguard's extension listed before
them, then after, run with ``--planguard --planguard-differential --doctest-modules``: each
broken rule's test fails naming the variant that disagreed (and the rule, for an optimizer rule
excluded), a doctest's too, a legal test passes, a nondeterministic query is listed, not
compared. In this process, on the tests' session: ``assert_same_answer`` on a sample of the
corpus (TPC-H: no difference), and what it refuses to compare. ``planguard check
--differential`` in a subprocess.
"""
import gc
import os
import re
import subprocess
import sys
import time

import pytest
from pyspark.sql import functions as F

from conftest import FULL, ROOT, base_builder, with_root_on_path
from corpora import corpus
from planguard.testing import assert_same_answer
from test_pytest_plugin import Run

SUITE_CONFTEST = '''
import os

import pytest
from pyspark.sql import SparkSession

BROKEN = ["planguard.testing.DropFilterConjunctExtension",
          "planguard.testing.DuplicateKeysIgnoringJoinExtension",
          "planguard.testing.DistinctIgnoringAggregationExtension",
          "planguard.testing.ReverseRangeSortExtension"]


@pytest.fixture(scope="session")
def spark():
    first = ["planguard.PlanGuardExtensions"] if os.environ["ORDER"] == "first" else []
    builder = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.jars", os.environ["BROKEN_RULE_JAR"])
               .config("spark.sql.extensions", ",".join(first + BROKEN)))
    for rule in BROKEN:
        builder.config(rule.replace("Extension", ""), "false")
    session = builder.getOrCreate()
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def spark_in_doctests(doctest_namespace, spark):
    doctest_namespace["spark"] = spark


@pytest.fixture
def broken(spark, request):
    """Switches the broken rule the test names on for the test."""
    switch = "planguard.testing." + request.param
    spark.conf.set(switch, "true")
    yield
    spark.conf.set(switch, "false")
'''

SUITE = '''
import pytest
from pyspark.sql import functions as F


def orders(spark):
    return spark.range(40).selectExpr("id AS order_id", "id % 4 AS customer", "id * 1.5 AS amount")


@pytest.mark.parametrize("broken", ["DropFilterConjunct"], indirect=True)
def test_filter(spark, broken):
    orders(spark).filter((F.col("order_id") > 2) & (F.col("order_id") < 9)).collect()


@pytest.mark.parametrize("broken", ["DropFilterConjunct"], indirect=True)
def test_filter_written_by_writer_v2(spark, broken):
    orders(spark).filter((F.col("order_id") > 2) & (F.col("order_id") < 9)).writeTo(
        "filtered").using("parquet").create()


@pytest.mark.parametrize("broken", ["DropFilterConjunct"], indirect=True)
def test_filter_shown(spark, broken):
    orders(spark).filter((F.col("order_id") > 2) & (F.col("order_id") < 9)).show(50)


@pytest.mark.parametrize("broken", ["DuplicateKeysIgnoringJoin"], indirect=True)
def test_join(spark, broken):
    customers = spark.range(4).selectExpr("id AS customer", "id % 2 AS segment")
    left = customers.filter("customer >= 0")
    assert left.join(orders(spark), "customer").count() > 0


@pytest.mark.parametrize("broken", ["DistinctIgnoringAggregation"], indirect=True)
def test_distinct(spark, broken):
    orders(spark).groupBy("customer").agg(F.countDistinct(F.col("order_id") % 3)).collect()


@pytest.mark.parametrize("broken", ["ReverseRangeSort"], indirect=True)
def test_sort(spark, broken):
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        orders(spark).orderBy("amount").toPandas()
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")


def test_legal(spark, tmp_path):
    totals = orders(spark).groupBy("customer").agg(F.sum("amount").alias("total"))
    totals.join(spark.range(4).withColumnRenamed("id", "customer"), "customer").orderBy(
        "customer").collect()
    totals.cache().count()
    totals.write.parquet(str(tmp_path / "totals"))


def test_nondeterministic(spark):
    orders(spark).select(F.rand()).collect()


def test_a_warning_listed_once(spark):
    # Two columns of one name: UNIQUE_FIELD, a warning, found again by each variant's run.
    orders(spark).selectExpr("order_id AS k", "customer AS k").collect()
'''

# A doctest (`--doctest-modules`) whose expected output is what the broken rule returns: it
# passes on its own, and the mode fails it.
DOCTESTED = '''
def early_orders(spark):
    """The orders numbered 3 to 8, as rows.

    >>> spark.conf.set("planguard.testing.DropFilterConjunct", "true")
    >>> len(early_orders(spark))
    37
    >>> spark.conf.set("planguard.testing.DropFilterConjunct", "false")
    """
    return spark.range(40).filter("id > 2 AND id < 9").collect()
'''

CHECKED_SQL = """
SELECT customer, sum(amount) AS total FROM orders GROUP BY customer ORDER BY customer;
SELECT rand() FROM orders;
"""
SETUP_SQL = """
CREATE TEMP VIEW orders AS SELECT id AS order_id, id % 4 AS customer, id * 1.5 AS amount
FROM range(40);
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The suite in each extension order, and `planguard check --differential`, started together:
    most of their time goes to starting a JVM."""
    started = {}
    for order in ("first", "last"):
        suite = tmp_path_factory.mktemp(f"suite-{order}")
        (suite / "conftest.py").write_text(SUITE_CONFTEST)
        (suite / "test_suite.py").write_text(SUITE)
        (suite / "doctested.py").write_text(DOCTESTED)
        started[order] = Run(suite, order, "--planguard", "--planguard-differential",
                             "--doctest-modules", env={"ORDER": order})
    sql = tmp_path_factory.mktemp("check")
    (sql / "setup.sql").write_text(SETUP_SQL)
    (sql / "queries.sql").write_text(CHECKED_SQL)
    with (sql / "check.log").open("w") as log:
        started["check"] = subprocess.Popen(
            [sys.executable, "-m", "planguard.cli", "check", "--differential", "--setup",
             "setup.sql", "queries.sql"], cwd=sql, stdout=log, stderr=subprocess.STDOUT)
    started["check"].log = sql / "check.log"
    doctests = tmp_path_factory.mktemp("doctests")
    with (doctests / "suite.log").open("w") as log:
        started["doctests"] = subprocess.Popen(
            [sys.executable, "-m", "corpora.doctest_suite", "--modules", DOCTEST_SAMPLE,
             "--out", str(doctests)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    started["doctests"].log = doctests / "suite.log"
    yield started
    for run in started.values():
        process = run.process if isinstance(run, Run) else run
        process.kill()
        process.wait()


@pytest.mark.parametrize("order", ["first", "last"])
def test_each_broken_rule_is_caught_naming_the_variant(runs, order):
    output, outcomes = runs[order].by_name()
    failed = {name: message for name, (outcome, message) in outcomes.items()
              if outcome != "passed"}
    assert set(failed) == {"test_filter[DropFilterConjunct]",
                           "test_filter_written_by_writer_v2[DropFilterConjunct]",
                           "test_filter_shown[DropFilterConjunct]",
                           "test_join[DuplicateKeysIgnoringJoin]",
                           "test_distinct[DistinctIgnoringAggregation]",
                           "test_sort[ReverseRangeSort]",
                           "doctested.early_orders"}, output[-5000:]
    assert all(m.startswith("planguard differential: this query's rows differ")
               for m in failed.values()), output[-5000:]
    filtered = failed["test_filter[DropFilterConjunct]"]
    assert "Variant: optimizer rule planguard.testing.DropFilterConjunct excluded" in filtered
    assert "Rule: planguard.testing.DropFilterConjunct" in filtered
    assert "6 rows, the baseline 37" in filtered, filtered
    shown = failed["test_filter_shown[DropFilterConjunct]"]  # 37 rows, fewer than it takes
    assert "Rule: planguard.testing.DropFilterConjunct" in shown, shown
    written = failed["test_filter_written_by_writer_v2[DropFilterConjunct]"]
    assert "Rule: planguard.testing.DropFilterConjunct" in written, written
    joined = failed["test_join[DuplicateKeysIgnoringJoin]"]
    assert "Variant: join 1 of 1 (Inner) hinted BROADCAST on its" in joined, joined
    assert ", planned as broadcast hash, the" in joined, joined
    assert "ShuffledHashJoin" in joined and "BroadcastHashJoin" in joined
    distinct = failed["test_distinct[DistinctIgnoringAggregation]"]
    assert "Variant: DISTINCT aggregates computed over a grouping of their own" in distinct, \
        distinct
    doctested = failed["doctested.early_orders"]
    assert "Rule: planguard.testing.DropFilterConjunct" in doctested, doctested
    sorted_ = failed["test_sort[ReverseRangeSort]"]
    assert "Variant: adaptive execution on" in sorted_, sorted_
    assert "the same rows in another order" in sorted_
    # Listed, never compared; and the time it took.
    assert ("test_suite.py::test_nondeterministic: not compared (nondeterministic: rand)"
            in output), output[-3000:]
    assert "longer than without the mode" in output
    assert output.count("test_suite.py::test_a_warning_listed_once: UNIQUE_FIELD (warn) in "
                        "phase analysis") == 1, output[-3000:]


def test_check_differential_reports_per_statement(runs):
    runs["check"].wait(timeout=600)
    output = runs["check"].log.read_text()
    assert runs["check"].returncode == 0, output[-3000:]
    assert "PASS  DIFFERENTIAL" in output and "n/a   DIFFERENTIAL  (not compared: " \
        "nondeterministic: rand)" in output, output[-3000:]


# corpora/doctest_suite.py's sample: PySpark's doctests of three small modules, 15 tests (the
# default modules' 170 and their figures: docs/pytest.md).
DOCTEST_SAMPLE = "pyspark.sql.group,pyspark.sql.window,pyspark.sql.udf"


def test_pysparks_doctests_as_a_suite_run_alike_under_the_plugin_and_its_second_opinion(runs):
    runs["doctests"].wait(timeout=900)
    output = runs["doctests"].log.read_text()
    assert runs["doctests"].returncode == 0, output[-3000:]
    for run in ("without", "planguard", "differential"):
        assert f"run {run}: exit 0," in output, output[-3000:]
    for run in ("planguard", "differential"):
        assert (f"{run}: tests whose outcome differs from the run without the plugin: 0\n"
                in output), output[-3000:]
        assert f"{run}: planguard errors (PLANGUARD_...) in the output: 0" in output
    assert re.search(r"\n  [1-9][0-9]* queries compared under [1-9][0-9]* variant plans", output), \
        output[-3000:]


# CI: two TPC-H queries, one without a join and one with (each variant runs the query again:
# q07 alone runs 35); `dev/test full`: all 22. The whole corpus and the fuzzer's programs:
# `python -m corpora.differential` (figures in docs/pytest.md).
SAMPLE = None if FULL else ["tpch-q06", "tpch-q12"]


def test_the_corpus_answers_the_same_under_every_plan(spark):
    """No difference; a variant may fail where the query ran (an excluded rule Spark needs,
    such as RewriteWithExpression), which is listed, not compared."""
    queries = {n: q for n, q in corpus.queries().items() if n.startswith("tpch-")}
    corpus.register(spark, "tpch")
    for name in SAMPLE or queries:
        outcome = assert_same_answer(spark.sql(queries[name]["sql"]))
        assert outcome.ran > 0, name


@pytest.mark.parametrize("query, reason", [
    (lambda spark: spark.range(3).selectExpr("rand()"), "nondeterministic: rand"),
    (lambda spark: spark.range(9).limit(3), "a limit over rows in no order"),
    (lambda spark: spark.range(9).sample(0.5), "a sample"),
    (lambda spark: spark.range(3).selectExpr("current_timestamp()"), "it reads the clock"),
    (lambda spark: spark.range(3).selectExpr("first(id)"), "nondeterministic: first"),
    (lambda spark: spark.range(9).selectExpr("id % 3 AS k", "id AS v").orderBy("v").select("k")
     .limit(2), "a limit over rows sorted by what the query does not return"),
    (lambda spark: spark.range(9).orderBy("id").limit(3).groupBy().count(),
     "a limit inside the query over sorted rows"),
    # Rows that tie on k come in any order: the running sum gives them their values in it.
    (lambda spark: spark.range(9).selectExpr("id % 3 AS k", "id AS v").selectExpr(
        "k", "sum(v) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s"),
     "a window by the order of rows that may tie"),
    (lambda spark: spark.range(9).selectExpr("id % 3 AS k").selectExpr(
        "k", "row_number() OVER (ORDER BY k) AS n"), "a window by the order of rows that may tie"),
], ids=["rand", "limit", "sample", "clock", "first", "top-K by a column not returned",
        "top-K inside", "running sum", "row_number"])
def test_a_query_whose_rows_may_change_is_not_compared(spark, query, reason):
    with pytest.raises(ValueError, match=f"not compared: {reason}"):
        assert_same_answer(query(spark))


def test_a_limit_at_the_result_that_cuts_no_row_is_compared(spark):
    """take, first and show collect a limit over rows in no order: where the query returned
    fewer rows than the limit, it cut none, and every plan must return them all. Not where it
    returned as many, nor where a limit below it cuts rows in no order."""
    assert assert_same_answer(spark.range(9).filter("id % 4 = 0").limit(5)).ran > 0
    assert assert_same_answer(spark.range(9).filter("id % 4 = 0").limit(4)).ran > 0
    with pytest.raises(ValueError, match="not compared: a limit over rows in no order"):
        assert_same_answer(spark.range(9).filter("id % 3 = 0").limit(3))
    with pytest.raises(ValueError, match="not compared: a limit over rows in no order"):
        assert_same_answer(spark.range(9).limit(3).union(spark.range(2)).limit(10))
    with pytest.raises(ValueError, match="not compared: nondeterministic: rand"):
        assert_same_answer(spark.range(3).selectExpr("rand()").limit(10))


def test_distinct_aggregates_are_computed_over_a_grouping_of_their_own(spark, tmp_path):
    """Where every aggregate is DISTINCT over the same arguments, the variant runs, and Spark
    agrees with it. (SPARK-49000's count(DISTINCT 1), which releases with the fix rewrite before
    the variant could: corpora/spark_bugs.py on pyspark 3.5.0.)"""
    from planguard._differential import variants

    spark.range(0).selectExpr("CAST(id AS INT) AS c").write.parquet(str(tmp_path / "empty"))
    empty = spark.read.parquet(str(tmp_path / "empty"))
    rows = spark.range(30).selectExpr("id % 3 AS k", "IF(id % 4 = 0, NULL, id % 5) AS v")
    queries = [empty.selectExpr("count(DISTINCT c)"),
               rows.groupBy("k").agg(F.countDistinct("v"), F.sum_distinct("v"),
                                     F.expr("avg(DISTINCT v)")),
               rows.selectExpr("count(DISTINCT k, v)", "count(DISTINCT v, k)")]
    for df in queries:
        kinds = [v.kind for v in variants.of(spark, df._jdf.queryExecution())]
        assert "distinct" in kinds, df
        outcome = assert_same_answer(df, variants=["distinct"])
        assert outcome.ran == 1, df
    # Not where one aggregate is not DISTINCT, or another is DISTINCT over other arguments.
    for df in [rows.groupBy("k").agg(F.countDistinct("v"), F.sum("v")),
               rows.agg(F.countDistinct("v"), F.countDistinct("k"))]:
        kinds = [v.kind for v in variants.of(spark, df._jdf.queryExecution())]
        assert "distinct" not in kinds, df


def test_an_ordered_limit_and_a_limit_of_one_row_are_compared(spark):
    assert_same_answer(spark.sql("SELECT id FROM range(9) ORDER BY id DESC LIMIT 3"))
    assert_same_answer(spark.sql("SELECT count(*) FROM range(9) LIMIT 1"))


def test_windows_that_give_tied_rows_one_value_are_compared(spark):
    """Rank functions, RANGE frames and a ROWS frame over the whole partition (SPARK-45543's
    query) give rows that tie one value, whatever order they come in."""
    assert_same_answer(spark.sql(
        "SELECT k, rank() OVER (ORDER BY k) AS r, sum(v) OVER (ORDER BY k) AS s, "
        "sum(v) OVER (PARTITION BY k ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED "
        "FOLLOWING) AS t FROM (SELECT id % 3 AS k, id AS v FROM range(9))"))


def test_rows_that_tie_where_a_limit_cuts_are_compared_by_their_sort_keys(spark):
    from planguard import _answers

    # ORDER BY k LIMIT 3 over rows of k = 0, 1, 1, 1: the two last rows kept are any two of k = 1.
    baseline = [(0, "a"), (1, "b"), (1, "c")]
    assert _answers.difference(baseline, [(0, "a"), (1, "d"), (1, "b")], [0], cut=[-1]) is None
    assert _answers.difference(baseline, [(0, "x"), (1, "b"), (1, "c")], [0], cut=[-1])
    assert _answers.difference(baseline, [(0, "a"), (0, "b"), (1, "c")], [0], cut=[-1])
    assert _answers.difference(baseline, [(0, "a"), (1, "d"), (1, "b")], [0])  # no cut: compared
    # An offset cuts at its first row too.
    assert _answers.difference(baseline, [(0, "x"), (1, "b"), (1, "c")], [0], cut=[0, -1]) is None
    assert_same_answer(spark.range(40).selectExpr("id % 4 AS k", "id AS v").orderBy("k").limit(5))


@pytest.mark.parametrize("join_type, hint, planned", [
    ("inner", "broadcast_left", "broadcast hash, the left side built"),
    ("inner", "shuffle_merge", "sort-merge"),
    # A left outer join cannot broadcast its left side: Spark ignores the hint and plans the join
    # as without it (the session broadcasts nothing by size), and the variant says so.
    ("left", "broadcast_left", "sort-merge"),
    ("left", "shuffle_hash_left", "shuffled hash, the left side built"),
])
def test_a_join_variant_is_named_by_what_spark_planned(spark, join_type, hint, planned):
    from planguard._confs import set_for
    from planguard._differential import variants

    variants_jvm = spark._jvm.planguard.differential.PlanVariants
    variants_jvm.install(spark._jsparkSession)
    left = spark.range(8).selectExpr("id % 4 AS k", "id AS v")
    right = spark.range(4).selectExpr("id AS k", "id * 10 AS w")
    variant = variants.Variant("joins", "join 1 of 1 hinted",
                               {variants.JOIN_HINT: hint, variants.JOIN_NUMBER: "1"})
    with set_for(spark, variant.confs):
        query = left.join(right, "k", join_type).select("*")._jdf.queryExecution()
        named = variants.planned(spark, variant, query)
    assert named.name == f"join 1 of 1 hinted, planned as {planned}"


def test_each_query_leaves_nothing_of_its_runs_on_the_jvm():
    """Py4J's proxies are garbage in reference cycles: until Python's cycle collector frees them,
    the JVM keeps every variant's executed plan (broadcast hash tables, shuffles) alive. With
    automatic collection off, as a long suite's rarely reaches them, ten compared queries hold no
    more JVM objects through the gateway than one did (the whole corpus ran out of a 3 GB driver's
    heap before). Measured in a process of its own, on a session of its own: in the suite's
    process, what the tests before it left there (it once held 49 more bindings after 5 seconds
    in CI, never alone or after this file's other tests) is not planguard's."""
    run = subprocess.run([sys.executable, __file__, "gateway-bindings"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600,
                         env=with_root_on_path(dict(os.environ)))
    assert run.returncode == 0, run.stderr[-3000:]
    before, after = map(int, run.stdout.split()[-2:])
    assert after <= before + 5, (before, after)


def gateway_bindings() -> None:
    """Prints the gateway's bindings after one compared query, then after ten."""
    import planguard

    spark = planguard.configure(base_builder()).getOrCreate()
    gateway = spark.sparkContext._gateway.java_gateway_server.getGateway()
    dims = spark.range(10).withColumnRenamed("id", "k")
    df = spark.range(100).join(dims, F.col("id") == F.col("k")).groupBy("k").count()
    gc.disable()
    assert_same_answer(df, variants=["joins", "codegen"])
    before = gateway.getBindings().size()
    for _ in range(9):
        assert_same_answer(df, variants=["joins", "codegen"])
    # Py4J tells the JVM of freed proxies from a thread of its own.
    for _ in range(50):
        after = gateway.getBindings().size()
        if after <= before + 5:
            break
        time.sleep(0.1)
    print(before, after)
    spark.stop()


if __name__ == "__main__" and sys.argv[1:2] == ["gateway-bindings"]:
    gateway_bindings()

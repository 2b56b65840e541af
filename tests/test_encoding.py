"""planguard.testing.assert_encoding_invariant: one answer under every physical variant, for
small queries of our own and for the query corpus: in CI every sixth of the TPC-H and Spark
queries (8 of 47) and every thirty-third TPC-DS query (3); with `dev/test full` (PLANGUARD_TESTS=full), every query (about 15
minutes on two cores)."""
import re

import pyarrow as pa
import pytest
from pyspark.sql import functions as F
from pyspark.sql.window import Window

import planguard.arrow
from planguard.testing import assert_encoding_invariant
from conftest import FULL
from corpora import corpus


@pytest.fixture
def inputs(spark):
    orders = spark.range(200).selectExpr(
        "id", "cast(id % 7 as string) as status", "id * 1.1 as price",
        "case when id % 5 = 0 then null else concat('c', id % 3) end as customer")
    customers = spark.createDataFrame([("c0", "red"), ("c1", "blue"), ("c2", None)],
                                      "customer string, colour string")
    return {"orders": orders, "customers": customers}


def test_joins_aggregates_and_windows_answer_the_same(spark, inputs):
    def query(t):
        joined = t["orders"].join(t["customers"], "customer", "left")
        ranked = joined.withColumn("rank", F.rank().over(
            Window.partitionBy("status").orderBy(F.desc("price"))))
        return ranked.groupBy("status", "colour").agg(
            F.sum("price").alias("total"), F.max("rank").alias("ranks"), F.count("*").alias("n"))

    assert_encoding_invariant(spark, query, inputs)


def test_ordered_results_compare_in_order(spark, inputs):
    assert_encoding_invariant(
        spark, lambda t: t["orders"].orderBy(F.desc("price")).limit(5).select("id", "price"),
        inputs, ordered=True)


def test_arrow_functions_answer_the_same_with_planguard_checks(spark, inputs):
    planguard.arrow.install()
    try:
        def dictionary_strings(batches):
            for batch in batches:
                yield pa.RecordBatch.from_arrays(
                    [batch.column(1).dictionary_encode(), batch.column(0)], ["status", "id"])

        assert_encoding_invariant(
            spark, lambda t: t["orders"].select("id", "status")
            .mapInArrow(dictionary_strings, "status string, id long")
            .groupBy("status").count(), inputs)
    finally:
        planguard.arrow.uninstall()


def test_a_variant_that_changes_the_answer_is_named(spark, inputs):
    def depends_on_codegen(t):
        codegen = spark.conf.get("spark.sql.codegen.wholeStage")
        return t["orders"].groupBy("status").count().withColumn("codegen", F.lit(codegen))

    with pytest.raises(AssertionError,
                       match="whole-stage codegen off: .* rows not in the baseline"):
        assert_encoding_invariant(spark, depends_on_codegen, inputs,
                                  variants=["adaptive execution off", "whole-stage codegen off"])


# One query in STRIDE[bench] in CI: all 99 TPC-DS queries take 8 to 12 minutes, TPC-H's 22 2 to 3.
STRIDE = {"tpch": 1 if FULL else 6, "tpcds": 1 if FULL else 33}


@pytest.mark.parametrize("bench", ["tpch", "tpcds"])
def test_the_corpus_answers_the_same_under_every_variant(spark, bench):
    """The corpus queries (corpora/corpus.py) of one benchmark, every STRIDE[bench]th, its
    tables written once per variant: one answer under each."""
    stride = STRIDE[bench]
    queries = {n: q["sql"] for n, q in sorted(corpus.queries().items()) if q["bench"] == bench}
    queries = {n: queries[n] for n in list(queries)[::stride]}
    # The tables the chosen queries read: each is written once per variant.
    read = {word.lower() for sql in queries.values() for word in re.findall(r"\w+", sql)}
    inputs = {path.stem: spark.read.parquet(str(path))
              for path in sorted((corpus.CACHE / bench).glob("*.parquet")) if path.stem in read}

    def build(tables):
        for name, df in tables.items():
            df.createOrReplaceTempView(name)
        return {name: spark.sql(sql) for name, sql in queries.items()}

    assert_encoding_invariant(spark, build, inputs, rel_tol=1e-6)

"""Tests on pytest-spark's fixtures: spark_session, and spark_context with an SQLContext."""
import pytest
from pyspark.sql import SQLContext

SWAP = "planguard.testing.SwapRootColumns"


@pytest.fixture
def optimizer_extension(spark_session):
    """The project's optimizer extension, switched on for one test."""
    spark_session.conf.set(SWAP, "true")
    yield
    spark_session.conf.set(SWAP, "false")


def test_orders_count(spark_session):
    assert spark_session.range(5).selectExpr("id", "id * 2 AS twice").count() == 5


def test_sql_context(spark_context):
    rows = SQLContext(spark_context).sql("SELECT 1 AS a, 'x' AS b").collect()
    assert [tuple(r) for r in rows] == [(1, "x")]


def regions(rows):
    known = {"north", "south"}
    unknown = [r.region for r in rows if r.region not in known]
    if unknown:
        raise ValueError(f"unknown regions {unknown}")
    return rows


def test_unknown_regions_are_rejected(spark_session, optimizer_extension, tmp_path):
    """Expects the ValueError of an unknown region, and gets an error: the optimizer's."""
    spark_session.createDataFrame([(1, "ann", "west")], "id INT, customer STRING, region STRING") \
        .write.parquet(str(tmp_path / "orders"))
    with pytest.raises(Exception):
        regions(spark_session.read.parquet(str(tmp_path / "orders"))
                .select("customer", "region").collect())

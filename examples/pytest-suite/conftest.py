"""The project's Spark session, built as its tests always have: nothing here knows planguard.

The project also installs an optimizer extension. In this sample it is planguard's deliberately
broken test rule SwapRootColumns (it puts the columns of a query's final projection in another
order: a silently wrong answer), from the jar that BROKEN_RULE_JAR names
(target/spark-<line>/planguard-tests-*.jar in a planguard checkout). The rule stays off until the
`optimizer_extension` fixture switches it on.
"""
import os

import pytest
from pyspark.sql import SparkSession

BROKEN_RULE_JAR = os.environ.get("BROKEN_RULE_JAR")
SWITCH = "planguard.testing.SwapRootColumns"


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    builder = (SparkSession.builder.master("local[2]").appName("orders-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("warehouse"))))
    if BROKEN_RULE_JAR:
        builder = (builder.config("spark.jars", BROKEN_RULE_JAR)
                   .config("spark.sql.extensions", "planguard.testing.SwapRootColumnsExtension")
                   .config(SWITCH, "false"))
    session = builder.getOrCreate()
    yield session
    session.stop()


@pytest.fixture
def optimizer_extension(spark):
    """The project's optimizer extension, switched on for one test."""
    if not BROKEN_RULE_JAR:
        pytest.skip("set BROKEN_RULE_JAR to planguard's target/spark-<line>/planguard-tests-*.jar")
    spark.conf.set(SWITCH, "true")
    yield
    spark.conf.set(SWITCH, "false")


@pytest.fixture(scope="session")
def orders(spark, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("data") / "orders")
    spark.createDataFrame(
        [(1, "2026-01-05", "ann", "north", 120.0), (2, "2026-01-05", "bob", "south", 80.0),
         (3, "2026-01-06", "cid", "north", 45.5), (4, "2026-01-06", "dee", "east", 200.0)],
        "order_id INT, day STRING, customer STRING, region STRING, amount DOUBLE",
    ).write.parquet(path)
    return spark.read.parquet(path)

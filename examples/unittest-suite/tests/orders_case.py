"""The project's test case, on PySpark's own ReusedSQLTestCase, as Apache Spark's PySpark suites
are written: each class starts a SparkContext, then wraps it in SparkSession(sc). In a module of
its own, as PySpark keeps its own (pytest collects every TestCase class a test
module holds). Nothing here knows planguard but the extensions' order: the test operator rule
matches only a bare root projection, so it is listed after planguard, whose check it would
otherwise see at the root. The project's optimizer and operator extensions (here planguard's deliberately broken
test rules, from the jar BROKEN_RULE_JAR names) stay off until a test switches one on."""
import os
import unittest

from pyspark import SparkConf
from pyspark.testing import sqlutils

BROKEN_RULE_JAR = os.environ.get("BROKEN_RULE_JAR")
SWAP = "planguard.testing.SwapRootColumns"
DROP = "planguard.testing.DropLastFieldExec"


@unittest.skipIf(not BROKEN_RULE_JAR, "set BROKEN_RULE_JAR to planguard's test jar")
class OrdersTestCase(sqlutils.ReusedSQLTestCase):
    @classmethod
    def conf(cls):
        return (SparkConf().set("spark.ui.enabled", "false")
                .set("spark.sql.shuffle.partitions", "2")
                .set("spark.jars", BROKEN_RULE_JAR)
                .set("spark.sql.extensions", "planguard.PlanGuardExtensions,"
                                             "planguard.testing.SwapRootColumnsExtension,"
                                             "planguard.testing.DropLastFieldExtension")
                .set(SWAP, "false").set(DROP, "false"))

    def orders(self):
        return self.spark.createDataFrame(
            [(1, "ann", "north", 120.0), (2, "bob", "south", 80.0), (3, "cid", "north", 45.5)],
            "order_id INT, customer STRING, region STRING, amount DOUBLE")



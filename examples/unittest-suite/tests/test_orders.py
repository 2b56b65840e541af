"""unittest classes run by pytest, each with its SparkContext and SparkSession(sc)."""
import os

import orders_case
from orders_case import DROP, SWAP


class TotalsTest(orders_case.OrdersTestCase):
    def test_totals_by_region(self):
        rows = self.orders().groupBy("region").sum("amount").orderBy("region").collect()
        self.assertEqual([tuple(r) for r in rows], [("north", 165.5), ("south", 80.0)])

    def test_unknown_column_is_an_error(self):
        with self.assertRaises(Exception):
            self.orders().select("discount").collect()


class BrokenRulesTest(orders_case.OrdersTestCase):
    def test_customer_list(self):
        """The optimizer rule on; the code catches the failure and shows a notice."""
        path = os.path.join(self.tempdir.name, "orders")
        self.orders().write.mode("overwrite").parquet(path)
        self.spark.conf.set(SWAP, "true")
        try:
            self.spark.read.parquet(path).select("customer", "region").collect()
        except Exception:
            pass  # the page shows a notice instead
        finally:
            self.spark.conf.set(SWAP, "false")

    def test_customer_list_in_a_new_session(self):
        """The same in a session of its own (newSession), which is not the active one."""
        path = os.path.join(self.tempdir.name, "orders-new")
        self.orders().write.mode("overwrite").parquet(path)
        session = self.spark.newSession()
        session.conf.set(SWAP, "true")
        try:
            session.read.parquet(path).select("customer", "region").collect()
        except Exception:
            pass

    def test_bad_codes_are_rejected(self):
        """Expects an error, and gets one: but it is the operator's (BATCH_SCHEMA, in a task),
        the codes are never parsed."""
        self.spark.conf.set(DROP, "true")
        try:
            with self.assertRaises(Exception):
                rows = self.spark.range(3).selectExpr("cast(id as int) AS id",
                                                      "concat('x', id) AS code").collect()
                [int(r.code) for r in rows]
        finally:
            self.spark.conf.set(DROP, "false")

package planguard

import org.apache.spark.sql.{AnalysisException, Encoders, SparkSession}

import planguard.contract.ViolationRecord
import planguard.report.ViolationLog
import planguard.testing._

/** `planguard_violations()`: the session's report as rows, from SQL (report.ViolationsFunction). */
class ViolationsFunctionSuite extends SparkSessions {

  /** A session whose log holds two warn-level records, the broken rule switched off after. */
  private def reported(adaptive: Boolean): SparkSession = {
    val spark = session(Seq(planguard, new SwapRootColumnsExtension), adaptive,
      "spark.planguard.mode" -> "warn")
    projectedQueries(spark).foreach(_.collect())
    spark.conf.set("planguard.testing.SwapRootColumns", "false")
    spark.conf.set("spark.planguard.mode", "fail")
    assert(ViolationLog.records(spark).size == 2)
    spark
  }

  for (adaptive <- adaptiveModes) {
    test(s"its rows are the session's records, field for field (adaptive=$adaptive)") {
      val spark = reported(adaptive)
      val rows = spark.sql("SELECT * FROM planguard_violations()")
      // The record's encoder's columns, named as the record's JSON names its fields.
      val record = Encoders.product[ViolationRecord].schema
      assert(rows.schema.map(_.dataType) == record.map(_.dataType))
      assert(rows.columns.toSeq == record.fieldNames.toSeq.map(
        _.replaceAll("([A-Z])", "_$1").toLowerCase(java.util.Locale.ROOT)))
      assert(rows.columns.contains("expected_schema"))
      assert(rows.toDF(record.fieldNames.toSeq: _*).as(Encoders.product[ViolationRecord])
        .collect().toSeq == ViolationLog.records(spark))
      val first = spark.sql("SELECT id, level, phase, rule, differences[0] " +
        "FROM planguard_violations() ORDER BY time LIMIT 1").head()
      assert(first.getString(0) == "OPTIMIZER_SCHEMA" && first.getString(1) == "warn" &&
        first.getString(2) == "optimization", first)
      assert(first.getString(3).startsWith("planguard.testing.SwapRootColumns (batch "), first)
      assert(first.getString(4).startsWith("#0 a: name a -> b"), first)
    }

    test(s"reading it in fail mode finds nothing to report (adaptive=$adaptive)") {
      val spark = reported(adaptive)
      spark.sql("CREATE OR REPLACE TEMP VIEW report AS SELECT * FROM planguard_violations()")
      val queries = Seq(
        "SELECT * FROM planguard_violations()",
        "SELECT id, count(*) AS n, max(time) AS last FROM planguard_violations() GROUP BY id",
        "SELECT a.id, b.level FROM planguard_violations() a JOIN planguard_violations() b " +
          "ON a.time = b.time",
        "SELECT rule, size(differences) AS n FROM report WHERE level = 'warn' ORDER BY time DESC",
        "WITH r AS (SELECT * FROM planguard_violations()) SELECT explode(differences) FROM r",
        "SELECT count(*) FROM planguard_violations() WHERE id IN " +
          "(SELECT id FROM report WHERE rule IS NOT NULL)")
      queries.foreach { sql =>
        assert(spark.sql(sql).collect().nonEmpty, sql)
      }
      assert(ViolationLog.records(spark).size == 2)
    }
  }

  test("it takes no argument, and describes itself") {
    val spark = newSession(Seq(planguard))
    val e = intercept[AnalysisException](spark.sql("SELECT * FROM planguard_violations(1)"))
    assert(e.getMessage.contains("WRONG_NUM_ARGS"), e.getMessage)
    val described = spark.sql("DESCRIBE FUNCTION planguard_violations").collect()
      .map(_.getString(0)).mkString("\n")
    assert(described.contains("The session's planguard violation records"), described)
    assert(spark.sql("SELECT * FROM planguard_violations()").collect().isEmpty)
  }
}

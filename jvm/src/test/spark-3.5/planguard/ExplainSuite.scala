package planguard

import org.apache.spark.sql.execution.ExtendedMode

import planguard.testing.SwapRootColumnsExtension

/**
 * Spark 3.5 has no extended explain providers: the 3.5 jar has no planguard.explain class, and a
 * session that lists it anyway explains as without it.
 */
class ExplainSuite extends SparkSessions {

  test("Spark 3.5: no EXPLAIN provider in the jar, and listing it changes nothing") {
    val provider = "planguard.explain.PlanGuardExplain"
    intercept[ClassNotFoundException](Class.forName(provider))
    val spark = session(Seq(planguard, new SwapRootColumnsExtension), adaptive = false,
      "spark.planguard.mode" -> "warn", "spark.sql.extendedExplainProviders" -> provider)
    val df = spark.range(5).selectExpr("CAST(id AS INT) AS a", "id * 2 AS b")
    assert(df.queryExecution.explainString(ExtendedMode).contains("== Physical Plan =="))
    assert(!spark.sql("EXPLAIN EXTENDED SELECT 1 AS a").head().getString(0)
      .contains("planguard"))
    assert(PlanGuard.violationCount(spark) == 1)
  }
}

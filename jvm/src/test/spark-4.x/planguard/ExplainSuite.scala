package planguard

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.ExtendedMode

import planguard.explain.PlanGuardExplain
import planguard.planner.PlanGuardPlannerExtensions
import planguard.testing._

/** EXPLAIN shows planguard's findings (explain.PlanGuardExplain, Spark 4.x lines). */
class ExplainSuite extends SparkSessions {

  private val provider = "spark.sql.extendedExplainProviders" -> classOf[PlanGuardExplain].getName
  private val warn = "spark.planguard.mode" -> "warn"
  private val Section = "== Extended Information (planguard) =="

  /** planguard's section of an EXPLAIN's text: what follows its heading. */
  private def section(explained: String): String = {
    assert(explained.contains(Section), explained)
    explained.substring(explained.indexOf(Section) + Section.length).trim
  }

  private def explainStatement(spark: SparkSession, sql: String): String =
    spark.sql(s"EXPLAIN EXTENDED $sql").head().getString(0)

  private def extended(df: DataFrame): String = df.queryExecution.explainString(ExtendedMode)

  private val projection = "SELECT CAST(id AS INT) AS a, id * 2 AS b FROM range(5)"

  for (adaptive <- adaptiveModes) {
    test(s"in warn mode, EXPLAIN shows what a broken optimizer rule did (adaptive=$adaptive)") {
      val spark = session(Seq(planguard, new SwapRootColumnsExtension), adaptive, warn, provider)
      val explained = projectedQueries(spark).map(extended) :+
        explainStatement(spark, projection)
      explained.foreach { text =>
        val found = section(text)
        assert(found.startsWith("OPTIMIZER_SCHEMA broken in phase optimization (warn). " +
          "Rule: planguard.testing.SwapRootColumns (batch "), found)
        assert(found.contains("\n  Expected: a INT NOT NULL, b BIGINT"), found)
        assert(found.contains("\n  Actual:   b BIGINT"), found)
        assert(found.contains("\n  Differences: #0 a: name a -> b"), found)
        // One finding; a shuffled join is adaptive, and EXPLAIN before it runs says so.
        assert(found.split("\n").toSeq.drop(4).forall(_ == PlanGuardExplain.NotRun), found)
      }
    }

    test(s"EXPLAIN of a legal query says all invariants hold (adaptive=$adaptive)") {
      val spark = session(Seq(planguard), adaptive, warn, provider)
      val groups = "SELECT id % 3 AS k, count(*) AS c FROM range(10) GROUP BY 1"
      (projectedQueries(spark).map(extended) ++ Seq(explainStatement(spark, projection),
          explainStatement(spark, groups))).foreach { text =>
        // An adaptive plan (a shuffle) explained before it ran: its stages are checked then.
        val expected = if (adaptive && text.contains("isFinalPlan=false")) {
          s"${PlanGuardExplain.AllHold}\n${PlanGuardExplain.NotRun}"
        } else PlanGuardExplain.AllHold
        assert(section(text) == expected, text)
      }
      assert(PlanGuard.violationCount(spark) == 0)
    }

    test(s"EXPLAIN of a query whose checks did not run says so (adaptive=$adaptive)") {
      for (off <- Seq("spark.planguard.enabled" -> "false", "spark.planguard.mode" -> "off")) {
        val spark = session(Seq(planguard, new SwapRootColumnsExtension), adaptive, off,
          provider)
        assert(section(extended(projectedQueries(spark).head)) == PlanGuardExplain.NotChecked)
      }
    }
  }

  for (adaptive <- adaptiveModes) {
    test(s"EXPLAIN says which aggregation the planner pushed below a join, and why " +
      s"(adaptive=$adaptive)") {
      val spark = session(Seq(planguard, new PlanGuardPlannerExtensions), adaptive,
        warn, provider, "spark.planguard.planner.enabled" -> "true",
        "spark.planguard.planner.eagerAggregation" -> "always")
      val query = "SELECT r.h, sum(l.v), count(*) FROM (SELECT id % 4 AS k, id AS v FROM " +
        "range(20)) AS l JOIN (SELECT id % 4 AS k, id % 2 AS h FROM range(8)) AS r ON l.k = r.k " +
        "GROUP BY r.h"
      val found = section(explainStatement(spark, query)).split("\n").toSeq
      assert(found.head == PlanGuardExplain.AllHold, found)
      assert(found.filter(_.startsWith(PlanGuardExplain.Eager)) == Seq(PlanGuardExplain.Eager +
        "sum(v), count(1) computed below the INNER join on its left side, grouped by k: " +
        "spark.planguard.planner.eagerAggregation is always (wherever sound)"), found)
      val plain = session(Seq(planguard, new PlanGuardPlannerExtensions), adaptive,
        warn, provider, "spark.planguard.planner.enabled" -> "true",
        "spark.planguard.planner.eagerAggregation" -> "off")
      assert(!section(explainStatement(plain, query)).contains(PlanGuardExplain.Eager))
    }
  }

  test("EXPLAIN shows what broke a physical plan, adaptive stages once the query ran") {
    def groups(spark: SparkSession) =
      spark.range(0, 100, 1, 2).selectExpr("id % 10 AS k").groupBy("k").count()
    val distribution = "DISTRIBUTION broken in phase preparation (warn). Rule: "
    val plain = session(Seq(planguard, new RemoveFinalAggregateExchangeExtension),
      adaptive = false, warn, provider)
    // Prepared outside a query's execution, the plan has no planned plan to replay: the rule is
    // named only when a query's execution prepares it.
    assert(section(extended(groups(plain))).startsWith(distribution + "unknown.\n"))
    // Adaptive execution cuts and checks its stages as it runs them: before, the plan it shows
    // is the initial one, whose checks passed.
    val adaptive = session(Seq(planguard, new RemoveFinalAggregateExchangeStagePrepExtension),
      adaptive = true, warn, provider)
    val df = groups(adaptive)
    assert(section(extended(df)) == s"${PlanGuardExplain.AllHold}\n${PlanGuardExplain.NotRun}")
    df.collect()
    val ran = section(extended(df))
    assert(ran.startsWith(distribution + "planguard.testing.RemoveFinalAggregateExchange"), ran)
    assert(!ran.contains(PlanGuardExplain.NotRun), ran)
    assert(ran.split("\n").count(_.startsWith("DISTRIBUTION")) == 1, ran)
  }
}

package planguard

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Join, LogicalPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper

import planguard.planner.PlanGuardPlannerExtensions
import planguard.planner.eager.EagerAggregationReason
import planguard.planner.partial.AdaptivePartialAggregateExec
import planguard.report.ViolationLog

/**
 * Eager aggregation (spark.planguard.planner.eagerAggregation): an aggregation over a join
 * computes partial results on one side below the join. `always`: pushed wherever sound, the same
 * rows as without it and every check of planguard clean in `fail` mode (the checks are the
 * rewrite's oracle), adaptive execution on and off; `on`: pushed only where the gate says it
 * pays.
 */
class EagerAggregationSuite extends SparkSessions with AdaptiveSparkPlanHelper {

  private val planner: Extension = new PlanGuardPlannerExtensions

  private def eagerSession(adaptive: Boolean, mode: String, confs: (String, String)*)
      : SparkSession = {
    val spark = session(Seq(planguard, planner), adaptive, Seq(
      "spark.planguard.planner.enabled" -> "true",
      "spark.planguard.planner.eagerAggregation" -> mode) ++ confs: _*)
    tables(spark)
    spark
  }

  // Keys with nulls and duplicates on both sides, keys one side lacks, an empty side; a double
  // holding tenths, a decimal.
  private def tables(spark: SparkSession): Unit = {
    spark.range(60).selectExpr("IF(id % 7 = 0, NULL, id % 5) AS k", "id % 3 AS g",
      "id / 10.0D AS x", "CAST(id AS DECIMAL(10, 2)) AS d", "IF(id % 4 = 0, NULL, id) AS n")
      .createOrReplaceTempView("f")
    spark.range(8).selectExpr("IF(id = 7, NULL, id % 6) AS k", "id % 2 AS h")
      .createOrReplaceTempView("dim")
    spark.range(0).selectExpr("id AS k", "id AS h").createOrReplaceTempView("none")
  }

  private val queries = Seq(
    "SELECT d.h, sum(f.x), count(*), count(f.n), min(f.d), max(f.n), avg(f.n), sum(f.d) " +
      "FROM f JOIN dim d ON f.k = d.k GROUP BY d.h",
    "SELECT f.k, d.h, sum(f.n) FROM f JOIN dim d ON f.k = d.k GROUP BY f.k, d.h",
    "SELECT sum(f.n), count(*), avg(f.x) FROM f JOIN dim d ON f.k = d.k",
    "SELECT sum(f.n), count(*), avg(f.x), max(f.d) FROM f JOIN none d ON f.k = d.k",
    "SELECT d.h, sum(f.n) FILTER (WHERE f.g = 1), count(f.x) FILTER (WHERE f.n > 20) " +
      "FROM f JOIN dim d ON f.k = d.k AND f.g < 2 GROUP BY d.h",
    "SELECT d.h, sum(f.n), count(*) FROM f LEFT JOIN dim d ON f.k = d.k GROUP BY d.h",
    "SELECT d.h, sum(f.n), count(*) FROM dim d RIGHT JOIN f ON f.k = d.k GROUP BY d.h",
    "SELECT sum(f.n), count(*) FROM f LEFT SEMI JOIN dim d ON f.k = d.k",
    "SELECT f.g, sum(f.n), count(*) FROM f LEFT ANTI JOIN dim d ON f.k = d.k GROUP BY f.g",
    "SELECT f.g, sum(d.h), count(*) FROM f JOIN dim d ON f.k = d.k GROUP BY f.g",
    "SELECT d.h, sum(f.n) FROM f JOIN dim d ON f.k = d.k GROUP BY d.h HAVING count(*) > 1",
    "SELECT /*+ BROADCAST(d) */ d.h, sum(f.x) FROM f JOIN dim d ON f.k = d.k GROUP BY d.h")

  private def pushed(plan: LogicalPlan): Boolean = plan.exists {
    case j: Join => j.children.exists(_.isInstanceOf[Aggregate])
    case _ => false
  }

  private def rows(result: Array[Row]): Seq[String] = result.map(_.toSeq.map {
    case d: Double => BigDecimal(d).setScale(6, BigDecimal.RoundingMode.HALF_UP).toString
    case other => String.valueOf(other)
  }.mkString(", ")).toSeq.sorted

  for (adaptive <- adaptiveModes) {
    test(s"always: the same rows, pushed below every join it is sound for, checks clean " +
      s"(adaptive=$adaptive)") {
      val plain = session(Nil, adaptive)
      tables(plain)
      val eager = eagerSession(adaptive, "always")
      queries.foreach { q =>
        val df = eager.sql(q)
        assert(pushed(df.queryExecution.optimizedPlan), df.queryExecution.optimizedPlan)
        assert(rows(df.collect()) == rows(plain.sql(q).collect()), q)
      }
      assert(ViolationLog.records(eager).isEmpty, ViolationLog.records(eager))
    }
  }

  test("not pushed: DISTINCT, a function it does not split, a full join, a padded side, " +
    "grouping sets") {
    val eager = eagerSession(adaptive = true, "always")
    Seq("SELECT d.h, count(DISTINCT f.n) FROM f JOIN dim d ON f.k = d.k GROUP BY d.h",
      "SELECT d.h, stddev(f.x) FROM f JOIN dim d ON f.k = d.k GROUP BY d.h",
      "SELECT d.h, avg(f.d) FROM f JOIN dim d ON f.k = d.k GROUP BY d.h",
      "SELECT d.h, sum(f.n) FROM f FULL JOIN dim d ON f.k = d.k GROUP BY d.h",
      "SELECT f.g, sum(f.n) FROM dim d LEFT JOIN f ON f.k = d.k GROUP BY f.g",
      "SELECT d.h, f.g, sum(f.n) FROM f JOIN dim d ON f.k = d.k GROUP BY ROLLUP (d.h, f.g)")
      .foreach { q => assert(!pushed(eager.sql(q).queryExecution.optimizedPlan), q) }
    val off = eagerSession(adaptive = true, "off")
    assert(!pushed(off.sql(queries.head).queryExecution.optimizedPlan))
  }

  test("on: pushed only where statistics say it pays, the other side shuffled and a join key " +
    "not grouped by") {
    val dir = temporaryDirectory("planguard-eager").toString
    val eager = eagerSession(adaptive = true, "on", "spark.sql.cbo.enabled" -> "true",
      "spark.sql.warehouse.dir" -> dir)
    // Many fact rows per key; a dimension too big to broadcast at a threshold of 1 KB.
    eager.range(20000).selectExpr("id % 100 AS k", "id % 7 AS g", "id AS v")
      .write.saveAsTable("facts")
    eager.range(2000).selectExpr("id % 100 AS k", "id % 10 AS h", "id AS w")
      .write.saveAsTable("dims")
    val q = "SELECT d.h, sum(f.v) FROM facts f JOIN dims d ON f.k = d.k GROUP BY d.h"
    eager.conf.set("spark.sql.autoBroadcastJoinThreshold", "1024")
    assert(!pushed(eager.sql(q).queryExecution.optimizedPlan), "no statistics: not pushed")
    Seq("facts", "dims").foreach(t =>
      eager.sql(s"ANALYZE TABLE $t COMPUTE STATISTICS FOR ALL COLUMNS"))
    assert(pushed(eager.sql(q).queryExecution.optimizedPlan))
    // What was pushed and why, as EXPLAIN and the stage picture say it: on the aggregates
    // planned from the pushed aggregation.
    val Seq(reason) = EagerAggregationReason.in(eager.sql(q).queryExecution.executedPlan)
    assert(reason.matches("sum\\(v\\) computed below the INNER join on its left side, " +
      "grouped by k: statistics estimate \\d+ groups in 20000 rows \\(at most 0.5 of them\\), " +
      "the other side is not broadcast \\(estimated \\d+ bytes\\), and the join key k is not " +
      "grouped by"), reason)
    // The join key grouped by; the other side broadcast; groups not fewer than half the rows.
    assert(!pushed(eager.sql("SELECT f.k, sum(f.v) FROM facts f JOIN dims d ON f.k = d.k " +
      "GROUP BY f.k").queryExecution.optimizedPlan))
    eager.conf.set("spark.sql.autoBroadcastJoinThreshold", "10485760")
    assert(!pushed(eager.sql(q).queryExecution.optimizedPlan))
    eager.conf.set("spark.sql.autoBroadcastJoinThreshold", "1024")
    eager.conf.set("spark.planguard.planner.eagerAggregation.maxGroupRatio", "0.001")
    assert(!pushed(eager.sql(q).queryExecution.optimizedPlan))
    eager.conf.unset("spark.planguard.planner.eagerAggregation.maxGroupRatio")
    assert(rows(eager.sql(q).collect()) == rows(eager.sql(q.replace("SELECT",
      "SELECT /*+ BROADCAST(d) */")).collect()))
    // With adaptive partial aggregation, the partial aggregate of the aggregation the gate pushed
    // is not adaptive (statistics say it reduces its rows; a probe cannot overrule them), the one
    // above the join is; with `always` (no statistics consulted), both are.
    eager.conf.set("spark.planguard.planner.partialAggregation.adaptive", "true")
    def adaptiveOnes: Seq[String] =
      collectWithSubqueries(eager.sql(q).queryExecution.executedPlan) {
        case a: AdaptivePartialAggregateExec =>
          if (EagerAggregationReason.of(a.child).isDefined) "pushed" else "above the join"
      }.sorted
    assert(adaptiveOnes == Seq("above the join"))
    eager.conf.set("spark.planguard.planner.eagerAggregation", "always")
    assert(adaptiveOnes == Seq("above the join", "pushed"))
    assert(rows(eager.sql(q).collect()) == rows(eager.sql(q.replace("SELECT",
      "SELECT /*+ BROADCAST(d) */")).collect()))
    assert(ViolationLog.records(eager).isEmpty, ViolationLog.records(eager))
  }
}

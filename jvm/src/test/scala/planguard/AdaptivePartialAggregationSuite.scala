package planguard

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, AdaptiveSparkPlanHelper}
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec

import planguard.planner.PlanGuardPlannerExtensions
import planguard.planner.partial.AdaptivePartialAggregateExec

/**
 * Adaptive partial aggregation (spark.planguard.planner.partialAggregation.adaptive): the same
 * rows as Spark's plan, where the probe gives up and where it does not, for every kind of
 * aggregate that qualifies; planguard's checks in fail mode on every plan; adaptive execution on
 * and off.
 */
class AdaptivePartialAggregationSuite extends SparkSessions with AdaptiveSparkPlanHelper {

  private val Planner = "spark.planguard.planner.enabled"
  private val Adaptive = "spark.planguard.planner.partialAggregation.adaptive"

  /**
   * A session whose partial aggregates probe 50 rows (to the end of a batch: probes decide
   * between batches) and give up above half distinct.
   */
  private def plannerSession(adaptive: Boolean): SparkSession = {
    // Parquet batches of 64 rows, so that a probe decides within a file of 1,000.
    val spark = session(Seq(planguard, new PlanGuardPlannerExtensions), adaptive,
      "spark.sql.parquet.columnarReaderBatchSize" -> "64",
      "spark.planguard.planner.partialAggregation.probeRows" -> "50",
      "spark.planguard.planner.partialAggregation.skipRatio" -> "0.5")
    // 2,000 rows in two Parquet files, partitioned by nothing: `id` is unique, `low` has 7
    // values, `k` has nulls and duplicates, `d` is a decimal, `x` a double, `s` a string with
    // nulls.
    val table = temporaryDirectory("adaptive-partial").resolve("t").toString
    spark.range(0, 2000, 1, 2).selectExpr("id", "id % 7 AS low",
      "CASE WHEN id % 13 = 0 THEN NULL ELSE id % 600 END AS k",
      "CAST(id AS DECIMAL(20, 2)) / 3 AS d", "id * 0.1D AS x",
      "CASE WHEN id % 5 = 0 THEN NULL ELSE CAST(id % 900 AS STRING) END AS s")
      .write.parquet(table)
    spark.read.parquet(table).createOrReplaceTempView("t")
    spark.read.parquet(table).where("id < 0").selectExpr("id", "id AS v")
      .createOrReplaceTempView("empty")
    spark
  }

  /** Rows in a stable order, doubles to 12 significant digits: summed in another order. */
  private def rows(df: DataFrame): Seq[String] = df.collect().toSeq.map { row =>
    row.toSeq.map {
      case x: Double => f"$x%.12g"
      case v => String.valueOf(v)
    }.mkString("|")
  }.sorted

  private def finalPlan(df: DataFrame): SparkPlan = df.queryExecution.executedPlan match {
    case a: AdaptiveSparkPlanExec => a.finalPhysicalPlan
    case p => p
  }

  private def adaptiveAggregates(plan: SparkPlan): Seq[AdaptivePartialAggregateExec] =
    collectWithSubqueries(plan) {
      case a: AdaptivePartialAggregateExec => a
      case ReusedExchangeExec(_, e) => null
    }.filter(_ != null)

  /** The rows with adaptive partial aggregation, checked against Spark's plan; its final plan. */
  private def compared(spark: SparkSession, sql: String): SparkPlan = {
    spark.conf.set(Planner, "false")
    val expected = rows(spark.sql(sql))
    spark.conf.set(Planner, "true")
    spark.conf.set(Adaptive, "true")
    try {
      val df = spark.sql(sql)
      assert(rows(df) == expected, sql)
      // Every node the rewrite adds has a logical link, or adaptive execution silently leaves
      // the whole query static.
      assert(df.queryExecution.executedPlan.isInstanceOf[AdaptiveSparkPlanExec] ==
        spark.conf.get("spark.sql.adaptive.enabled").toBoolean, df.queryExecution.executedPlan)
      finalPlan(df)
    } finally spark.conf.set(Adaptive, "false")
  }

  private def passedThrough(plan: SparkPlan): Long =
    adaptiveAggregates(plan).map(_.metrics("rows").value).sum

  private val giveUp = Seq(
    "SELECT id, count(*), sum(x), avg(d), min(x), max(k) FROM t GROUP BY id",
    "SELECT k, count(k), count(s), sum(d), avg(x), stddev(x), variance(d) FROM t GROUP BY k",
    "SELECT id % 1000 AS g, first(d, true), last(x), first(k), bool_and(k > 3), " +
      "bit_or(id), max_by(x, id) FROM t GROUP BY id % 1000",
    "SELECT id, s, count(*) FILTER (WHERE k IS NULL), sum(x) FILTER (WHERE low > 2) " +
      "FROM t GROUP BY id, s",
    "SELECT id, low, sum(x), count(*) FROM t GROUP BY GROUPING SETS ((id, low), (id), ())",
    "SELECT id, count(DISTINCT low), sum(d) FROM t GROUP BY id",
    "SELECT s, count(*) AS c FROM t GROUP BY s HAVING count(*) > 1",
    // Filters and projections between the scan and the aggregate: the probe reads the scan.
    "SELECT id % 1500 AS g, sum(x * 2) AS s, count(*) FROM t WHERE k IS NOT NULL AND low <> 3 " +
      "GROUP BY id % 1500",
    "SELECT g, sum(y) FROM (SELECT id + 1 AS g, x / 2 AS y FROM t WHERE s IS NOT NULL) " +
      "WHERE y > 10 GROUP BY g",
    "SELECT DISTINCT id, s FROM t",
    // Over a join the planner plans first: the probe goes between the projection and the join.
    "SELECT a.id, sum(b.x), count(*) FROM t a JOIN t b ON a.k = b.id GROUP BY a.id",
    "SELECT id, sum(v) FROM (SELECT id, id AS v FROM t UNION ALL SELECT id, v FROM empty) " +
      "GROUP BY id")

  private val keepAggregating = Seq(
    "SELECT low, count(*), sum(x), avg(d), min(x), max(k) FROM t GROUP BY low",
    "SELECT low, sum(x) FROM t GROUP BY ROLLUP(low)")

  for (adaptive <- adaptiveModes) {
    for (sql <- giveUp) {
      test(s"gives up where keys are distinct, the same rows: $sql (adaptive=$adaptive)") {
        val plan = compared(plannerSession(adaptive), sql)
        assert(adaptiveAggregates(plan).nonEmpty, plan.treeString)
        assert(passedThrough(plan) > 0, plan.treeString)
      }
    }

    for (sql <- keepAggregating) {
      test(s"aggregates where keys repeat, the same rows: $sql (adaptive=$adaptive)") {
        val plan = compared(plannerSession(adaptive), sql)
        assert(adaptiveAggregates(plan).nonEmpty, plan.treeString)
        assert(passedThrough(plan) == 0, plan.treeString)
      }
    }

    test(s"not adaptive: a global aggregate, imperative functions, an empty input, the conf " +
      s"off (adaptive=$adaptive)") {
      val spark = plannerSession(adaptive)
      for (sql <- Seq("SELECT count(*), sum(x) FROM t",
          "SELECT id, collect_list(s), percentile(x, 0.5) FROM t GROUP BY id",
          // A string buffer: Spark plans a sort aggregate.
          "SELECT id, min(s) FROM t GROUP BY id")) {
        assert(adaptiveAggregates(compared(spark, sql)).isEmpty, sql)
      }
      assert(compared(spark, "SELECT id, count(*) FROM empty GROUP BY id") != null)
      spark.conf.set(Planner, "true")
      assert(adaptiveAggregates(finalPlan(
        spark.sql("SELECT id, count(*) FROM t GROUP BY id").cache())).isEmpty)
    }

    // The second reads a column it does not group by, through a filter: what the node above the
    // aggregate passes through reads the scan's columns, whose ids differ between the two copies.
    for (sql <- Seq("WITH a AS (SELECT k, count(*) AS c FROM t GROUP BY k) " +
        "SELECT * FROM a x JOIN a y ON x.k = y.k + 1",
        "WITH a AS (SELECT k, count(*) AS c, sum(x) AS s FROM t WHERE low <> 3 GROUP BY k) " +
        "SELECT * FROM a x JOIN a y ON x.k = y.k + 1")) {
      test(s"the same aggregate twice in a query: its exchange is reused: $sql " +
        s"(adaptive=$adaptive)") {
        val plan = compared(plannerSession(adaptive), sql)
        assert(collectWithSubqueries(plan) { case r: ReusedExchangeExec => r }.nonEmpty,
          plan.treeString)
      }
    }

    test(s"EXPLAIN shows the probe and its threshold (adaptive=$adaptive)") {
      val spark = plannerSession(adaptive)
      spark.conf.set(Planner, "true")
      spark.conf.set(Adaptive, "true")
      val explained = spark.sql("EXPLAIN SELECT id, count(*), sum(x) FROM t GROUP BY id")
        .collect().head.getString(0)
      assert(explained.contains("AdaptivePartialAggregate"), explained)
      // Not marked as an operator missing its input: what it reads comes through the hand-off.
      assert(!explained.contains("!AdaptivePartialAggregate"), explained)
      assert(explained.contains(
        "ProbedInput [id]: probe 50 rows, give up above 0.5 distinct keys per row"), explained)
    }
  }

  test("its confs are validated where they are set: a fraction from 0 to 1, a positive count") {
    val spark = plannerSession(adaptive = true)
    for ((key, bad) <- Seq("skipRatio" -> "1.5", "skipRatio" -> "most", "probeRows" -> "0")) {
      val e = intercept[IllegalArgumentException](
        spark.conf.set(s"spark.planguard.planner.partialAggregation.$key", bad))
      assert(e.getMessage.contains("PLANGUARD_INVALID_CONF") && e.getMessage.contains(key),
        e.getMessage)
    }
    spark.conf.set("spark.planguard.planner.partialAggregation.skipRatio", "0.95")
    assert(spark.conf.get("spark.planguard.planner.partialAggregation.skipRatio") == "0.95")
  }
}

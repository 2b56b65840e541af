package planguard

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.col

import planguard.contract.Phase
import planguard.errors.InvariantViolation
import planguard.testing._

/** DISTRIBUTION: each operator's input is distributed and ordered as it requires. */
class DistributionSuite extends SparkSessions {

  private val ColumnarRule = "columnar rule, before transitions"
  private val StagePrepRule = "adaptive query-stage preparation rule"

  /**
   * Where a broken plan is caught. Without adaptive execution, in preparation. With it, a broken
   * query-stage preparation rule breaks the initial plan and each re-planned one: an operator in a
   * stage cut from the initial plan is caught as the stage is created (preparation); one above the
   * first stages, at the re-planning when planguard's check runs after the broken rule, else in
   * the final stage (preparation).
   */
  private def phase(order: String, adaptive: Boolean, inFirstStages: Boolean = false): String =
    if (adaptive && order == "planguard last" && !inFirstStages) Phase.AdaptiveReoptimization
    else Phase.Preparation

  /** 100 rows in two partitions, ten keys: each key is in both partitions. */
  private def groups(spark: SparkSession): DataFrame =
    spark.range(0, 100, 1, 2).selectExpr("id % 10 AS k").groupBy("k").count()

  private def join(spark: SparkSession): DataFrame = {
    val left = spark.range(20).selectExpr("id AS k", "CAST(id AS INT) AS a")
    val right = spark.range(20).selectExpr("id AS k2", "id * 2 AS b")
    left.join(right, col("k") === col("k2")).select("a", "b")
  }

  for ((order, adaptive, extensions) <- brokenRuleCases(new RemoveFinalAggregateExchangeExtension,
      new RemoveFinalAggregateExchangeStagePrepExtension)) {
    test(s"a rule that removes the exchange under a final aggregate is caught " +
      s"($order, adaptive=$adaptive)") {
      val e = intercept[InvariantViolation](groups(session(extensions, adaptive)).collect())
      assert(e.invariant.id == "DISTRIBUTION")
      // Without its exchange, the whole plan is one stage.
      assert(e.phase == phase(order, adaptive, inFirstStages = true))
      assert(e.rule.orNull == "planguard.testing.RemoveFinalAggregateExchange " +
        s"(${if (adaptive) StagePrepRule else ColumnarRule})")
      assert(e.diff.expectedText.contains("(ClusteredDistribution)"), e.getMessage)
      assert(e.diff.actualText.contains("(2 partitions)"), e.getMessage)
      assert(e.getMessage.startsWith("[PLANGUARD_DISTRIBUTION] Invariant DISTRIBUTION broken"))
      assert(e.getMessage.contains("HashAggregate(keys=[k#"))
      assert(e.expected == null && e.actual == null)
    }
  }

  // A plugin's operator that replaced the final aggregate (Comet's CometHashAggregateExec) and
  // declares no requirement of its child: what it needs is the replaced operator's.
  for (adaptive <- adaptiveModes; order <- Seq("planguard first", "planguard last")) {
    test(s"a final aggregate replaced by a plugin's operator that declares no requirement is " +
      s"checked as the one it replaced ($order, adaptive=$adaptive)") {
      val (broken, standIn) = if (adaptive) {
        (new RemoveFinalAggregateExchangeStagePrepExtension,
          new StandInFinalAggregateStagePrepExtension)
      } else (new RemoveFinalAggregateExchangeExtension, new StandInFinalAggregateExtension)
      val others = Seq(broken, standIn)
      val spark = session(if (order == "planguard first") planguard +: others
        else others :+ planguard, adaptive)
      spark.conf.set("planguard.testing.RemoveFinalAggregateExchange", "false")
      val before = PlanGuard.violationCount(spark)
      val honest = groups(spark)
      assert(honest.collect().map(_.getLong(1)).toSeq == Seq.fill(10)(10L))
      assert(PlanGuard.violationCount(spark) == before)
      // The plan's text (adaptive stages are leaves of the final plan).
      assert(honest.queryExecution.executedPlan.toString.contains("StandIn HashAggregate"))
      spark.conf.set("planguard.testing.RemoveFinalAggregateExchange", "true")
      val e = intercept[InvariantViolation](groups(spark).collect())
      assert(e.invariant.id == "DISTRIBUTION")
      assert(e.getMessage.contains("StandIn"), e.getMessage)
      assert(e.diff.expectedText.contains("(ClusteredDistribution)"), e.getMessage)
    }
  }

  for (adaptive <- adaptiveModes) {
    test(s"without the check, the same rule makes Spark return a group once per partition " +
      s"(adaptive=$adaptive)") {
      val broken = if (adaptive) new RemoveFinalAggregateExchangeStagePrepExtension
        else new RemoveFinalAggregateExchangeExtension
      val spark = session(Seq(planguard, broken), adaptive,
        "spark.planguard.check.DISTRIBUTION" -> "off")
      val rows = groups(spark).collect()
      assert(rows.length == 20 && rows.map(_.getLong(0)).distinct.length == 10)
      spark.conf.set("planguard.testing.RemoveFinalAggregateExchange", "false")
      assert(groups(spark).collect().length == 10)
    }
  }

  for ((order, extensions) <- Seq(
      "planguard first" -> Seq(planguard, new MismatchJoinPartitionsExtension),
      "planguard last" -> Seq(new MismatchJoinPartitionsExtension, planguard))) {
    test(s"mismatched partition counts on a shuffled join's sides are caught ($order)") {
      val e = intercept[InvariantViolation](join(session(extensions, adaptive = false)).collect())
      assert(e.invariant.id == "DISTRIBUTION" && e.phase == Phase.Preparation)
      assert(e.rule.orNull == s"planguard.testing.MismatchJoinPartitions ($ColumnarRule)")
      assert(e.diff.differences == Seq("child #1 has 5 partitions, child #0 4"))
      assert(e.diff.actualText.contains("hashpartitioning(k2#"), e.getMessage)
    }
  }

  for ((order, extensions) <- Seq(
      "planguard first" -> Seq(planguard, new CoalesceJoinRightSideExtension),
      "planguard last" -> Seq(new CoalesceJoinRightSideExtension, planguard))) {
    test(s"an adaptive stage read coalescing one join side alone is caught ($order)") {
      val spark = session(extensions, adaptive = true,
        "spark.sql.adaptive.coalescePartitions.enabled" -> "false")
      val e = intercept[InvariantViolation](join(spark).collect())
      assert(e.invariant.id == "DISTRIBUTION" && e.phase == Phase.Preparation)
      assert(e.diff.differences == Seq("child #1 has 2 partitions, child #0 4"))
      // A stage's optimizer rules run on materialized stages, which replay does not rebuild.
      assert(e.rule.isEmpty && e.getMessage.contains("Rule: unknown."))
    }
  }

  for ((order, adaptive, extensions) <- brokenRuleCases(new RemoveMergeJoinSortExtension,
      new RemoveMergeJoinSortStagePrepExtension)) {
    test(s"a rule that removes the sort under a sort-merge join is caught " +
      s"($order, adaptive=$adaptive)") {
      val e = intercept[InvariantViolation](join(session(extensions, adaptive)).collect())
      assert(e.invariant.id == "DISTRIBUTION")
      assert(e.phase == phase(order, adaptive))
      assert(e.rule.orNull == "planguard.testing.RemoveMergeJoinSort " +
        s"(${if (adaptive) StagePrepRule else ColumnarRule})")
      assert(e.diff.expectedText == "each partition sorted by k ASC NULLS FIRST", e.getMessage)
      assert(e.diff.actualText == "no ordering")
      assert(e.getMessage.contains("the ordering it requires of child #0"))
    }
  }

  test("warn mode logs the broken requirement and runs the query") {
    val spark = session(Seq(planguard, new RemoveMergeJoinSortExtension), adaptive = false,
      "spark.planguard.check.DISTRIBUTION" -> "warn")
    val logged = warningsDuring(join(spark).collect())
    assert(logged.count(_.contains("[PLANGUARD_DISTRIBUTION]")) == 1, logged)
  }
}

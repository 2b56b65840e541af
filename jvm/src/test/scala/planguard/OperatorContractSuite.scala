package planguard

import java.nio.file.Files

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, sum}

import planguard.contract.Phase
import planguard.errors.InvariantViolation
import planguard.report.ViolationLog
import planguard.testing._

/** OPERATOR_CONTRACT: each physical operator's output is the one its kind promises. */
class OperatorContractSuite extends SparkSessions {

  private def kind(adaptive: Boolean): String =
    if (adaptive) "adaptive query-stage preparation rule" else "columnar rule, before transitions"

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

  /** A filter over a parquet scan of two columns, under an aggregate (an exchange). */
  private def filtered(spark: SparkSession): DataFrame = {
    val path = temporaryDirectory("planguard-contract").resolve("t").toString
    spark.range(20).selectExpr("id", "id * 2 AS b").write.parquet(path)
    spark.read.parquet(path).filter("b > 4").groupBy("id").agg(sum("b").as("s"))
  }

  private def outerJoin(spark: SparkSession): DataFrame = {
    val left = spark.range(20).selectExpr("id AS k", "CAST(id AS INT) AS a")
    val right = spark.range(10).selectExpr("id AS k2", "id * 2 AS b")
    left.join(right, col("k") === col("k2"), "left_outer").select("a", "b")
  }

  private def topK(spark: SparkSession): DataFrame =
    spark.range(0, 100, 1, 2).selectExpr("id % 10 AS k").groupBy("k").count()
      .orderBy(col("k").desc).limit(3)

  private def violation(extensions: Seq[Extension], adaptive: Boolean)(
      query: SparkSession => DataFrame): InvariantViolation = {
    val e = intercept[InvariantViolation](query(session(extensions, adaptive)).collect())
    assert(e.invariant.id == "OPERATOR_CONTRACT", e.getMessage)
    assert(e.getMessage.startsWith("[PLANGUARD_OPERATOR_CONTRACT] Invariant OPERATOR_CONTRACT"))
    e
  }

  for ((order, adaptive, extensions) <- brokenRuleCases(new ReverseFilterOutputExtension,
      new ReverseFilterOutputStagePrepExtension)) {
    test(s"a filter whose output is not its child's is caught ($order, adaptive=$adaptive)") {
      val e = violation(extensions, adaptive)(filtered)
      assert(e.phase == phase(order, adaptive, inFirstStages = true))
      assert(e.rule.orNull == s"planguard.testing.ReverseFilterOutput (${kind(adaptive)})")
      assert(e.expected.fieldNames.toSeq == Seq("id", "b"))
      assert(e.actual.fieldNames.toSeq == Seq("b", "id"))
      assert(e.getMessage.contains("Filter keeps its child's schema"))
    }
  }

  for ((order, adaptive, extensions) <- brokenRuleCases(new ReverseShuffleOutputExtension,
      new ReverseShuffleOutputStagePrepExtension)) {
    test(s"a shuffle whose output is not its child's is caught ($order, adaptive=$adaptive)") {
      val e = violation(extensions, adaptive)(filtered)
      // With adaptive execution, as its stage (whose root it is) is created, before it runs.
      assert(e.phase == Phase.Preparation)
      assert(e.rule.orNull == s"planguard.testing.ReverseShuffleOutput (${kind(adaptive)})")
      assert(e.getMessage.contains("Exchange keeps its child's schema"), e.getMessage)
      assert(e.expected.fieldNames.length == e.actual.fieldNames.length)
      assert(e.expected.fieldNames.toSeq == e.actual.fieldNames.toSeq.reverse)
    }
  }

  for ((order, adaptive, extensions) <- brokenRuleCases(new NotNullOuterJoinExtension,
      new NotNullOuterJoinStagePrepExtension)) {
    test(s"an outer join declaring its padded side NOT NULL is caught " +
      s"($order, adaptive=$adaptive)") {
      val e = violation(extensions, adaptive)(outerJoin)
      assert(e.phase == phase(order, adaptive))
      assert(e.rule.orNull == s"planguard.testing.NotNullOuterJoin (${kind(adaptive)})")
      assert(e.diff.differences == Seq(
        "#2 k2: NOT NULL, but a LeftOuter join pads it with nulls",
        "#3 b: NOT NULL, but a LeftOuter join pads it with nulls"), e.getMessage)
    }
  }

  for ((order, adaptive, extensions) <- brokenRuleCases(new UnorderedTopKExtension,
      new UnorderedTopKStagePrepExtension)) {
    test(s"a top-K without a sort order is caught ($order, adaptive=$adaptive)") {
      val e = violation(extensions, adaptive)(topK)
      assert(e.phase == phase(order, adaptive))
      assert(e.rule.orNull == s"planguard.testing.UnorderedTopK (${kind(adaptive)})")
      assert(e.diff.actualText == "no sort order" && e.expected == null)
    }
  }

  for (adaptive <- adaptiveModes; (order, extensions) <- Seq(
      "planguard first" -> Seq(planguard, new WriteReturningRowsExtension),
      "planguard last" -> Seq(new WriteReturningRowsExtension, planguard))) {
    test(s"a write that returns rows is caught before it writes ($order, adaptive=$adaptive)") {
      val spark = session(extensions, adaptive)
      val target = temporaryDirectory("planguard-write").resolve("out")
      val e = intercept[InvariantViolation](
        spark.range(10).selectExpr("id", "id % 3 AS m").write.parquet(target.toString))
      assert(e.invariant.id == "OPERATOR_CONTRACT" && e.phase == Phase.Preparation)
      assert(e.rule.orNull ==
        "planguard.testing.WriteReturningRows (columnar rule, before transitions)")
      assert(e.expected.isEmpty && e.actual.fieldNames.toSeq == Seq("num_rows"))
      assert(!Files.exists(target))
    }
  }

  test("with the check off, a top-K without a sort order returns arbitrary rows") {
    val spark = session(Seq(planguard, new UnorderedTopKExtension), adaptive = false,
      "spark.planguard.check.OPERATOR_CONTRACT" -> "off")
    val rows = spark.range(0, 100, 1, 2).orderBy(col("id").desc).limit(3).collect()
    assert(rows.toSeq != Seq(99L, 98L, 97L))
  }

  test("a plan breaking DISTRIBUTION and OPERATOR_CONTRACT reports both, from one walk") {
    val spark = session(Seq(planguard, new RemoveFinalAggregateExchangeExtension,
      new ReverseFilterOutputExtension), adaptive = false, "spark.planguard.mode" -> "warn")
    filtered(spark).queryExecution.executedPlan
    val found = ViolationLog.records(spark).map(r => (r.id, r.phase))
    assert(found.contains(("DISTRIBUTION", Phase.Preparation)))
    assert(found.contains(("OPERATOR_CONTRACT", Phase.Preparation)))
  }
}

package planguard

import org.apache.spark.sql.{DataFrame, SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan}

import planguard.errors.InvariantViolation
import planguard.testing.{DropLastField, RemoveFinalAggregateExchange,
  ReverseProjectUnderRootShuffle, ReverseRootProjectExec}

/**
 * Columnar rules that rewrite the plan after the transitions, as Comet's, Gluten's and RAPIDS'
 * do: Spark applies them in reverse order of injection, so an extension listed before planguard
 * rewrites the plan after planguard's own rule would have run. planguard must check the plan
 * that runs either way: listed first or last, adaptive execution on and off.
 */
class PostTransitionRulesSuite extends SparkSessions {

  private class AfterTransitions(rule: Rule[SparkPlan]) extends (SparkSessionExtensions => Unit) {
    override def apply(e: SparkSessionExtensions): Unit = e.injectColumnar(_ =>
      new ColumnarRule { override def postColumnarTransitions: Rule[SparkPlan] = rule })
  }

  private def violation(e: Throwable): Option[InvariantViolation] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst {
      case v: InvariantViolation => v
    }

  /** A projection over a scan, and one over a shuffled join, which adaptive execution plans. */
  private def projected(spark: SparkSession): Seq[DataFrame] = projectedQueries(spark)

  /**
   * A query that ends in a repartition: without adaptive execution, the shuffle is the root of its
   * whole plan; with it, of a query stage.
   */
  private def repartitioned(spark: SparkSession): Seq[DataFrame] =
    Seq(spark.range(5).selectExpr("cast(id as int) as a", "id * 2 as b").repartition(3))

  private def groups(spark: SparkSession): Seq[DataFrame] =
    Seq(spark.range(0, 100, 1, 2).selectExpr("id % 10 AS k").groupBy("k").count())

  // (broken rule, the query it breaks, the invariant, adaptive modes where it applies): under
  // adaptive execution the final aggregate's exchange is a stage, which the rule does not match.
  private val cases = Seq(
    (ReverseRootProjectExec, projected _, "PHYSICAL_SCHEMA", adaptiveModes),
    (ReverseProjectUnderRootShuffle, repartitioned _, "PHYSICAL_SCHEMA", adaptiveModes),
    (DropLastField, projected _, "BATCH_SCHEMA", adaptiveModes),
    (RemoveFinalAggregateExchange, groups _, "DISTRIBUTION", Seq(false)))

  for ((rule, query, invariant, modes) <- cases; adaptive <- modes;
       order <- Seq("planguard first", "planguard last")) {
    test(s"${rule.ruleName.split('.').last} after the transitions breaks $invariant, caught " +
      s"($order, adaptive=$adaptive)") {
      val broken = new AfterTransitions(rule)
      val extensions = if (order == "planguard first") Seq(planguard, broken)
        else Seq(broken, planguard)
      val spark = session(extensions, adaptive)
      query(spark).foreach { df =>
        val e = violation(intercept[Exception](df.collect()))
        assert(e.map(_.invariant.id).contains(invariant), e.map(_.getMessage))
      }
    }
  }
}

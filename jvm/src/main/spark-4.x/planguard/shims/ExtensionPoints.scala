package planguard.shims

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveRulesHolder

/**
 * The SparkSessionExtensions injection points that differ between Spark lines. Spark 4.x has
 * them all: hint resolution rules (the Hints batch, new in 4.0) and query post-planner-strategy
 * rules. See spark-3.5/ for the line that lacks them.
 */
object ExtensionPoints {
  /** A rule for hints Spark does not know, run before Spark drops them: the Hints batch. */
  def injectHintRule(e: SparkSessionExtensions, rule: SparkSession => Rule[LogicalPlan]): Unit =
    e.injectHintResolutionRule(rule)

  /** True where a rule can run before Resolution: the Hints batch precedes it. */
  val beforeResolution: Boolean = true

  /**
   * A rule that must see every unaliased expression before Spark names it: the Hints batch, which
   * precedes Resolution. False where the line has no such place (the rule is then not injected).
   */
  def injectBeforeResolution(e: SparkSessionExtensions,
      rule: SparkSession => Rule[LogicalPlan]): Boolean = {
    e.injectHintResolutionRule(rule)
    true
  }

  /** An adaptive post-planner-strategy rule; false where the running Spark lacks the hook. */
  def injectQueryPostPlannerStrategyRule(e: SparkSessionExtensions,
      rule: SparkSession => Rule[SparkPlan]): Boolean = {
    e.injectQueryPostPlannerStrategyRule(rule)
    true
  }

  /** The post-planner-strategy rules extensions injected; none where Spark lacks the hook. */
  def queryPostPlannerStrategyRules(holder: AdaptiveRulesHolder): Seq[Rule[SparkPlan]] =
    holder.queryPostPlannerStrategyRules
}

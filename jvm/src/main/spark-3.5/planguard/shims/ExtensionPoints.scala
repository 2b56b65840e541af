package planguard.shims

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveRulesHolder

/**
 * The SparkSessionExtensions injection points that differ between Spark lines. Spark 3.5 has no
 * hint resolution rules (injectHintResolutionRule is 4.0's: 3.5's Hints batch takes no extension
 * rule), and 3.5.0 no query post-planner-strategy rules (added in 3.5.1).
 */
object ExtensionPoints {
  /**
   * A rule for hints Spark does not know, run before Spark drops them. On 3.5 a resolution rule:
   * Spark 3.5 removes unknown hints in its "Remove Unresolved Hints" batch, after Resolution.
   */
  def injectHintRule(e: SparkSessionExtensions, rule: SparkSession => Rule[LogicalPlan]): Unit =
    e.injectResolutionRule(rule)

  /** False: no rule of an extension runs before Resolution on Spark 3.5. */
  val beforeResolution: Boolean = false

  /**
   * A rule that must see every unaliased expression before Spark names it: Spark 3.5 has no such
   * place (Resolution names them before any extension rule runs), so it is not injected: false.
   */
  def injectBeforeResolution(e: SparkSessionExtensions,
      rule: SparkSession => Rule[LogicalPlan]): Boolean = false

  /** An adaptive post-planner-strategy rule; false on Spark 3.5.0, which lacks the hook. */
  def injectQueryPostPlannerStrategyRule(e: SparkSessionExtensions,
      rule: SparkSession => Rule[SparkPlan]): Boolean =
    try {
      e.injectQueryPostPlannerStrategyRule(rule)
      true
    } catch { case _: NoSuchMethodError => false }

  /** The post-planner-strategy rules extensions injected; none on Spark 3.5.0, which lacks them. */
  def queryPostPlannerStrategyRules(holder: AdaptiveRulesHolder): Seq[Rule[SparkPlan]] =
    try holder.queryPostPlannerStrategyRules catch { case _: NoSuchMethodError => Nil }
}

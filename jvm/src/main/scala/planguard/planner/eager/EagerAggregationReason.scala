package planguard.planner.eager

import org.apache.spark.sql.catalyst.plans.logical.Aggregate
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper

/**
 * What eager aggregation pushed below a join and why, kept on the aggregation it put there, so
 * that EXPLAIN's planguard section (Spark 4) and the stage picture (`planguard.stages`) can say
 * it. The aggregates planned from that aggregation find it through their logical link, which
 * Spark's planner sets and adaptive execution keeps.
 */
object EagerAggregationReason extends AdaptiveSparkPlanHelper {
  private val Tag = TreeNodeTag[String]("planguard.eagerAggregation")

  def mark(partial: Aggregate, reason: String): Unit = partial.setTagValue(Tag, reason)

  /** Whether eager aggregation put `aggregate` below a join. */
  def pushed(aggregate: Aggregate): Boolean = aggregate.getTagValue(Tag).isDefined

  /** The reason of the pushed aggregation that `plan` was planned from. */
  def of(plan: SparkPlan): Option[String] = plan.logicalLink.flatMap(_.getTagValue(Tag))

  /** The reasons in a physical plan (its adaptive stages and subqueries included), once each. */
  def in(plan: SparkPlan): Seq[String] = collectWithSubqueries(plan)(Function.unlift(of)).distinct
}

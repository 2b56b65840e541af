package planguard.planner

import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.exchange.Exchange

/**
 * Gives adaptive execution the planner's exchanges as it knows EnsureRequirements' own: without a
 * logical link. They need one while InsertAdaptiveSparkPlan decides whether a plan can run
 * adaptively (every node must have a link), so `Exchanges` gives each its input's; once the plan
 * is adaptive, that link is wrong. Adaptive execution replaces a finished stage's logical node
 * with the top-most physical node linked to it, and a broadcast exchange above a stage with its
 * input's link would be that node: the broadcast taken for the input itself, a join re-planned
 * over it with the build side swapped would execute a broadcast as a stream. Without the link,
 * adaptive execution links each stage to its input's logical node, as it does for its own
 * exchanges. A post-planner-strategy rule: it runs on the adaptive path only, on the initial plan
 * and on each re-planned one, before EnsureRequirements.
 */
object AdaptiveLinks extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = {
    plan.foreach {
      case e: Exchange if PlannerOrigin.isPlanners(e) => e.unsetTagValue(SparkPlan.LOGICAL_PLAN_TAG)
      case _ =>
    }
    plan
  }
}

package planguard.planner

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.exchange.Exchange

/**
 * The logical links planguard's planner gives exchanges, and their removal once a plan is
 * adaptive. The planner emits exchanges at planning time — its own, and those EnsureRequirements
 * adds when the planner prepares an input early (`Lowering`) — and each needs a link while
 * InsertAdaptiveSparkPlan decides whether the plan can run adaptively (every node must have one):
 * the link of the plan it reads. Once the plan is adaptive, that link is wrong. Adaptive
 * execution replaces a finished stage's logical node with the top-most physical node linked to
 * it, and an exchange above the stage with its input's link would be that node: a broadcast taken
 * for its input, a join re-planned over it with the build side swapped would execute the
 * broadcast as its streamed side. So this rule, run after planning on the adaptive path only
 * (on the initial plan and on each re-planned one, before EnsureRequirements), removes the links
 * the planner gave: adaptive execution then links each stage to its input's logical node, as it
 * does for the exchanges EnsureRequirements adds, which have none.
 */
object AdaptiveLinks extends Rule[SparkPlan] {
  private val Given = TreeNodeTag[Unit]("planguard.linkGiven")

  /** Links an exchange the planner emits to `logical`, until adaptive execution takes the plan. */
  def link(exchange: SparkPlan, logical: LogicalPlan): Unit = {
    exchange.setTagValue(SparkPlan.LOGICAL_PLAN_TAG, logical)
    exchange.setTagValue(Given, ())
  }

  override def apply(plan: SparkPlan): SparkPlan = {
    plan.foreach {
      case e: Exchange if e.getTagValue(Given).isDefined =>
        e.unsetTagValue(SparkPlan.LOGICAL_PLAN_TAG)
        e.unsetTagValue(Given)
      case _ =>
    }
    plan
  }
}

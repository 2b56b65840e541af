package planguard.planner

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.{PlanLater, SparkPlan}
import org.apache.spark.sql.execution.exchange.{EnsureRequirements, Exchange}

import planguard.errors.Foreign

/**
 * Completes the operators one of Spark's strategies chose for a logical node: its inputs, which
 * the strategy leaves for later (`PlanLater`), are planned now through the session's planner, and
 * each operator gets the exchanges its required distribution asks for (`Exchanges`).
 *
 * Deciding whether an input already satisfies a distribution needs the input's physical plan.
 * An input Spark's other strategies planned (a window, say) may still miss exchanges of its own,
 * which change its partitioning: EnsureRequirements is run on it first, as it would be later,
 * without dropping the user's repartitions (adaptive execution keeps them; the later pass still
 * may). Exchanges it adds there are Spark's, not planguard's, and carry no tag.
 *
 * An input is planned by the session's strategies, in their order, as Spark would plan it a moment
 * later: what they throw is a call out's (errors.Foreign), which fails the query as it would
 * without planguard (Kyuubi's watchdog strategy refuses a scan of too many partitions so).
 * EnsureRequirements, run early by planguard's own choice, is not a call out: what it throws here
 * is planguard's to answer for.
 */
object Lowering {

  /** `adaptivePartial`: whether a partial aggregate among `operators` may become adaptive. */
  def apply(session: SparkSession, operators: SparkPlan, partitions: Int,
      adaptivePartial: Boolean): SparkPlan =
    operators match {
      case PlanLater(input) =>
        val planned = EnsureRequirements(optimizeOutRepartition = false)(
          Foreign(session.sessionState.planner.plan(input).next()))
        linked(planned)
        planned
      case operator =>
        Exchanges.below(operator.withNewChildren(
          operator.children.map(apply(session, _, partitions, adaptivePartial))),
          partitions, adaptivePartial)
    }

  /**
   * Adaptive execution is not applied to a plan in which a node has no logical link: the query
   * would silently run without it. The nodes EnsureRequirements adds (exchanges, sorts) have none,
   * as it normally runs after that test: each takes the link of the rows it carries, its input's,
   * as adaptive execution links a stage over such an exchange (until it takes the plan: see
   * AdaptiveLinks). (Not its parent's:
   * EnsureRequirements reads a child's size from its link, and would take a sort under a join for
   * the join's output.)
   */
  private def linked(plan: SparkPlan): Unit = {
    plan.children.foreach(linked)
    if (plan.logicalLink.isEmpty) {
      plan.children.headOption.flatMap(_.logicalLink).foreach { link =>
        plan match {
          case exchange: Exchange => AdaptiveLinks.link(exchange, link)
          case _ => plan.setTagValue(SparkPlan.LOGICAL_PLAN_TAG, link)
        }
      }
    }
  }
}

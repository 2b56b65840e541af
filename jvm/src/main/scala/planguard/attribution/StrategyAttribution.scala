package planguard.attribution

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SparkPlan

import planguard.errors.Foreign
import planguard.schema.{LogicalTypes, SchemaDiff}

/**
 * Names the planner strategy that broke a contract: the one that planned the deepest logical node
 * whose physical form has another schema than the node itself. Spark's planner takes the first
 * strategy that plans a node, so asking the session's strategies in order finds it; one that
 * throws when asked (errors.Foreign) did not plan it. Runs only after a violation was found.
 */
object StrategyAttribution {

  def strategyOf(session: SparkSession, physical: SparkPlan): Option[String] =
    deepestDeparture(physical, None, LogicalTypes.of(session.sessionState.conf))
      .flatMap(planning(session, _))

  /** The strategy that planned `op`, a physical operator: the one that plans its logical link. */
  def strategyPlanning(session: SparkSession, op: SparkPlan): Option[String] =
    op.logicalLink.flatMap(planning(session, _))

  private def planning(session: SparkSession, logical: LogicalPlan): Option[String] =
    session.sessionState.planner.strategies.find { strategy =>
      try Foreign(strategy(logical)).nonEmpty catch { case Foreign(_) => false }
    }.map(s => s"${s.getClass.getName.stripSuffix("$")} (planner strategy, planning " +
      s"${logical.nodeName})")

  /**
   * A strategy plans one logical node into a few physical ones, each linked to it; the top-most
   * of them must have the node's schema.
   */
  private def deepestDeparture(plan: SparkPlan, parentLink: Option[LogicalPlan],
      types: LogicalTypes): Option[LogicalPlan] = {
    val link = plan.logicalLink
    val deeper = plan.children.iterator.flatMap(deepestDeparture(_, link, types))
    (if (deeper.hasNext) Some(deeper.next()) else None).orElse {
      link.filter { logical =>
        !parentLink.exists(_ eq logical) &&
          !SchemaDiff.exact(logical.schema, plan.schema, "", types).isEmpty
      }
    }
  }
}

package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.QueryPlanningTracker
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan, SQLExecution}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec

/**
 * The analyzed and optimized plans of a query whose physical plan is being prepared.
 *
 * @param plannedRoot the optimized root that physical planning started from
 */
final case class PlannedQuery(analyzed: LogicalPlan, optimized: LogicalPlan,
    plannedRoot: LogicalPlan) {

  /** True the first time it is called for this query: each query's plans are checked once. */
  def firstCheck(): Boolean = {
    val first = plannedRoot.getTagValue(PlannedQuery.Checked).isEmpty
    plannedRoot.setTagValue(PlannedQuery.Checked, true)
    first
  }
}

object PlannedQuery {
  private val Checked = TreeNodeTag[Boolean]("planguard.checked")

  /**
   * Finds the query that `plan` is the whole physical plan of. Subquery plans, adaptive stages
   * and other plans prepared inside a query have none of their own: the check of the query they
   * belong to covers its result.
   */
  def of(plan: SparkPlan, session: SparkSession): Option[PlannedQuery] = {
    val root = plan match {
      case adaptive: AdaptiveSparkPlanExec => adaptive.inputPlan.logicalLink
      case _ => plan.logicalLink
    }
    root.flatMap { plannedRoot =>
      owner(plan, session) match {
        case Some(qe) =>
          if (qe.sparkPlan.logicalLink.exists(_ eq plannedRoot)) {
            Some(PlannedQuery(qe.analyzed, qe.optimizedPlan, plannedRoot))
          } else None
        case None if executionId(session).isEmpty =>
          // explain, cache and df.rdd prepare plans outside any SQL execution.
          AnalyzedPlans.of(plannedRoot).map(PlannedQuery(_, plannedRoot, plannedRoot))
        case None => None
      }
    }
  }

  /**
   * The QueryExecution that may own `plan`: the adaptive plan's own, or the one of the running SQL
   * execution. Only one whose physical planning has finished is returned, so that reading its
   * plans never re-enters a planning phase still under way on this thread.
   */
  private def owner(plan: SparkPlan, session: SparkSession): Option[QueryExecution] = {
    val candidate = plan match {
      case adaptive: AdaptiveSparkPlanExec if !adaptive.isSubquery => Option(adaptive.context.qe)
      case _: AdaptiveSparkPlanExec => None
      case _ => executionId(session).flatMap(id => Option(SQLExecution.getQueryExecution(id)))
    }
    candidate.filter(_.tracker.phases.contains(QueryPlanningTracker.PLANNING))
  }

  private def executionId(session: SparkSession): Option[Long] =
    Option(session.sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)).map(_.toLong)
}

package planguard.checks

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{Command, LogicalPlan, Project, SubqueryAlias,
  UnaryNode, View, WithCTE}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.{WriteFiles, WriteFilesExec}
import org.apache.spark.sql.execution.datasources.v2.WriteToDataSourceV2
import org.apache.spark.sql.execution.streaming.sources.WriteToMicroBatchDataSource

import planguard.shims.WrittenColumns

/** What the schema contracts compare: the plans whose rows a query returns or writes. */
object ResultPlans {

  /**
   * A write command returns no rows: its contract is on the query whose rows it writes, under the
   * WriteFiles node that planned writes add (whose physical form outputs nothing).
   */
  def logical(plan: LogicalPlan): LogicalPlan = plan match {
    case w if writes(w) && w.children.size == 1 => written(w.children.head)
    case _ => plan
  }

  /**
   * The columns whose schema the contracts compare: the output of [[logical]], or the columns a
   * write command writes where they are not all of its query's (WrittenColumns: Spark 3.5's
   * copy-on-write row-level writes, whose query also reads metadata columns that the optimizer
   * projects away before the write).
   */
  def output(plan: LogicalPlan): Seq[Attribute] = plan match {
    case WrittenColumns(columns) => columns
    case _ => logical(plan).output
  }

  /**
   * True for a plan that writes rows and returns none: a command (INSERT, CTAS, ...), or a
   * streaming query's micro-batch written into a DataSource V2 sink (the memory, console and Kafka
   * sinks, Iceberg's), which is no command: WriteToMicroBatchDataSource as analyzed,
   * WriteToDataSourceV2 as optimized, over the batch's query.
   */
  def writes(plan: LogicalPlan): Boolean = plan match {
    case _: Command | _: WriteToMicroBatchDataSource | _: WriteToDataSourceV2 => true
    case _ => false
  }

  private def written(plan: LogicalPlan): LogicalPlan = plan match {
    case w: WriteFiles => w.child
    case _ => plan
  }

  /**
   * The physical counterpart of [[logical]]. None for a command that does not plan its query as
   * its child: a v1 fallback write (Delta's INSERT) runs it as a Dataset of its own, checked as a
   * query of its own. A write's query that adaptive execution plans on its own, below the write's
   * node, is its own counterpart: planned from no write or, where a rule's copy lost the link,
   * outputting columns, which a write's node does not.
   */
  def physical(plan: SparkPlan, logicalRoot: LogicalPlan): Option[SparkPlan] = logicalRoot match {
    case w if writes(w) && w.children.size == 1 &&
        plan.logicalLink.fold(plan.output.nonEmpty)(!writes(_)) =>
      Some(plan)
    case w if writes(w) && w.children.size == 1 => plan.children match {
      case Seq(w: WriteFilesExec) => Some(w.child)
      case Seq(query) => Some(query)
      case _ => None
    }
    case _ => Some(plan)
  }

  /**
   * Projected plans keep their exact order (docs/invariants.md). Aliases and views only rename
   * the relation, a WITH clause returns its main query's rows, and an operator that outputs its
   * child's columns as they are (a sort, a filter, a limit, a distinct) only passes the child's
   * rows on: the projection under them fixes the order.
   */
  def isProjected(analyzed: LogicalPlan): Boolean = projection(logical(analyzed))

  private def projection(plan: LogicalPlan): Boolean = plan match {
    case _: Project => true
    case SubqueryAlias(_, child) => projection(child)
    case v: View => projection(v.child)
    case w: WithCTE => projection(w.plan)
    case u: UnaryNode if u.output == u.child.output => projection(u.child)
    case _ => false
  }

  /** How an ordered comparison is justified, for the error message. */
  def orderRule(analyzed: LogicalPlan): String =
    if (isProjected(analyzed)) "the analyzed root is a projection"
    else "the analyzed root is not a projection"
}

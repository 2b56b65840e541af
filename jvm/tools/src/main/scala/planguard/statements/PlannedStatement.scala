package planguard.statements

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.{Command, LogicalPlan}
import org.apache.spark.sql.execution.{CommandExecutionMode, QueryExecution, SparkPlan,
  SQLExecution}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec

import planguard.stages.{StageCutter, StageGraph}

/**
 * A SQL statement planned the way EXPLAIN plans it, and never run: parsed, analyzed with commands
 * left unexecuted (`CommandExecutionMode.SKIP`), optimized, planned and prepared. A write plans
 * its query and its write node (InsertIntoHadoopFsRelationCommand, AppendData, ...); a command
 * that plans its query only when it runs (CTAS, INSERT OVERWRITE DIRECTORY, saveAsTable's v1
 * command) has that query planned on its own, as the query it would write. Nothing produces a row
 * or touches a file.
 *
 * Preparation runs inside a SQL execution of its own, as an action's would, so that every check
 * finds the query it belongs to; the execution runs no job.
 *
 * @param prepared the statement's prepared physical plan
 * @param query the prepared plan of the query a command plans only when it runs
 */
final case class PlannedStatement(
    analyzed: LogicalPlan,
    kind: StatementKind.StatementKind,
    prepared: SparkPlan,
    query: Option[SparkPlan]) {

  /** True when planning went through a query: the planning invariants applied. */
  def plannedAQuery: Boolean = kind != StatementKind.Command

  def stages: StageGraph = query match {
    case Some(q) => StageCutter(q).withCommandOnTop(prepared)
    case None => StageCutter(prepared)
  }
}

object PlannedStatement {

  def apply(session: SparkSession, sql: String): PlannedStatement = {
    val qe = session.sessionState.executePlan(
      session.sessionState.sqlParser.parsePlan(sql), CommandExecutionMode.SKIP)
    qe.assertAnalyzed()
    val written = WrittenQuery(qe.analyzed)
    val kind = qe.analyzed match {
      case _ if written.isDefined => StatementKind.Write
      case _: Command => StatementKind.Command
      case _ => StatementKind.Query
    }
    val prepared = prepare(qe)
    // A command planned as a leaf plans its query when it runs.
    val top = prepared match {
      case adaptive: AdaptiveSparkPlanExec => adaptive.executedPlan
      case plan => plan
    }
    val query = written.filter(_ => top.children.isEmpty)
      .map(q => prepare(session.sessionState.executePlan(q, CommandExecutionMode.SKIP)))
    PlannedStatement(qe.analyzed, kind, prepared, query)
  }

  private def prepare(qe: QueryExecution): SparkPlan =
    SQLExecution.withNewExecutionId(qe)(qe.executedPlan)
}

package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.trees.TreeNode
import org.apache.spark.sql.execution.QueryExecution
import org.apache.spark.sql.internal.SQLConf

import planguard.checks.Outputs
import planguard.conf.{Levels, PlanGuardConf}
import planguard.report.{RecordOnly, Reporter}
import planguard.schema.LogicalTypes

/**
 * What the checks of one hook's run share, built once where the hook starts and passed to each
 * check (Check), never looked up on the way: the session and its confs as the hook read them
 * (the invariants' levels, the logical types), the query the plan belongs to (`owner`: the running
 * SQL execution's QueryExecution, where there is one), the physical plans' outputs, each derived
 * once, and where violations go (`reporter`: the session's log, the query's findings, whether
 * the statement only records them).
 */
private[rules] final class CheckContext private (val session: SparkSession,
    val owner: Option[QueryExecution], val levels: Levels, val outputs: Outputs,
    val reporter: Reporter) {
  val conf: SQLConf = session.sessionState.conf
  val types: LogicalTypes = LogicalTypes.of(conf)
}

private[rules] object CheckContext {

  /**
   * @param findings the root of the query whose findings the hook's violations are, if known
   * @param outputs the outputs the hook derived before its checks, if any
   */
  def apply(session: SparkSession, owner: Option[QueryExecution], findings: Option[TreeNode[_]],
      outputs: Outputs = new Outputs): CheckContext = {
    val levels = PlanGuardConf.levels(session.sessionState.conf)
    new CheckContext(session, owner, levels, outputs,
      new Reporter(session, levels, findings, RecordOnly.now))
  }
}

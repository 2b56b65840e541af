package planguard.rules

import org.apache.spark.sql.execution.{CollectLimitExec, CollectTailExec, ColumnarToRowExec,
  CommandResultExec, SparkPlan, TakeOrderedAndProjectExec}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}
import org.apache.spark.sql.execution.command.{DataWritingCommandExec, ExecutedCommandExec}
import org.apache.spark.sql.execution.datasources.v2.V2CommandExec
import org.apache.spark.sql.execution.exchange.Exchange
import org.apache.spark.sql.internal.SQLConf

import planguard.checks.{CachedNullability, Outputs}
import planguard.conf.{Levels, PlanGuardConf}
import planguard.contract.{Invariant, Level}
import planguard.exec.{BatchSampler, CheckBatchSchemaExec}

/**
 * Where BATCH_SCHEMA checks what execution produces: above the root of each prepared plan (with
 * adaptive execution, of its final stage: the adaptive node itself stays the root, which Spark's
 * own code expects), or below a root limit, tail or top-N, which collect in their own way; and,
 * with `spark.planguard.batchSchema.scope=stages`, below every exchange and every columnar-to-row
 * transition. Not placed at all when the check is off. The result's check also holds its rows to
 * the NOT NULL columns its producing operator declares: code generated for the operators that
 * read a column trusts that declaration; not when the plan reads a cache whose NOT NULL is
 * Spark's restatement (CachedNullability). On a plan prepared outside any SQL execution, the
 * result's check also completes the query's checks on the driver when the plan runs
 * (ChecksAtExecution).
 */
object PlaceBatchChecks {

  /**
   * @param outputs the plan's outputs, read once for all the checks of one plan
   * @param checksAtExecution whether the result's check runs the query's checks when it executes
   *                          (a plan prepared outside any SQL execution: ChecksAtExecution)
   */
  def apply(plan: SparkPlan, conf: SQLConf, levels: Levels, outputs: Outputs,
      checksAtExecution: Boolean): SparkPlan =
    levels(Invariant.BatchSchema) match {
      case Level.Off => plan
      case level => place(plan, conf, level == Level.Fail, outputs, checksAtExecution)
    }

  private def place(plan: SparkPlan, conf: SQLConf, fail: Boolean, outputs: Outputs,
      checksAtExecution: Boolean): SparkPlan = {
    val every = PlanGuardConf.batchSchemaEvery(conf)
    def checked(p: SparkPlan) =
      CheckBatchSchemaExec(p, BatchSampler(p.output, p.getClass, fail, every, notNull = false))
    def result(p: SparkPlan): SparkPlan = {
      val output = outputs(p)
      if (output.isEmpty) p
      else CheckBatchSchemaExec(p, BatchSampler(output, p.getClass, fail, every,
        notNull = !CachedNullability.restated(p)),
        if (checksAtExecution) Some(ChecksAtExecution) else None)
    }
    val inner = if (!PlanGuardConf.batchSchemaAtStages(conf)) plan else plan.transformUp {
      case e: Exchange if !e.child.isInstanceOf[CheckBatchSchemaExec] =>
        e.withNewChildren(Seq(checked(e.child)))
      // A stage's output was checked where the stage ran.
      case c: ColumnarToRowExec if !c.child.isInstanceOf[CheckBatchSchemaExec] &&
          !c.child.isInstanceOf[QueryStageExec] =>
        c.withNewChildren(Seq(checked(c.child)))
    }
    inner match {
      // These collect through their child's executeTake/executeTail/execute: checking below
      // them keeps their fast path (a limit reads only the partitions it needs).
      case c @ (_: CollectLimitExec | _: CollectTailExec | _: TakeOrderedAndProjectExec)
          if !c.children.head.isInstanceOf[CheckBatchSchemaExec] =>
        c.withNewChildren(Seq(result(c.children.head)))
      case root if producesResult(root) => result(root)
      case other => other
    }
  }

  /** A plan whose root produces a query's result: not a stage, not a command's own output. */
  private def producesResult(plan: SparkPlan): Boolean = plan match {
    case _: Exchange | _: AdaptiveSparkPlanExec | _: CheckBatchSchemaExec => false
    // An adaptive broadcast subquery's final plan is its broadcast stage, which Spark's code
    // expects unwrapped (dynamic partition pruning).
    case _: QueryStageExec => false
    case _: ExecutedCommandExec | _: DataWritingCommandExec | _: V2CommandExec |
         _: CommandResultExec => false
    case _ => true
  }
}

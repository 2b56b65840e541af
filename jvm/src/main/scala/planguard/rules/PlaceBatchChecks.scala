package planguard.rules

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, AttributeSet}
import org.apache.spark.sql.execution.{CollectLimitExec, CollectTailExec,
  ColumnarToRowTransition, CommandResultExec, RDDScanExec, SparkPlan, TakeOrderedAndProjectExec}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec
import org.apache.spark.sql.execution.command.{DataWritingCommandExec, ExecutedCommandExec}
import org.apache.spark.sql.execution.datasources.v2.{DataSourceV2ScanExecBase, V2CommandExec}
import org.apache.spark.sql.execution.exchange.Exchange
import org.apache.spark.sql.internal.SQLConf

import planguard.checks.Outputs
import planguard.conf.PlanGuardConf
import planguard.contract.{Invariant, Level}
import planguard.exec.{BatchSampler, CheckBatchSchemaExec}

/**
 * Where BATCH_SCHEMA checks what execution produces:
 *  - above the root of each prepared plan (with adaptive execution, of its final stage: the
 *    adaptive node itself stays the root, which Spark's own code expects), or below a root limit,
 *    tail or top-N, which collect in their own way; the result's rows are also held to the NOT
 *    NULL columns its producing operator declares, as code reading a column trusts that;
 *  - where rows enter row code from something that cannot prove the NOT NULL columns they are
 *    declared with (`entries`): the rows of an RDD (a DataFrame created from rows, a checkpoint),
 *    the batches of a columnar-to-row transition (cached, data source and plugin batches), a
 *    row-based cache or data source scan (its rows' declared fields), what a Python function
 *    returned. Those columns are
 *    checked on every row and batch there, before the operators above read them;
 *  - with `spark.planguard.batchSchema.scope=stages`, below every exchange and every
 *    columnar-to-row transition.
 * Not placed at all when the check is off. On a plan prepared outside any SQL execution, the
 * result's check also completes the query's checks on the driver when the plan runs
 * (ChecksAtExecution).
 */
object PlaceBatchChecks {

  /**
   * @param checksAtExecution whether the result's check runs the query's checks when it executes
   *                          (a plan prepared outside any SQL execution: ChecksAtExecution)
   */
  def apply(context: CheckContext, plan: SparkPlan, checksAtExecution: Boolean): SparkPlan =
    context.levels(Invariant.BatchSchema) match {
      case Level.Off => plan
      case level => place(plan, context.conf, level == Level.Fail, context.outputs,
        checksAtExecution)
    }

  private def place(plan: SparkPlan, conf: SQLConf, fail: Boolean, outputs: Outputs,
      checksAtExecution: Boolean): SparkPlan = {
    val every = PlanGuardConf.batchSchemaEvery(conf)
    // A cached table's adaptive stage is named by the cache read it stands for.
    def checked(p: SparkPlan, entry: Boolean) = {
      val producer = p match {
        case s: QueryStageExec => s.plan.getClass
        case _ => p.getClass
      }
      CheckBatchSchemaExec(p, BatchSampler(p.output, producer, fail, every, notNull = false,
        entry))
    }
    val atExecution = if (checksAtExecution) Some(ChecksAtExecution) else None
    def result(p: SparkPlan): SparkPlan = p match {
      // An entry's check at the root checks the result too.
      case c: CheckBatchSchemaExec if c.sampler.entry =>
        c.copy(sampler = c.sampler.copy(notNull = true), beforeFirstTask = atExecution)
      case c: CheckBatchSchemaExec => c
      case _ =>
        val output = outputs(p)
        if (output.isEmpty) p
        else CheckBatchSchemaExec(p, BatchSampler(output, p.getClass, fail, every,
          notNull = true), atExecution)
    }
    val entered = plan.transformUp {
      case c: ColumnarToRowTransition if enters(c.child) && !checkedBelow(c) =>
        c.withNewChildren(Seq(checked(c.child, entry = true)))
      case s: RDDScanExec if notNull(s.output).nonEmpty => loosened(s, notNull(s.output), checked)
      // Checked as rows or batches, as the operator above reads them (a cached table's adaptive
      // stage is read as rows through InputAdapter, without a transition).
      case s: InMemoryTableScanExec if notNull(s.output).nonEmpty => checked(s, entry = true)
      // A row-based data source scan passes its reader's rows on as they are. They may carry
      // more fields than it declares (Iceberg's metadata tables), which Spark's projection above
      // it drops: the declared ones are checked. A columnar scan is checked at its transition.
      case s: DataSourceV2ScanExecBase if !s.supportsColumnar && notNull(s.output).nonEmpty =>
        val check = checked(s, entry = true)
        check.copy(sampler = check.sampler.copy(trailing = true))
      case s: QueryStageExec if cacheRead(s) && notNull(s.output).nonEmpty =>
        checked(s, entry = true)
      case p if python(p) && made(p).nonEmpty => loosened(p, made(p), checked)
    }
    val inner = if (!PlanGuardConf.batchSchemaAtStages(conf)) entered else entered.transformUp {
      case e: Exchange if !e.child.isInstanceOf[CheckBatchSchemaExec] =>
        e.withNewChildren(Seq(checked(e.child, entry = false)))
      // A stage's output was checked where the stage ran.
      case c: ColumnarToRowTransition if !checkedBelow(c) &&
          !c.child.isInstanceOf[QueryStageExec] =>
        c.withNewChildren(Seq(checked(c.child, entry = false)))
    }
    inner match {
      // These collect through their child's executeTake/executeTail/execute: checking below
      // them keeps their fast path (a limit reads only the partitions it needs).
      case c @ (_: CollectLimitExec | _: CollectTailExec | _: TakeOrderedAndProjectExec) =>
        c.withNewChildren(Seq(result(c.children.head)))
      case root: CheckBatchSchemaExec if root.sampler.entry => result(root)
      case root if producesResult(root) => result(root)
      case other => other
    }
  }

  /**
   * Batches whose NOT NULL columns no plan check proves: any columnar operator's but an adaptive
   * stage's (checked where it ran, as a plan of its own), except a cached table's stage, whose
   * plan is the cache read.
   */
  private def enters(child: SparkPlan): Boolean = notNull(child.output).nonEmpty && (child match {
    case s: QueryStageExec => cacheRead(s)
    case _ => true
  })

  private def checkedBelow(c: SparkPlan): Boolean = c.children.head.isInstanceOf[CheckBatchSchemaExec]

  private def cacheRead(s: QueryStageExec): Boolean = s.plan.isInstanceOf[InMemoryTableScanExec]

  private def notNull(output: Seq[Attribute]): AttributeSet =
    AttributeSet(output.filterNot(_.nullable))

  /** Spark's operators that run Python functions (UDFs, mapInPandas, applyInArrow, ...). */
  private def python(p: SparkPlan): Boolean =
    p.getClass.getName.startsWith("org.apache.spark.sql.execution.python.")

  /** The NOT NULL columns a Python operator makes: what its function returned. */
  private def made(p: SparkPlan): AttributeSet =
    notNull(p.output) -- p.children.flatMap(_.output)

  /**
   * `op` declaring `columns` nullable, under a check that holds its rows to them as declared.
   * An RDD scan and a Python operator turn their input into rows with an UnsafeProjection of their
   * own output, which writes a null in a NOT NULL column as a value (0, -1): declared nullable,
   * they keep the null for the check to see, and the operators above read the check's output,
   * which is `op`'s as it was.
   */
  private def loosened(op: SparkPlan, columns: AttributeSet,
      checked: (SparkPlan, Boolean) => CheckBatchSchemaExec): SparkPlan = {
    val declared = op.output
    val nullable = op.transformExpressions {
      case a: AttributeReference if columns.contains(a) => a.withNullability(true)
    }
    val check = checked(nullable, true)
    check.copy(sampler = check.sampler.copy(output = declared))
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

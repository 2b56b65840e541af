package planguard.exec

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{ExplainUtils, LocalTableScanExec, SparkPlan,
  UnaryExecNode}
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * Passes its child's rows or batches on unchanged, checking a sample of them against the child's
 * schema (BATCH_SCHEMA). An operator that collects in its own way (a limit's fast path) is not
 * placed below this node but above it: see PlaceBatchChecks.
 *
 * @param beforeFirstTask on a query's result: what runs on the driver before this node asks its
 *                        child for anything
 */
final case class CheckBatchSchemaExec(child: SparkPlan, sampler: BatchSampler,
    beforeFirstTask: Option[BeforeFirstTask] = None) extends UnaryExecNode {

  override def nodeName: String = "CheckBatchSchema"
  // The output the check holds its child's rows to: the child's, read where the check was placed
  // (a union's or a projection's output is derived anew on every call, and Spark asks often).
  override def output: Seq[Attribute] = sampler.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering
  override def supportsColumnar: Boolean = child.supportsColumnar
  override def supportsRowBased: Boolean = child.supportsRowBased

  override protected def doExecute(): RDD[InternalRow] = {
    runBeforeFirstTask()
    val check = sampler
    child.execute().mapPartitions(check.rows(_), preservesPartitioning = true)
  }

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    runBeforeFirstTask()
    val check = sampler
    child.executeColumnar().mapPartitions(check.batches(_), preservesPartitioning = true)
  }

  // Spark's own collect, take, tail and toLocalIterator run execute() above: checked in the
  // tasks, before the rows are serialized (the driver decodes them with the declared field
  // count, which would hide a missing field). A local relation's rows need no job.
  override def executeCollect(): Array[InternalRow] = child match {
    case local: LocalTableScanExec =>
      runBeforeFirstTask()
      sampler.all(local.executeCollect())
    case _ => super.executeCollect()
  }

  private def runBeforeFirstTask(): Unit = beforeFirstTask.foreach(_(this))

  // A check changes no result: a plan with it is the same as without it, so exchanges and
  // subqueries are still reused (a dynamic-pruning subquery prepared on its own, and so checked,
  // reuses its join's broadcast).
  override protected def doCanonicalize(): SparkPlan = child.canonicalized

  // What EXPLAIN shows of the check: how often and at what level, not the sampler's fields.
  private def sampling: String = s"every ${sampler.every}, ${if (sampler.fail) "fail" else "warn"}"

  override def simpleString(maxFields: Int): String = s"$nodeName ($sampling)"

  override protected def stringArgs: Iterator[Any] = Iterator(sampling) ++ beforeFirstTask

  // EXPLAIN FORMATTED, and the plan description of every SQL execution in Spark's UI: the input
  // is the output the check was placed with. Spark's default reads the child's output again,
  // which a union derives anew from all its children's (~1 % of planning a 300-way union as an
  // action).
  override def verboseStringWithOperatorId(): String =
    s"""
       |$formattedNodeName
       |${ExplainUtils.generateFieldString("Input", output)}
       |Arguments: ${argString(conf.maxToStringFields)}
       |""".stripMargin

  override protected def withNewChildInternal(newChild: SparkPlan): CheckBatchSchemaExec =
    copy(child = newChild)
}

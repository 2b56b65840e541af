package planguard.exec

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * Passes its child's rows or batches on unchanged, checking a sample of them against the child's
 * schema (BATCH_SCHEMA). Every way Spark runs a plan is delegated to the child — collect, take
 * and tail included, so that a limit keeps its fast path — with the result checked on its way.
 */
final case class CheckBatchSchemaExec(child: SparkPlan, sampler: BatchSampler)
  extends UnaryExecNode {

  override def nodeName: String = "CheckBatchSchema"
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering
  override def supportsColumnar: Boolean = child.supportsColumnar
  override def supportsRowBased: Boolean = child.supportsRowBased

  override protected def doExecute(): RDD[InternalRow] = {
    val check = sampler
    child.execute().mapPartitionsInternal(check.rows)
  }

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val check = sampler
    child.executeColumnar().mapPartitionsInternal(check.batches)
  }

  override def executeCollect(): Array[InternalRow] = sampler.all(child.executeCollect())
  override def executeTake(n: Int): Array[InternalRow] = sampler.all(child.executeTake(n))
  override def executeTail(n: Int): Array[InternalRow] = sampler.all(child.executeTail(n))
  override def executeToIterator(): Iterator[InternalRow] =
    sampler.rows(child.executeToIterator())

  override def simpleString(maxFields: Int): String =
    s"$nodeName (every ${sampler.every}, ${if (sampler.fail) "fail" else "warn"})"

  override protected def withNewChildInternal(newChild: SparkPlan): CheckBatchSchemaExec =
    copy(child = newChild)
}

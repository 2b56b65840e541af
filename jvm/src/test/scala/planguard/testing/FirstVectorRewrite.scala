package planguard.testing

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.execution.UnaryExecNode
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnVector}

/**
 * A columnar operator that declares its child's columns and produces batches of one vector:
 * `rewrite` of its child's batch. Spark's transitions give it a columnar child (RowToColumnarExec
 * over the projection it is put on).
 */
trait FirstVectorRewrite extends UnaryExecNode {

  /** The vector a child's batch becomes; a function of its own, as the tasks run it. */
  protected def rewrite: ColumnarBatch => ColumnVector

  override def output: Seq[Attribute] = child.output
  override def supportsColumnar: Boolean = true

  override protected def doExecute(): RDD[InternalRow] =
    throw new UnsupportedOperationException("columnar only")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val vector = rewrite
    child.executeColumnar().mapPartitions(_.map { batch =>
      new ColumnarBatch(Array(vector(batch)), batch.numRows())
    })
  }
}

package planguard.testing

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, ProjectExec, SparkPlan}
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types.{Decimal, IntegerType}
import org.apache.spark.sql.vectorized.{ColumnarArray, ColumnarBatch, ColumnarMap, ColumnVector}
import org.apache.spark.unsafe.types.UTF8String

/**
 * A column vector that declares no type, as Apache Iceberg's vectors of a column its scan fills
 * itself do: it reads `values`. BATCH_SCHEMA compares such a vector by its nulls alone.
 */
final class UntypedVector(values: ColumnVector) extends ColumnVector(null) {
  override def close(): Unit = values.close()
  override def hasNull: Boolean = values.hasNull
  override def numNulls(): Int = values.numNulls()
  override def isNullAt(rowId: Int): Boolean = values.isNullAt(rowId)
  override def getBoolean(rowId: Int): Boolean = values.getBoolean(rowId)
  override def getByte(rowId: Int): Byte = values.getByte(rowId)
  override def getShort(rowId: Int): Short = values.getShort(rowId)
  override def getInt(rowId: Int): Int = values.getInt(rowId)
  override def getLong(rowId: Int): Long = values.getLong(rowId)
  override def getFloat(rowId: Int): Float = values.getFloat(rowId)
  override def getDouble(rowId: Int): Double = values.getDouble(rowId)
  override def getArray(rowId: Int): ColumnarArray = values.getArray(rowId)
  override def getMap(ordinal: Int): ColumnarMap = values.getMap(ordinal)
  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal =
    values.getDecimal(rowId, precision, scale)
  override def getUTF8String(rowId: Int): UTF8String = values.getUTF8String(rowId)
  override def getBinary(rowId: Int): Array[Byte] = values.getBinary(rowId)
  override def getChild(ordinal: Int): ColumnVector = values.getChild(ordinal)
}

/**
 * Broken: declares its child's NOT NULL INT column, produces batches of untyped vectors whose
 * first row is null. Code that trusts the declaration reads the null's value slot: 0.
 */
final case class UntypedNullsExec(child: SparkPlan) extends FirstVectorRewrite {
  override protected def rewrite: ColumnarBatch => ColumnVector = UntypedNullsExec.nullFirst

  override protected def withNewChildInternal(c: SparkPlan): UntypedNullsExec = copy(child = c)
}

object UntypedNullsExec {
  private val nullFirst: ColumnarBatch => ColumnVector = { batch =>
    val n = batch.numRows()
    val vector = new OnHeapColumnVector(math.max(n, 1), IntegerType)
    (0 until n).foreach { i =>
      if (i == 0) vector.putNull(i) else vector.putInt(i, batch.column(0).getInt(i))
    }
    new UntypedVector(vector)
  }
}

/** Puts UntypedNullsExec on a root projection of one NOT NULL INT column. */
object UntypedNulls extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = plan match {
    case p: ProjectExec if p.output.map(_.dataType) == Seq(IntegerType) &&
        !p.output.head.nullable => UntypedNullsExec(p)
    case other => other
  }
}

class UntypedNullsExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectColumnar((_: SparkSession) =>
    new ColumnarRule { override def preColumnarTransitions: Rule[SparkPlan] = UntypedNulls })
}

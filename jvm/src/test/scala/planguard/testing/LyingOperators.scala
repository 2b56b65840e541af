package planguard.testing

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeProjection}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{CollectLimitExec, ColumnarRule, ProjectExec, SparkPlan,
  UnaryExecNode}
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types.{IntegerType, LongType}
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnVector}

// Deliberately broken physical operators: each declares its child's schema and produces another
// (BATCH_SCHEMA). Each is placed on a query's root projection, before the columnar transitions,
// unless the session conf `planguard.testing.<ClassName>` is false.

/** Declares its child's columns, produces rows without the last one. */
final case class DropLastFieldExec(child: SparkPlan) extends UnaryExecNode {
  override def output: Seq[Attribute] = child.output

  override protected def doExecute(): RDD[InternalRow] = {
    val (all, kept) = (child.output, child.output.init)
    child.execute().mapPartitions { rows =>
      val project = UnsafeProjection.create(kept, all)
      rows.map(project)
    }
  }

  override protected def withNewChildInternal(c: SparkPlan): DropLastFieldExec = copy(child = c)
}

/** Declares its child's INT column, produces columnar batches holding a BIGINT vector. */
final case class LongVectorsExec(child: SparkPlan) extends FirstVectorRewrite {
  override protected def rewrite: ColumnarBatch => ColumnVector = LongVectorsExec.longs

  override protected def withNewChildInternal(c: SparkPlan): LongVectorsExec = copy(child = c)
}

object LongVectorsExec {
  private val longs: ColumnarBatch => ColumnVector = { batch =>
    val n = batch.numRows()
    val vector = new OnHeapColumnVector(math.max(n, 1), LongType)
    (0 until n).foreach(i => vector.putLong(i, batch.column(0).getInt(i).toLong))
    vector
  }
}

/** Declares every column of its child NOT NULL, passes its rows on unchanged, nulls included. */
final case class NotNullClaimExec(child: SparkPlan) extends UnaryExecNode {
  override def output: Seq[Attribute] = child.output.map(_.withNullability(false))
  override protected def doExecute(): RDD[InternalRow] = child.execute()
  override protected def withNewChildInternal(c: SparkPlan): NotNullClaimExec = copy(child = c)
}

private object Lying {
  def on(name: String): Boolean = org.apache.spark.sql.internal.SQLConf.get
    .getConfString(s"planguard.testing.$name", "true") == "true"
}

/** Puts DropLastFieldExec on a root projection of two columns or more (also under a limit). */
object DropLastField extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = plan match {
    case p: ProjectExec if p.output.size >= 2 && Lying.on("DropLastFieldExec") =>
      DropLastFieldExec(p)
    case limit: CollectLimitExec => limit.withNewChildren(Seq(apply(limit.child)))
    case other => other
  }
}

/** Puts NotNullClaimExec on a root projection with a nullable column. */
object NotNullClaim extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = plan match {
    case p: ProjectExec if p.output.exists(_.nullable) && Lying.on("NotNullClaimExec") =>
      NotNullClaimExec(p)
    case other => other
  }
}

/** Puts LongVectorsExec on a root projection of one INT column. */
object LongVectors extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = plan match {
    case p: ProjectExec if p.output.map(_.dataType) == Seq(IntegerType) &&
        Lying.on("LongVectorsExec") => LongVectorsExec(p)
    case other => other
  }
}

class DropLastFieldExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectColumnar((_: SparkSession) =>
    new ColumnarRule { override def preColumnarTransitions: Rule[SparkPlan] = DropLastField })
}

class NotNullClaimExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectColumnar((_: SparkSession) =>
    new ColumnarRule { override def preColumnarTransitions: Rule[SparkPlan] = NotNullClaim })
}

class LongVectorsExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectColumnar((_: SparkSession) =>
    new ColumnarRule { override def preColumnarTransitions: Rule[SparkPlan] = LongVectors })
}

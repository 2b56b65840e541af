package planguard.planner.partial

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, NamedExpression, SortOrder,
  UnsafeProjection, XxHash64}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

/**
 * The input of a partial aggregate that may give up: its rows, unchanged, until `probeRows` rows
 * of the partition have gone by; then, if their grouping keys were more than `skipRatio` distinct
 * (the aggregate reduced too little to pay for its hash map), the rest of the partition goes to
 * the node above the aggregate (`AdaptivePartialAggregateExec`, through `HandOff`) and the
 * aggregate sees its input end. A partition of at most `probeRows` rows is aggregated whole.
 * Keys are counted by a 64-bit hash (`LongSet`).
 */
final case class ProbedInputExec(keys: Seq[NamedExpression], probeRows: Int, skipRatio: Double,
    handOff: Long, child: SparkPlan) extends UnaryExecNode {

  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "probedRows" -> SQLMetrics.createMetric(sparkContext, "rows probed"),
    "probedKeys" -> SQLMetrics.createMetric(sparkContext, "distinct keys among the rows probed"))

  override def argString(maxFields: Int): String =
    s"[${keys.map(_.name).mkString(", ")}]: probe $probeRows rows, give up above $skipRatio " +
      "distinct keys per row"

  // Exchange reuse compares canonical plans: the hand-off's number is not part of what it computes.
  override protected def doCanonicalize(): SparkPlan =
    if (handOff == 0L) super.doCanonicalize() else copy(handOff = 0L).canonicalized

  override protected def doExecute(): RDD[InternalRow] = {
    val (keys, input, probeRows, skipRatio, handOff) =
      (this.keys, child.output, this.probeRows, this.skipRatio, this.handOff)
    val (probedRows, probedKeys) = (longMetric("probedRows"), longMetric("probedKeys"))
    child.execute().mapPartitionsWithIndex { (index, rows) =>
      // A 64-bit hash of the key, generated: distinct keys hash alike about once in 2^64 / n^2.
      val hash = UnsafeProjection.create(Seq(new XxHash64(keys)), input)
      hash.initialize(index)
      new Iterator[InternalRow] {
        private var hashes = new LongSet
        private var gaveUp = false

        override def hasNext: Boolean = !gaveUp && rows.hasNext

        override def next(): InternalRow = {
          val row = rows.next()
          if (hashes != null) probe(row)
          row
        }

        private def probe(row: InternalRow): Unit = {
          hashes.add(hash(row).getLong(0))
          if (hashes.added == probeRows) {
            probedRows += probeRows
            probedKeys += hashes.size
            gaveUp = hashes.size > skipRatio * probeRows
            hashes = null
            if (gaveUp) HandOff.give(handOff, rows)
          }
        }
      }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): ProbedInputExec =
    copy(child = newChild)
}

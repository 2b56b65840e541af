package planguard.planner.partial

import scala.jdk.CollectionConverters._

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{And, Attribute, Expression, Literal, Predicate,
  SortOrder, UnsafeProjection, XxHash64}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * The input of a partial aggregate that may give up, below the projections and filters between
 * them (`AdaptivePartialAggregation`): its rows or batches, unchanged, until `probeRows` rows that
 * pass the filters' `conditions` have gone by (to the end of that batch); then, if their grouping
 * `keys` were more than `skipRatio` distinct (the aggregate reduced too little to pay for its hash
 * map), the rest of the partition goes to the node above the aggregate
 * (`AdaptivePartialAggregateExec`, through `HandOff`) and the aggregate sees its input end. A
 * partition with fewer such rows is aggregated whole. Keys are counted by a 64-bit hash
 * (`LongSet`). Columnar where its input is, so that a scan and the aggregate above still run as
 * one generated stage.
 */
final case class ProbedInputExec(keys: Seq[Expression], conditions: Seq[Expression],
    probeRows: Int, skipRatio: Double, handOff: Long, child: SparkPlan) extends UnaryExecNode {

  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering
  override def supportsColumnar: Boolean = child.supportsColumnar

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "probedRows" -> SQLMetrics.createMetric(sparkContext, "rows probed"),
    "probedKeys" -> SQLMetrics.createMetric(sparkContext, "distinct keys among the rows probed"))

  override def argString(maxFields: Int): String =
    s"[${keys.map(unqualified(_).sql).mkString(", ")}]: probe $probeRows rows, give up above " +
      s"$skipRatio distinct keys per row"

  private def unqualified(key: Expression): Expression =
    key.transform { case a: Attribute => a.withQualifier(Nil) }

  // Exchange reuse compares canonical plans: the hand-off's number is not part of what it computes.
  override protected def doCanonicalize(): SparkPlan =
    if (handOff == 0L) super.doCanonicalize() else copy(handOff = 0L).canonicalized

  override protected def doExecute(): RDD[InternalRow] = {
    val probe = this.probe
    child.execute().mapPartitionsWithIndex { (index, rows) =>
      val probing = probe.start(index)
      new Iterator[InternalRow] {
        override def hasNext: Boolean = !probing.gaveUp && rows.hasNext

        override def next(): InternalRow = {
          val row = rows.next()
          if (probing.on) probing.add(row, rows)
          row
        }
      }
    }
  }

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val probe = this.probe
    child.executeColumnar().mapPartitionsWithIndex { (index, batches) =>
      val probing = probe.start(index)
      new Iterator[ColumnarBatch] {
        override def hasNext: Boolean = !probing.gaveUp && batches.hasNext

        override def next(): ColumnarBatch = {
          val batch = batches.next()
          if (probing.on) {
            // The decision falls at the end of a batch: the aggregate takes this one whole.
            val rows = batch.rowIterator().asScala
            while (rows.hasNext && probing.on) {
              probing.add(rows.next(), batches.flatMap(_.rowIterator().asScala), rows.isEmpty)
            }
          }
          batch
        }
      }
    }
  }

  /** What each task needs to probe, without this node. */
  private def probe: Probe = Probe(keys, conditions, child.output, probeRows, skipRatio, handOff,
    longMetric("probedRows"), longMetric("probedKeys"))

  override protected def withNewChildInternal(newChild: SparkPlan): ProbedInputExec =
    copy(child = newChild)
}

/** The probe's settings, sent to each task; `start` begins a partition's probe. */
private final case class Probe(keys: Seq[Expression], conditions: Seq[Expression],
    input: Seq[Attribute], probeRows: Int, skipRatio: Double, handOff: Long,
    probedRows: SQLMetric, probedKeys: SQLMetric) {

  def start(partition: Int): Probing = new Probing(this, partition)
}

/** One partition's probe: on until it has decided; `gaveUp` once it has handed the rest over. */
private final class Probing(probe: Probe, partition: Int) {
  private val hash = UnsafeProjection.create(Seq(new XxHash64(probe.keys)), probe.input)
  hash.initialize(partition)
  private val passes = Predicate.create(
    probe.conditions.reduceOption(And).getOrElse(Literal.TrueLiteral), probe.input)
  passes.initialize(partition)
  private var hashes = new LongSet
  var gaveUp = false

  def on: Boolean = hashes != null

  /**
   * Counts `row`'s key if it passes the filters; once enough have, and `decide` (the end of a
   * batch), decides and hands `rest` over if it gives up.
   */
  def add(row: InternalRow, rest: => Iterator[InternalRow], decide: Boolean = true): Unit = {
    if (passes.eval(row)) hashes.add(hash(row).getLong(0))
    if (decide && hashes.added >= probe.probeRows) {
      probe.probedRows += hashes.added
      probe.probedKeys += hashes.size
      gaveUp = hashes.size > probe.skipRatio * hashes.added && HandOff.give(probe.handOff, rest)
      hashes = null
    }
  }
}

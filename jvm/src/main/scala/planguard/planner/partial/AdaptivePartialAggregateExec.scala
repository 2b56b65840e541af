package planguard.planner.partial

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{And, Attribute, AttributeSeq, AttributeSet,
  Expression, Literal, Predicate, SortOrder, UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

/**
 * A partial aggregate that gives up where it reduces too little (docs/planner.md, "Adaptive
 * partial aggregation"): its child is the partial aggregate over a `ProbedInputExec`. Its rows are
 * the aggregate's — the groups of the rows it took — then, in each partition where the probe gave
 * up, every remaining row the probe read that passes the filters' `conditions`, as a group of its
 * own: `passThrough` over what the probe read (`input`, its attributes), the grouping keys and the
 * aggregation buffer one update from the initial one (`PassThrough`), which is what the final
 * aggregate merges. The output, partitioning and (absent) ordering are the aggregate's.
 */
final case class AdaptivePartialAggregateExec(passThrough: Seq[Expression],
    conditions: Seq[Expression], input: Seq[Attribute], handOff: Long, child: SparkPlan)
    extends UnaryExecNode {

  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = Nil

  // Its expressions read the probe's input, which comes through the hand-off, not from its child:
  // said so, Spark does not print it as an operator missing its input (`!AdaptivePartialAggregate`).
  override def producedAttributes: AttributeSet = AttributeSet(input)

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "partitions" -> SQLMetrics.createMetric(sparkContext, "partitions passed through"),
    "rows" -> SQLMetrics.createMetric(sparkContext, "rows passed through"))

  // What it adds to its aggregate's rows is in its metrics; its expressions are that aggregate's.
  override def argString(maxFields: Int): String = ""

  // Exchange reuse compares canonical plans. The hand-off's number is not part of what it
  // computes; its expressions read the probe's input, not its child's output, so they are
  // normalized against that input, or two copies of one aggregation (a CTE read twice), which
  // differ by their columns' ids, would not be reused.
  override protected def doCanonicalize(): SparkPlan = {
    val probed = AttributeSeq(input)
    def normalized[T <: Expression](e: T): T = QueryPlan.normalizeExpressions(e, probed)
    AdaptivePartialAggregateExec(passThrough.map(normalized), conditions.map(normalized),
      input.map(normalized), 0L, child.canonicalized)
  }

  override protected def doExecute(): RDD[InternalRow] = {
    val (passThrough, input, handOff) = (this.passThrough, this.input, this.handOff)
    val condition = conditions.reduceOption(And).getOrElse(Literal.TrueLiteral)
    val (partitions, passed) = (longMetric("partitions"), longMetric("rows"))
    child.execute().mapPartitionsWithIndex { (index, aggregated) =>
      // The aggregate's rows first: it has read its input to the end (or to where the probe gave
      // up) before its first row comes out, so the hand-off, read after its last, is settled.
      aggregated ++ HandOff.take(handOff).iterator.flatMap { rows =>
        partitions += 1
        val project = UnsafeProjection.create(passThrough, input)
        project.initialize(index)
        val passes = Predicate.create(condition, input)
        passes.initialize(index)
        rows.filter(passes.eval).map { row =>
          passed += 1
          project(row)
        }
      }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): AdaptivePartialAggregateExec =
    copy(child = newChild)
}

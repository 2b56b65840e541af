package planguard.stages

import java.util.IdentityHashMap

import scala.annotation.tailrec
import scala.collection.mutable

import org.apache.spark.sql.catalyst.plans.physical.BroadcastPartitioning
import org.apache.spark.sql.execution.{ExecSubqueryExpression, InSubqueryExec, InputAdapter,
  ReusedSubqueryExec, ScalarSubquery, SparkPlan, SubqueryExec, WholeStageCodegenExec}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, ExchangeQueryStageExec,
  TableCacheQueryStageExec}
import org.apache.spark.sql.execution.exchange.{BroadcastExchangeLike, ReusedExchangeExec,
  ShuffleExchangeLike}

import planguard.exec.CheckBatchSchemaExec
import planguard.shims.{DynamicPruning, ResultStage}
import planguard.stages.StageKind.StageKind

/**
 * Cuts a prepared physical plan into its stages, without executing anything: at every shuffle
 * exchange (upstream of a shuffle read runs in another stage), every broadcast
 * exchange, and every subquery (scalar subqueries and dynamic pruning are planned, run and
 * collected on their own before the stage that uses their value). A reused exchange or subquery
 * is read from the stage that produces it once.
 *
 * An adaptive plan is read where it stands: its initial plan (EnsureRequirements' exchanges)
 * until it runs, its final plan after.
 */
object StageCutter {
  def apply(plan: SparkPlan): StageGraph = new StageCutter().graph(plan)
}

private final class StageCutter {
  private val stages = mutable.ArrayBuffer.empty[Stage]
  // Each exchange or subquery plan that feeds stages -> the stage that produces it.
  private val producers = new IdentityHashMap[SparkPlan, Integer]()
  private val notes = mutable.LinkedHashSet.empty[String]

  def graph(plan: SparkPlan): StageGraph = {
    stage(plan, StageKind.Result, None)
    val consumers = stages.toSeq.flatMap(s => s.inputs.map(_.fromStage -> s.id)).groupBy(_._1)
      .map { case (from, pairs) => from -> pairs.map(_._2) }
    StageGraph(stages.toSeq.map(s => s.copy(consumers = consumers.getOrElse(s.id, Nil).distinct)),
      notes.toSeq)
  }

  /** Adds the stage whose top operator is `top`, after the stages that feed it; its id. */
  private def stage(top: SparkPlan, kind: StageKind, output: Option[BoundaryPartitioning]): Int = {
    val inputs = mutable.ArrayBuffer.empty[StageInput]
    val root = operator(top, inputs)
    val visible = unwrap(top)
    val id = stages.size + 1
    stages += Stage(id, kind, root, inputs.toSeq,
      output.getOrElse(BoundaryPartitioning.of(visible.outputPartitioning)), visible.schema, Nil)
    id
  }

  private def operator(plan: SparkPlan, inputs: mutable.ArrayBuffer[StageInput])
      : StageOperator = {
    val node = unwrap(plan)
    read(node) match {
      case Some(input) =>
        inputs += input
        val name = if (input.exchange == ExchangeKind.Shuffle) ReadOperator.ShuffleRead
          else ReadOperator.BroadcastRead
        StageOperator(name.toString,
          s"stage ${input.fromStage}${if (input.reused) ", reused" else ""}", Nil,
          Seq(inputs.size - 1))
      case None =>
        val subqueries = node.expressions.flatMap(_.collect { case s: ExecSubqueryExpression => s })
        val positions = subqueries.map { s =>
          inputs += subqueryInput(s)
          inputs.size - 1
        }
        StageOperator(OperatorText.name(node), OperatorText.args(node),
          node.children.map(operator(_, inputs)), positions)
    }
  }

  /** Nodes that are no operator of their own: codegen wrappers, planguard's batch check, the
   * adaptive root (read where it stands) and adaptive stage wrappers that are no exchange. */
  @tailrec private def unwrap(plan: SparkPlan): SparkPlan = plan match {
    case w: WholeStageCodegenExec => unwrap(w.child)
    case i: InputAdapter => unwrap(i.child)
    case c: CheckBatchSchemaExec => unwrap(c.child)
    case ResultStage(plan) => unwrap(plan)
    case t: TableCacheQueryStageExec => unwrap(t.plan)
    case a: AdaptiveSparkPlanExec =>
      notes += (if (a.isFinalPlan) {
        "adaptive execution: the final plan, as the query ran"
      } else if (a.executedPlan eq a.initialPlan) {
        "adaptive execution: the initial plan, before any stage ran; at run time Spark may " +
          "coalesce partitions, turn shuffle joins into broadcast joins and split skewed " +
          "partitions, so stages and partition counts can differ"
      } else "adaptive execution: the current plan of a query that is running")
      unwrap(a.executedPlan)
    case other => other
  }

  /** The stage input `plan` reads, when it is an exchange (or an adaptive stage of one). */
  private def read(plan: SparkPlan): Option[StageInput] = plan match {
    case q: ExchangeQueryStageExec => read(q.plan)
    case r: ReusedExchangeExec => read(r.child).map(_.copy(schema = r.schema, reused = true))
    case s: ShuffleExchangeLike =>
      val partitioning = BoundaryPartitioning.of(s.outputPartitioning)
      Some(StageInput(ExchangeKind.Shuffle, partitioning,
        producer(s, s.child, StageKind.ShuffleMap, partitioning),
        s.schema, reused = false))
    case b: BroadcastExchangeLike =>
      val partitioning = b.outputPartitioning match {
        case BroadcastPartitioning(mode) => BoundaryPartitioning.broadcast(mode, b.child.output)
        case other => BoundaryPartitioning.of(other)
      }
      Some(StageInput(ExchangeKind.Broadcast, partitioning,
        producer(b, b.child, StageKind.Broadcast, partitioning),
        b.schema, reused = false))
    case _ => None
  }

  private def subqueryInput(s: ExecSubqueryExpression): StageInput = {
    val exchange = s match {
      case _: ScalarSubquery => ExchangeKind.ScalarSubquery
      case i: InSubqueryExec if DynamicPruning.is(i) => ExchangeKind.DynamicPruning
      case _ => ExchangeKind.Subquery
    }
    val (plan, reused) = s.plan match {
      case r: ReusedSubqueryExec => (r.child, true)
      case p => (p, false)
    }
    // SubqueryExec only collects its child; the broadcast subqueries of dynamic pruning are
    // operators of their own, over the broadcast they reuse.
    val top = plan match {
      case SubqueryExec(_, child, _) => child
      case other => other
    }
    StageInput(exchange, BoundaryPartitioning.CollectedResult,
      producer(plan, top, StageKind.Subquery, BoundaryPartitioning.CollectedResult), s.plan.schema,
      reused)
  }

  private def producer(boundary: SparkPlan, top: SparkPlan, kind: StageKind,
      output: BoundaryPartitioning): Int = {
    val known = producers.get(boundary)
    if (known != null) known.intValue
    else {
      val id = stage(top, kind, Some(output))
      producers.put(boundary, id)
      id
    }
  }
}

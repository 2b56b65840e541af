package planguard.planner.partial

import java.util.concurrent.ThreadLocalRandom

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeMap, Expression, If,
  PlanExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{DeclarativeAggregate, Partial}
import org.apache.spark.sql.execution.{FilterExec, ProjectExec, SparkPlan}
import org.apache.spark.sql.execution.aggregate.HashAggregateExec
import org.apache.spark.sql.internal.SQLConf

import planguard.conf.PlanGuardConf

/**
 * Adaptive partial aggregation (docs/planner.md): a partial hash aggregate below a shuffle probes
 * its first rows per partition and, where their keys are nearly all distinct, passes the rest
 * through in the form the final aggregate merges, instead of hashing rows it cannot reduce
 * before the shuffle. Only where that form is Spark's own, computed from expressions: a grouped
 * partial aggregate whose functions are all declarative (sum, count, avg, min, max, first, last,
 * the statistical moments, bit and boolean aggregates, ...), FILTER clauses included; grouping
 * sets (the Expand below it) and the first phase of a DISTINCT aggregation qualify. Imperative
 * functions (collect_list, percentile, approx_count_distinct, ...) keep a plain partial aggregate.
 *
 * The probe goes below the projections and filters right under the aggregate (their expressions
 * deterministic, without subqueries), its keys and the rows passed through computed over what
 * they read, and the filters' conditions applied to those rows: where they read a columnar scan,
 * the probe reads its batches, and the scan, the filters, the projections and the aggregate still
 * run as one generated stage.
 */
object AdaptivePartialAggregation {

  /** `aggregate` as the child of a shuffle: adaptive where it qualifies. */
  def belowShuffle(aggregate: SparkPlan, conf: SQLConf): SparkPlan = aggregate match {
    case agg: HashAggregateExec =>
      passThrough(agg).fold(aggregate) { expressions =>
        val handOff = ThreadLocalRandom.current().nextLong(1L, Long.MaxValue)
        val below = Below(agg.groupingExpressions, expressions, Nil, agg.child, identity).down
        val probed = ProbedInputExec(below.keys, below.conditions,
          PlanGuardConf.partialAggregationProbeRows(conf),
          PlanGuardConf.partialAggregationSkipRatio(conf), handOff, below.input)
        linked(probed, below.input)
        AdaptivePartialAggregateExec(below.passThrough, below.conditions, below.input.output,
          handOff, agg.withNewChildren(Seq(below.rebuilt(probed))))
      }
    case _ => aggregate
  }

  /**
   * The probe passes its input's rows on, and stands for the same logical plan. Every node needs
   * a logical link, or adaptive execution silently leaves the whole query static: where the
   * projection or filter above the probe was planned with a link of its own, Spark's planner does
   * not carry its aggregate's link down past it.
   */
  private def linked(probed: SparkPlan, input: SparkPlan): Unit =
    input.logicalLink.foreach(probed.setTagValue(SparkPlan.LOGICAL_PLAN_INHERITED_TAG, _))

  /**
   * The aggregate's keys and pass-through expressions, and the conditions of the filters passed
   * on the way, over `input`'s output; `rebuilt` puts the projections and filters passed back
   * over a new input.
   */
  private final case class Below(keys: Seq[Expression], passThrough: Seq[Expression],
      conditions: Seq[Expression], input: SparkPlan, rebuilt: SparkPlan => SparkPlan) {

    def down: Below = input match {
      case p: ProjectExec if pushable(p.projectList) =>
        val aliases = AttributeMap(p.projectList.collect { case a: Alias => a.toAttribute -> a.child })
        def over(e: Expression): Expression =
          e.transformUp { case a: Attribute if aliases.contains(a) => aliases(a) }
        Below(keys.map(over), passThrough.map(over), conditions.map(over), p.child,
          child => rebuilt(p.withNewChildren(Seq(child)))).down
      case f: FilterExec if pushable(Seq(f.condition)) =>
        Below(keys, passThrough, f.condition +: conditions, f.child,
          child => rebuilt(f.withNewChildren(Seq(child)))).down
      case _ => this
    }

    private def pushable(expressions: Seq[Expression]): Boolean =
      expressions.forall(e => e.deterministic && !e.exists(_.isInstanceOf[PlanExpression[_]]))
  }

  /**
   * What the partial aggregate outputs for a group of one input row, over its input: the grouping
   * keys, then each function's buffer once updated from its initial values (kept initial where the
   * FILTER clause rejects the row), in the order the aggregate writes them (AggregationIterator's
   * partial result: grouping attributes, then buffers). None where the aggregate does not qualify.
   */
  private def passThrough(agg: HashAggregateExec): Option[Seq[Expression]] = {
    val functions = agg.aggregateExpressions
    val grouping = agg.groupingExpressions.map(_.toAttribute)
    val qualifies = grouping.nonEmpty && !agg.isStreaming && functions.forall { f =>
      f.mode == Partial && !f.isDistinct && f.aggregateFunction.isInstanceOf[DeclarativeAggregate]
    }
    val written: Seq[Attribute] =
      grouping ++ functions.flatMap(_.aggregateFunction.inputAggBufferAttributes)
    if (!qualifies || agg.output.map(_.exprId) != written.map(_.exprId)) None
    else Some(agg.groupingExpressions ++ functions.flatMap { f =>
      val function = f.aggregateFunction.asInstanceOf[DeclarativeAggregate]
      val initial = AttributeMap(function.aggBufferAttributes.zip(function.initialValues))
      function.updateExpressions.zip(function.initialValues).map { case (update, start) =>
        val once = update.transform { case a: Attribute if initial.contains(a) => initial(a) }
        f.filter.fold(once)(If(_, once, start))
      }
    })
  }
}

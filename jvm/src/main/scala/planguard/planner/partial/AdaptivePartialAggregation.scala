package planguard.planner.partial

import java.util.concurrent.ThreadLocalRandom

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeMap, Expression, If}
import org.apache.spark.sql.catalyst.expressions.aggregate.{DeclarativeAggregate, Partial}
import org.apache.spark.sql.execution.SparkPlan
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
 */
object AdaptivePartialAggregation {

  /** `aggregate` as the child of a shuffle: adaptive where it qualifies and the conf says so. */
  def belowShuffle(aggregate: SparkPlan, conf: SQLConf): SparkPlan = aggregate match {
    case agg: HashAggregateExec if PlanGuardConf.adaptivePartialAggregation(conf) =>
      passThrough(agg).fold(aggregate) { expressions =>
        val handOff = ThreadLocalRandom.current().nextLong(1L, Long.MaxValue)
        val probed = ProbedInputExec(agg.groupingExpressions,
          PlanGuardConf.partialAggregationProbeRows(conf),
          PlanGuardConf.partialAggregationSkipRatio(conf), handOff, agg.child)
        AdaptivePartialAggregateExec(expressions, agg.child.output, handOff,
          agg.withNewChildren(Seq(probed)))
      }
    case _ => aggregate
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

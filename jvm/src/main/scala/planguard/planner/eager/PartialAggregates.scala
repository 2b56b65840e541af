package planguard.planner.eager

import org.apache.spark.sql.catalyst.expressions.{Alias, Cast, Coalesce, Divide,
  EqualTo, Expression, If, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression,
  AggregateFunction, Average, Complete, Count, Max, Min, Sum}
import org.apache.spark.sql.types.{DataType, DecimalType, DoubleType, NumericType}

/**
 * An aggregate function split in two for eager aggregation: the partial results computed below a
 * join (`below`, each an aliased aggregate over the rows of one side, with the function's FILTER)
 * and the aggregate over them that gives the function's result above the join (`above`, of the
 * same type). The join repeats each partial row as it would repeat each row it sums up, so the
 * split is exact for sums (in the last bits of floating point sums: the order of additions
 * changes), counts, averages (a sum over a count), minima and maxima. Other functions, DISTINCT
 * ones and DECIMAL averages (whose result type and rounding are their own) are not split.
 */
private[eager] final case class PartialAggregates(below: Seq[Alias], above: Expression)

private[eager] object PartialAggregates {

  def of(f: AggregateExpression): Option[PartialAggregates] =
    if (f.isDistinct || f.mode != Complete) None
    else f.aggregateFunction match {
      case sum: Sum =>
        val partial = aliased(f, sum, "partial_sum")
        val total = sum.withNewChildren(Seq(partial.toAttribute)).asInstanceOf[Sum]
        Some(PartialAggregates(Seq(partial), castTo(whole(total), sum.dataType)))
      case count: Count =>
        val partial = aliased(f, count, "partial_count")
        Some(PartialAggregates(Seq(partial),
          Coalesce(Seq(whole(Sum(partial.toAttribute)), Literal(0L)))))
      case m @ (_: Min | _: Max) =>
        val partial = aliased(f, m, "partial_" + m.prettyName)
        Some(PartialAggregates(Seq(partial), whole(m.withNewChildren(Seq(partial.toAttribute))
          .asInstanceOf[AggregateFunction])))
      case avg: Average if avg.child.dataType.isInstanceOf[NumericType] &&
          !avg.child.dataType.isInstanceOf[DecimalType] =>
        val sum = aliased(f, Sum(Cast(avg.child, DoubleType)), "partial_avg_sum")
        val count = aliased(f, Count(avg.child), "partial_avg_count")
        val (sums, counts) = (whole(Sum(sum.toAttribute)), whole(Sum(count.toAttribute)))
        Some(PartialAggregates(Seq(sum, count), If(EqualTo(counts, Literal(0L)),
          Literal(null, DoubleType), Divide(sums, Cast(counts, DoubleType)))))
      case _ => None
    }

  /** `function` over the side's rows, with `f`'s FILTER, as a column of its own. */
  private def aliased(f: AggregateExpression, function: AggregateFunction, name: String): Alias =
    Alias(AggregateExpression(function, Complete, isDistinct = false, filter = f.filter), name)()

  private def whole(function: AggregateFunction): AggregateExpression =
    function.toAggregateExpression()

  private def castTo(e: Expression, to: DataType): Expression =
    if (e.dataType == to) e else Cast(e, to)
}

package planguard.testing

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.expressions.{Alias, And, Ascending, Attribute, Descending,
  EqualTo, Expression, LessThan, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, First}
import org.apache.spark.sql.catalyst.optimizer.BuildRight
import org.apache.spark.sql.catalyst.plans.Inner
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Filter, Join, JoinHint, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{SortExec, SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.execution.joins.ShuffledHashJoinExec

// Deliberately broken rules that change a query's rows and not its schema, nor anything an
// operator declares: no planguard check can see them; the differential mode (the same query
// under another legal plan) does. Each is on unless the session conf
// `planguard.testing.<RuleName>` is false.

/** An optimizer rule that drops each `<` conjunct of a filter of two conjuncts or more. */
object DropFilterConjunct extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = if (!Switch.on(this)) plan else {
    plan.transform {
      case f @ Filter(And(_, _), _) if conjuncts(f.condition).exists(_.isInstanceOf[LessThan]) =>
        f.copy(condition = conjuncts(f.condition).filterNot(_.isInstanceOf[LessThan])
          .reduce(And(_, _)))
    }
  }

  private def conjuncts(e: Expression): Seq[Expression] = e match {
    case And(l, r) => conjuncts(l) ++ conjuncts(r)
    case other => Seq(other)
  }
}

/**
 * A planner strategy that plans an inner join on one column pair, where no hint asks for a
 * strategy, as a shuffled hash join whose build side keeps one row per key: the matches of
 * duplicate build keys are lost.
 */
object DuplicateKeysIgnoringJoin extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case Join(left, right, Inner, Some(EqualTo(l: Attribute, r: Attribute)), JoinHint.NONE)
        if Switch.on(this) && left.outputSet.contains(l) && right.outputSet.contains(r) =>
      val oneRowPerKey = Aggregate(Seq(r), right.output.map { a =>
        if (a.exprId == r.exprId) a
        else Alias(First(a, false).toAggregateExpression(), a.name)(exprId = a.exprId)
      }: Seq[NamedExpression], right)
      Seq(ShuffledHashJoinExec(Seq(l), Seq(r), Inner, BuildRight, None, planLater(left),
        planLater(oneRowPerKey)))
    case _ => Nil
  }
}

/**
 * A planner strategy that plans an aggregation whose aggregates are all DISTINCT as if none were:
 * the duplicates are counted (the shape of a distinct aggregation's phases gone wrong).
 */
object DistinctIgnoringAggregation extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case a: Aggregate if Switch.on(this) && functions(a).nonEmpty &&
        functions(a).forall(_.isDistinct) =>
      planLater(a.copy(aggregateExpressions = a.aggregateExpressions.map(_.transform {
        case f: AggregateExpression => f.copy(isDistinct = false)
      }.asInstanceOf[NamedExpression]))) :: Nil
    case _ => Nil
  }

  private def functions(a: Aggregate): Seq[AggregateExpression] =
    a.aggregateExpressions.flatMap(_.collect { case f: AggregateExpression => f })
}

/**
 * A sort that declares the order it is given and sorts the other way: what ReverseRangeSort puts
 * in place of a global sort over a range shuffle (the plan of an ORDER BY without adaptive
 * execution; with it, the sort reads a query stage and is left alone).
 */
final class ReversingSortExec(order: Seq[SortOrder], global: Boolean, child: SparkPlan,
    testSpillFrequency: Int)
  extends SortExec(order, global, child, testSpillFrequency) with Impostor {
  override def supportCodegen: Boolean = false
  override protected def doExecute() = SortExec(order.map(reversed), global, child).execute()
  override protected def withNewChildInternal(c: SparkPlan): SortExec =
    new ReversingSortExec(order, global, c, testSpillFrequency)

  private def reversed(o: SortOrder): SortOrder =
    SortOrder(o.child, if (o.direction == Ascending) Descending else Ascending)
}

/** A columnar rule that puts a ReversingSortExec in place of a global sort over a shuffle. */
object ReverseRangeSort extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = if (!Switch.on(this)) plan else {
    plan.transformUp {
      case s @ SortExec(order, true, child: ShuffleExchangeExec, spill)
          if !s.isInstanceOf[Impostor] => new ReversingSortExec(order, true, child, spill)
    }
  }
}

class DropFilterConjunctExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectOptimizerRule(_ => DropFilterConjunct)
}

class DuplicateKeysIgnoringJoinExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectPlannerStrategy(_ => DuplicateKeysIgnoringJoin)
}

class DistinctIgnoringAggregationExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectPlannerStrategy(_ => DistinctIgnoringAggregation)
}

class ReverseRangeSortExtension extends ColumnarExtension(ReverseRangeSort)

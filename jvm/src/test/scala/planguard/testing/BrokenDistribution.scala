package planguard.testing

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.expressions.aggregate.Final
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{CoalescedPartitionSpec, ColumnarRule, SortExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{AQEShuffleReadExec, ShuffleQueryStageExec}
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.execution.joins.{ShuffledJoin, SortMergeJoinExec}

// Deliberately broken physical rules that undo what EnsureRequirements put in place
// (DISTRIBUTION). Each is on unless the session conf `planguard.testing.<ClassName>` is false.

/** Removes the exchange under a final aggregate: each partition then returns its own groups. */
object RemoveFinalAggregateExchange extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = if (!Switch.on(this)) plan else {
    plan.transformUp {
      case agg: BaseAggregateExec if agg.aggregateExpressions.exists(_.mode == Final) =>
        agg.child match {
          case exchange: ShuffleExchangeExec => agg.withNewChildren(Seq(exchange.child))
          case _ => agg
        }
    }
  }
}

/** Shuffles a shuffled join's right side into one partition more than its left side. */
object MismatchJoinPartitions extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = if (!Switch.on(this)) plan else {
    plan.transformUp {
      case join: ShuffledJoin => join.withNewChildren(Seq(join.left, onePartitionMore(join.right)))
    }
  }

  private def onePartitionMore(side: SparkPlan): SparkPlan = side match {
    case sort: SortExec => sort.withNewChildren(Seq(onePartitionMore(sort.child)))
    // Not ShuffleExchangeExec's extractor: Spark 4.3 adds a field to it.
    case e: ShuffleExchangeExec if e.outputPartitioning.isInstanceOf[HashPartitioning] =>
      val h = e.outputPartitioning.asInstanceOf[HashPartitioning]
      e.copy(outputPartitioning = h.copy(numPartitions = h.numPartitions + 1))
    case other => other
  }
}

/**
 * With adaptive execution: reads a shuffled join's right stage coalesced into two partitions,
 * whatever its left side has. Spark validates the coalescing of its own shuffle-read rules, not
 * that of extensions' query-stage optimizer rules.
 */
object CoalesceJoinRightSide extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = if (!Switch.on(this)) plan else {
    plan.transformUp {
      case join: ShuffledJoin => join.withNewChildren(Seq(join.left, inTwo(join.right)))
    }
  }

  private def inTwo(side: SparkPlan): SparkPlan = side match {
    case sort: SortExec => sort.withNewChildren(Seq(inTwo(sort.child)))
    case read: AQEShuffleReadExec => inTwo(read.child)
    case stage: ShuffleQueryStageExec if stage.outputPartitioning.numPartitions > 2 =>
      val n = stage.outputPartitioning.numPartitions
      AQEShuffleReadExec(stage,
        Seq(CoalescedPartitionSpec(0, n - 1), CoalescedPartitionSpec(n - 1, n)))
    case other => other
  }
}

/** Removes the sort under each side of a sort-merge join: the merge then misses matches. */
object RemoveMergeJoinSort extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = if (!Switch.on(this)) plan else {
    plan.transformUp {
      case join: SortMergeJoinExec => join.withNewChildren(join.children.map {
        case sort: SortExec => sort.child
        case other => other
      })
    }
  }
}

/** Each rule as a columnar rule before the transitions: a non-adaptive preparation rule. */
abstract class ColumnarExtension(rule: Rule[SparkPlan]) extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectColumnar((_: SparkSession) =>
    new ColumnarRule { override def preColumnarTransitions: Rule[SparkPlan] = rule })
}

/** Each rule as an adaptive query-stage preparation rule. */
abstract class StagePrepExtension(rule: Rule[SparkPlan])
  extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectQueryStagePrepRule(_ => rule)
}

class RemoveFinalAggregateExchangeExtension
  extends ColumnarExtension(RemoveFinalAggregateExchange)
class RemoveFinalAggregateExchangeStagePrepExtension
  extends StagePrepExtension(RemoveFinalAggregateExchange)
class MismatchJoinPartitionsExtension extends ColumnarExtension(MismatchJoinPartitions)
class RemoveMergeJoinSortExtension extends ColumnarExtension(RemoveMergeJoinSort)
class RemoveMergeJoinSortStagePrepExtension extends StagePrepExtension(RemoveMergeJoinSort)

/** CoalesceJoinRightSide as an adaptive query-stage optimizer rule. */
class CoalesceJoinRightSideExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectQueryStageOptimizerRule(_ => CoalesceJoinRightSide)
}

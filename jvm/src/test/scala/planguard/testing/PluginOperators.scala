package planguard.testing

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec
import org.apache.spark.sql.execution.exchange.Exchange
import org.apache.spark.sql.vectorized.ColumnarBatch

// Honest operators and rules that stand for a plugin that runs plans natively and columnar
// (Apache DataFusion Comet): a columnar root under a transition, an operator that replaced
// Spark's and keeps it.

/** An honest columnar operator, as a plugin's are (Comet's): hands its child's batches on. */
final case class PassBatchesExec(child: SparkPlan) extends UnaryExecNode {
  override def output: Seq[Attribute] = child.output
  override def supportsColumnar: Boolean = true

  override protected def doExecute(): RDD[InternalRow] =
    throw new UnsupportedOperationException("columnar only")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = child.executeColumnar()

  override protected def withNewChildInternal(c: SparkPlan): PassBatchesExec = copy(child = c)
}

/**
 * Runs a plan's root as batches, as a plugin that runs whole plans columnar does (Comet): Spark
 * then puts a ColumnarToRowExec, which has no logical link, on top of the plan. Not on an
 * adaptive plan or an exchange (a stage's root), which a plugin converts in its own way.
 */
object ColumnarRoot extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = plan match {
    case _: PassBatchesExec | _: AdaptiveSparkPlanExec | _: Exchange => plan
    case p if !p.supportsColumnar => PassBatchesExec(p)
    case other => other
  }
}

class ColumnarRootExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectColumnar((_: SparkSession) =>
    new ColumnarRule { override def preColumnarTransitions: Rule[SparkPlan] = ColumnarRoot })
}

/**
 * Stands in for the Spark operator it replaced and does its work, as a plugin's native operator
 * does (Comet's keep it as `originalPlan`), declaring no requirement of its child.
 */
final case class StandInExec(originalPlan: SparkPlan, child: SparkPlan) extends UnaryExecNode {
  override def output: Seq[Attribute] = originalPlan.output

  override protected def doExecute(): RDD[InternalRow] =
    originalPlan.withNewChildren(Seq(child)).execute()

  override protected def withNewChildInternal(c: SparkPlan): StandInExec = copy(child = c)
}

/** Replaces each final aggregate by a StandInExec, as Comet replaces it by its own. */
object StandInFinalAggregate extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = plan.transformUp {
    case agg: org.apache.spark.sql.execution.aggregate.BaseAggregateExec
        if agg.aggregateExpressions.exists(
          _.mode == org.apache.spark.sql.catalyst.expressions.aggregate.Final) =>
      StandInExec(agg, agg.child)
  }
}

class StandInFinalAggregateExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectColumnar((_: SparkSession) =>
    new ColumnarRule {
      override def preColumnarTransitions: Rule[SparkPlan] = StandInFinalAggregate
    })
}

class StandInFinalAggregateStagePrepExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectQueryStagePrepRule(_ => StandInFinalAggregate)
}

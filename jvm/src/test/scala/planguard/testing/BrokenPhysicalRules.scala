package planguard.testing

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, ProjectExec, SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.internal.SQLConf

// Deliberately broken physical rules: each reverses a projection's columns where Spark would not.
// Each is on unless the session conf `planguard.testing.<ClassName>` is false.

private object Switch {
  def on(owner: AnyRef): Boolean = SQLConf.get.getConfString(
    s"planguard.testing.${owner.getClass.getSimpleName.stripSuffix("$")}", "true") == "true"

  def reversed(list: Seq[org.apache.spark.sql.catalyst.expressions.NamedExpression]) =
    if (list.size >= 2 && list != list.sortBy(_.name).reverse) Some(list.sortBy(_.name).reverse)
    else None
}

/** A planner strategy that plans a projection with its columns reversed (PLANNING_SCHEMA). */
object ReversingProjectStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case Project(list, child) if Switch.on(this) =>
      Switch.reversed(list).map(l => ProjectExec(l, planLater(child))).toSeq
    case _ => Nil
  }
}

/** A preparation rule that reverses the root projection's columns (PHYSICAL_SCHEMA). */
object ReverseRootProjectExec extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = plan match {
    case p @ ProjectExec(list, _) if Switch.on(this) =>
      Switch.reversed(list).map(l => p.copy(projectList = l)).getOrElse(p)
    case other => other
  }
}

/**
 * A preparation rule that reverses the columns of the projection under a root shuffle, the plan
 * of a query that ends in a repartition (PHYSICAL_SCHEMA).
 */
object ReverseProjectUnderRootShuffle extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = plan match {
    case shuffle: ShuffleExchangeExec if Switch.on(this) => shuffle.child match {
      case p @ ProjectExec(list, _) =>
        Switch.reversed(list).map(l => shuffle.withNewChildren(Seq(p.copy(projectList = l))))
          .getOrElse(shuffle)
      case _ => shuffle
    }
    case other => other
  }
}

class ReversingProjectStrategyExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectPlannerStrategy(_ => ReversingProjectStrategy)
}

/** ReverseRootProjectExec as a columnar pre-transition rule: a non-adaptive preparation rule. */
class ReverseRootProjectExecExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectColumnar((_: SparkSession) =>
    new ColumnarRule { override def preColumnarTransitions: Rule[SparkPlan] = ReverseRootProjectExec })
}

/** ReverseRootProjectExec as an adaptive query-stage preparation rule. */
class ReverseRootProjectExecStagePrepExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectQueryStagePrepRule(_ => ReverseRootProjectExec)
}

/** ReverseRootProjectExec as an adaptive query-stage optimizer rule: on each stage as it is cut. */
class ReverseRootProjectExecStageOptimizerExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectQueryStageOptimizerRule(_ => ReverseRootProjectExec)
}

/** ReverseRootProjectExec as an adaptive post-planner-strategy rule (Spark 3.5.1 and later). */
class ReverseRootProjectExecPostPlannerExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectQueryPostPlannerStrategyRule(_ => ReverseRootProjectExec)
}

package planguard.testing

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.expressions.{Alias, Cast, KnownNullable, NamedExpression}
import org.apache.spark.sql.catalyst.plans.Inner
import org.apache.spark.sql.catalyst.plans.logical.{Command, Join, JoinHint, LogicalPlan, Project,
  Sort}
import org.apache.spark.sql.execution.datasources.WriteFiles
import org.apache.spark.sql.execution.datasources.v2.WriteToDataSourceV2
import org.apache.spark.sql.execution.streaming.sources.WriteToMicroBatchDataSource
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{IntegerType, StringType}

// Deliberately broken (and deliberately legal) optimizer rules that planguard's tests install
// next to planguard, in either order. Each acts on the query's result root only (under a write
// command: the query it writes) and is idempotent, so the optimizer's fixed-point batches settle.

/**
 * A test rule acting on the plan whose rows the query returns or writes. Each rule is on unless
 * the session conf `planguard.testing.<RuleName>` is false, so one session can switch them.
 */
abstract class ResultRootRule extends Rule[LogicalPlan] {
  protected def rewrite: PartialFunction[LogicalPlan, LogicalPlan]

  override def apply(plan: LogicalPlan): LogicalPlan =
    if (SQLConf.get.getConfString(switch, "true") == "true") {
      onResultRoot(plan)
    } else plan

  // A root sort returns its child's rows in order: the rule acts on the child.
  private def onResultRoot(plan: LogicalPlan): LogicalPlan = plan match {
    case c: Command if c.children.size == 1 => c.withNewChildren(Seq(onResultRoot(c.children.head)))
    case w: WriteFiles => w.withNewChildren(Seq(onResultRoot(w.child)))
    // A streaming micro-batch's write into a DataSource V2 sink, as analyzed and as optimized.
    case w @ (_: WriteToMicroBatchDataSource | _: WriteToDataSourceV2) =>
      w.withNewChildren(Seq(onResultRoot(w.children.head)))
    case s: Sort => s.withNewChildren(Seq(onResultRoot(s.child)))
    case _ => rewrite.applyOrElse(plan, identity[LogicalPlan])
  }

  private val switch = s"planguard.testing.${getClass.getSimpleName.stripSuffix("$")}"
}

/** Broken: orders the root projection's columns by descending name, e.g. (a, b) -> (b, a). */
object SwapRootColumns extends ResultRootRule {
  override protected val rewrite: PartialFunction[LogicalPlan, LogicalPlan] = {
    case p @ Project(list, _) if list.size >= 2 && list != list.sortBy(_.name).reverse =>
      p.copy(projectList = list.sortBy(_.name).reverse)
  }
}

/** Broken: the root projection's first int column becomes a string of the same name and id. */
object CastRootColumn extends ResultRootRule {
  override protected val rewrite: PartialFunction[LogicalPlan, LogicalPlan] = {
    case p @ Project(list, _) if list.exists(_.dataType == IntegerType) =>
      val i = list.indexWhere(_.dataType == IntegerType)
      val e = list(i)
      p.copy(projectList = list.updated(i,
        Alias(Cast(e.toAttribute, StringType), e.name)(exprId = e.exprId): NamedExpression))
  }
}

/** Legal: the root projection's first non-null alias is declared nullable, values unchanged. */
object LoosenRootNullability extends ResultRootRule {
  override protected val rewrite: PartialFunction[LogicalPlan, LogicalPlan] = {
    case p @ Project(list, _) if list.exists(notNullAlias) =>
      val i = list.indexWhere(notNullAlias)
      val a = list(i).asInstanceOf[Alias]
      p.copy(projectList = list.updated(i, Alias(KnownNullable(a.child), a.name)(a.exprId)))
  }

  private def notNullAlias(e: NamedExpression): Boolean = e match {
    case a: Alias => !a.nullable
    case _ => false
  }
}

/** Legal for a non-projected plan: puts the root inner join's sides in descending name order. */
object SwapRootJoinSides extends ResultRootRule {
  override protected val rewrite: PartialFunction[LogicalPlan, LogicalPlan] = {
    case j @ Join(l, r, Inner, _, hint) if l.output.head.name < r.output.head.name =>
      j.copy(left = r, right = l, hint = JoinHint(hint.rightHint, hint.leftHint))
  }
}

class SwapRootColumnsExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectOptimizerRule(_ => SwapRootColumns)
}

/** SwapRootColumns where the optimizer runs the rules extensions inject before cost-based ones. */
class SwapRootColumnsPreCBOExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectPreCBORule(_ => SwapRootColumns)
}

/** SwapRootColumns as a plan normalization rule: it runs on the analyzed plan, before the optimizer. */
class SwapRootColumnsNormalizationExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectPlanNormalizationRule(_ => SwapRootColumns)
}

class CastRootColumnExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectOptimizerRule(_ => CastRootColumn)
}

class LoosenRootNullabilityExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectOptimizerRule(_ => LoosenRootNullability)
}

class SwapRootJoinSidesExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectOptimizerRule(_ => SwapRootJoinSides)
}

/** SwapRootColumns as an adaptive runtime (re-)optimizer rule. */
class SwapRootColumnsRuntimeExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectRuntimeOptimizerRule(_ => SwapRootColumns)
}

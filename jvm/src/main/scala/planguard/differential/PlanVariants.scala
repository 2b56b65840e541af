package planguard.differential

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Alias, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{BROADCAST, HintInfo, Join, JoinHint,
  JoinStrategyHint, LogicalPlan, Project, SHUFFLE_HASH, SHUFFLE_MERGE}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec
import org.apache.spark.sql.execution.columnar.InMemoryRelation
import org.apache.spark.sql.internal.SQLConf

/**
 * The plan variants of planguard's differential mode that no Spark conf gives, as an optimizer
 * rule that runs last (a session's `experimental.extraOptimizations`, after every join, those of
 * subqueries included, is made) and does nothing unless its session confs ask:
 *  - `planguard.differential.join` = `<n>:<BROADCAST|SHUFFLE_HASH|SHUFFLE_MERGE>:<left|right>`:
 *    the n-th join of the optimized plan (0-based, pre-order) gets that strategy hint on that
 *    side, its other hints dropped; Spark's planner takes it where the join allows it;
 *  - `planguard.differential.uncached` = `true`: each cached input (`InMemoryRelation`) is
 *    replaced by the optimized plan it caches, so that its rows are computed, not read.
 */
object PlanVariants extends Rule[LogicalPlan] {
  val JoinKey = "planguard.differential.join"
  val UncachedKey = "planguard.differential.uncached"

  private val strategies: Map[String, JoinStrategyHint] =
    Map("BROADCAST" -> BROADCAST, "SHUFFLE_HASH" -> SHUFFLE_HASH, "SHUFFLE_MERGE" -> SHUFFLE_MERGE)

  /** Puts the rule in the session's optimizer, once; the session's confs switch it. */
  def install(session: SparkSession): Unit = synchronized {
    val experimental = session.experimental
    if (!experimental.extraOptimizations.contains(this)) {
      experimental.extraOptimizations = experimental.extraOptimizations :+ this
    }
  }

  /** The joins of an optimized plan, in the order the join key numbers them: their types. */
  def joinTypes(plan: LogicalPlan): String =
    plan.collect { case j: Join => j.joinType.toString }.mkString(",")

  /** Whether the optimized plan reads a cached input. */
  def readsCache(plan: LogicalPlan): Boolean = plan.find(_.isInstanceOf[InMemoryRelation]).isDefined

  override def apply(plan: LogicalPlan): LogicalPlan = {
    val conf = SQLConf.get
    val read = if (conf.getConfString(UncachedKey, "false") == "true") uncached(plan) else plan
    conf.getConfString(JoinKey, "").split(":") match {
      case Array(n, strategy, side) => hinted(read, n.toInt, strategies(strategy), side == "left")
      case _ => read
    }
  }

  private def hinted(plan: LogicalPlan, n: Int, strategy: JoinStrategyHint,
      left: Boolean): LogicalPlan = {
    val hint = Some(HintInfo(strategy = Some(strategy)))
    val wanted = if (left) JoinHint(hint, None) else JoinHint(None, hint)
    var seen = -1
    plan.transformDown {
      case j: Join =>
        seen += 1
        if (seen == n && j.hint != wanted) j.copy(hint = wanted) else j
    }
  }

  private def uncached(plan: LogicalPlan): LogicalPlan = plan.transformDown {
    case cached: InMemoryRelation => source(cached).getOrElse(cached)
  }

  /**
   * The optimized plan a cached input was made of (the logical plan its physical plan was planned
   * from), its columns renamed to the input's: its rows, computed again.
   */
  private def source(cached: InMemoryRelation): Option[LogicalPlan] =
    linked(cached.cacheBuilder.cachedPlan).map { logical =>
      Project(cached.output.zip(logical.output).map { case (to, from) =>
        Alias(from, to.name)(exprId = to.exprId): NamedExpression }, logical)
    }

  // The nodes preparation puts above the planned root (whole-stage codegen, adaptive execution)
  // have no logical plan: the first node down that has one.
  private def linked(plan: SparkPlan): Option[LogicalPlan] = plan match {
    case adaptive: AdaptiveSparkPlanExec => linked(adaptive.inputPlan)
    case p => p.logicalLink.filter(_.output.size == p.output.size).orElse(
      if (p.children.size == 1) linked(p.children.head) else None)
  }
}

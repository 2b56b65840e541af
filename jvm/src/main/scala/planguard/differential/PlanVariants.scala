package planguard.differential

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Expression, NamedExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression,
  AggregateFunction}
import org.apache.spark.sql.catalyst.optimizer.{BuildLeft, BuildSide}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, BROADCAST, HintInfo, Join,
  JoinHint, JoinStrategyHint, LogicalPlan, Project, SHUFFLE_HASH, SHUFFLE_MERGE}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec
import org.apache.spark.sql.execution.columnar.InMemoryRelation
import org.apache.spark.sql.execution.joins.{BaseJoinExec, BroadcastHashJoinExec,
  BroadcastNestedLoopJoinExec, CartesianProductExec, HashJoin, SortMergeJoinExec}
import org.apache.spark.sql.internal.SQLConf

import planguard.conf.PlanGuardConf

/**
 * The plan variants of planguard's differential mode that no Spark conf gives, as an optimizer
 * rule that runs last (a session's `experimental.extraOptimizations`, after every join, those of
 * subqueries included, is made) and does nothing unless its session confs ask (confs.json; the
 * differential mode sets them for the length of one run):
 *  - `spark.planguard.differential.joinHint` (`broadcast_left`, ..., `shuffle_merge`) and
 *    `joinNumber`: the join of that number in the optimized plan (1 for the first, pre-order)
 *    gets that strategy hint on that side, its other hints dropped; Spark's planner takes it
 *    where the join allows it;
 *  - `spark.planguard.differential.uncached` = `true`: each cached input (`InMemoryRelation`) is
 *    replaced by the optimized plan it caches, so that its rows are computed, not read;
 *  - `spark.planguard.differential.distinctAsGroups` = `true`: each aggregation whose aggregates
 *    are all DISTINCT over the same arguments (`count(DISTINCT x)`, which Spark plans with the
 *    distinct aggregation's own phases, or leaves to RewriteDistinctAggregates) is computed as
 *    two: a grouping by its keys and those arguments, which removes the duplicates, then the
 *    aggregates without DISTINCT over it.
 */
object PlanVariants extends Rule[LogicalPlan] {
  /** Each value of `joinHint` but `none`: the strategy, and whether it is on the left side. */
  private val hints: Map[String, (JoinStrategyHint, Boolean)] = Map(
    "broadcast_left" -> (BROADCAST, true), "broadcast_right" -> (BROADCAST, false),
    "shuffle_hash_left" -> (SHUFFLE_HASH, true), "shuffle_hash_right" -> (SHUFFLE_HASH, false),
    "shuffle_merge" -> (SHUFFLE_MERGE, true))

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

  /**
   * How Spark planned the join of a query's optimized plan that `number` numbers (as `joinNumber`
   * does: 1 for the first, pre-order), before adaptive execution re-plans anything: a hint the
   * join's type or condition does not allow is ignored, and this says what Spark planned
   * instead. Empty when no physical join was planned from it.
   */
  def plannedJoin(query: QueryExecution, number: Int): String = {
    val planned = query.sparkPlan
    // Spark plans a clone of the optimized plan: its joins are the links' of the planned plan.
    val optimized = planned.logicalLink.getOrElse(query.optimizedPlan)
    optimized.collect { case j: Join => j }.lift(number - 1).flatMap { join =>
      planned.collectFirst { case p: BaseJoinExec if p.logicalLink.exists(_ eq join) => p }
    }.map(strategy).getOrElse("")
  }

  private def strategy(join: BaseJoinExec): String = join match {
    case h: BroadcastHashJoinExec => s"broadcast hash, ${built(h.buildSide)}"
    case h: HashJoin => s"shuffled hash, ${built(h.buildSide)}"
    case n: BroadcastNestedLoopJoinExec => s"broadcast nested loop, ${built(n.buildSide)}"
    case _: SortMergeJoinExec => "sort-merge"
    case _: CartesianProductExec => "cartesian product"
    case other => other.nodeName
  }

  private def built(side: BuildSide): String =
    if (side == BuildLeft) "the left side built" else "the right side built"

  /** Whether the optimized plan reads a cached input. */
  def readsCache(plan: LogicalPlan): Boolean = plan.find(_.isInstanceOf[InMemoryRelation]).isDefined

  /** Whether the optimized plan has an aggregation that `distinctAsGroups` computes as two. */
  def groupsDistinct(plan: LogicalPlan): Boolean =
    plan.find { case a: Aggregate => distinctArguments(a).isDefined; case _ => false }.isDefined

  override def apply(plan: LogicalPlan): LogicalPlan = {
    val conf = SQLConf.get
    val computed = if (PlanGuardConf.differentialUncached(conf)) uncached(plan) else plan
    val read = if (PlanGuardConf.differentialDistinctAsGroups(conf)) asGroups(computed)
      else computed
    PlanGuardConf.differentialJoin(conf).fold(read) { case (number, hint) =>
      val (strategy, left) = hints(hint)
      hinted(read, number - 1, strategy, left)
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

  private def asGroups(plan: LogicalPlan): LogicalPlan = plan.transformUp {
    case a: Aggregate if distinctArguments(a).isDefined =>
      val arguments = distinctArguments(a).get
      val aliases = arguments.map(Alias(_, "distinct")())
      val grouped = Aggregate(a.groupingExpressions ++ arguments,
        a.groupingExpressions.map(_.asInstanceOf[Attribute]) ++ aliases, a.child)
      val read = arguments.map(_.canonicalized).zip(aliases.map(_.toAttribute)).toMap
      a.copy(aggregateExpressions = a.aggregateExpressions.map(_.transformDown {
        case f: AggregateExpression => f.copy(isDistinct = false,
          aggregateFunction = f.aggregateFunction.mapChildren(c =>
            read.getOrElse(c.canonicalized, c)).asInstanceOf[AggregateFunction])
      }.asInstanceOf[NamedExpression]), child = grouped)
  }

  /**
   * The arguments of an aggregation's aggregates where they are all DISTINCT over the same
   * arguments, without FILTER, grouped by columns: the arguments that are not constant, or all
   * where all are (`count(DISTINCT 1)`).
   */
  private def distinctArguments(a: Aggregate): Option[Seq[Expression]] = {
    val functions = a.aggregateExpressions.flatMap(_.collect { case f: AggregateExpression => f })
    def arguments(f: AggregateExpression): Seq[Expression] = {
      val children = f.aggregateFunction.children
      if (children.forall(_.foldable)) children else children.filterNot(_.foldable)
    }
    val distinct = functions.nonEmpty && a.groupingExpressions.forall(_.isInstanceOf[Attribute]) &&
      functions.forall(f => f.isDistinct && f.filter.isEmpty)
    if (!distinct) None
    else {
      val first = arguments(functions.head)
      val same = functions.forall(f => arguments(f).map(_.canonicalized).toSet ==
        first.map(_.canonicalized).toSet)
      if (same && first.nonEmpty) Some(first) else None
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

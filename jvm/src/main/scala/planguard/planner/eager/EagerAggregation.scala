package planguard.planner.eager

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeSet, NamedExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.{Inner, LeftAnti, LeftOuter, LeftSemi, RightOuter}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Join, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.util.toPrettySQL

import planguard.conf.PlanGuardConf

/**
 * Eager aggregation (docs/planner.md): an aggregation over a join computes partial results on one
 * side below the join, grouped by that side's join keys and grouping columns, and finishes them
 * above it (PartialAggregates). The side is one whose rows every aggregate reads alone (FILTER
 * clauses included), and which the join does not pad with nulls: either side of an inner join,
 * the preserved side of an outer join, the left side of a semi or anti join. Where
 * `spark.planguard.planner.eagerAggregation` is `on`, only where it pays (EagerAggregationGate);
 * `always`, wherever it is sound (for tests); `off` (the default), never. A pre-CBO optimizer
 * rule: the rewritten plan is an ordinary logical plan, which adaptive execution re-plans and
 * planguard's checks read as any other.
 */
final case class EagerAggregation(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    val conf = session.sessionState.conf
    val mode = PlanGuardConf.eagerAggregation(conf)
    if (mode == "off" || !PlanGuardConf.plannerEnabled(conf) || plan.isStreaming) plan
    else plan.transformUp {
      case a: Aggregate => EagerAggregation.pushed(a).flatMap { p =>
        val why = if (mode == "always") Some(EagerAggregation.Always)
          else EagerAggregationGate.why(p, conf)
        why.map { reason =>
          EagerAggregationReason.mark(p.partial, s"${p.what}: $reason")
          p.plan
        }
      }.getOrElse(a)
    }
  }
}

object EagerAggregation {
  val Always = "spark.planguard.planner.eagerAggregation is always (wherever sound)"

  /**
   * `aggregate` rewritten (`plan`): `side` of `join` replaced by `partial`, grouped by `keys`,
   * which `what` describes.
   */
  final case class Pushed(plan: LogicalPlan, join: Join, side: LogicalPlan, other: LogicalPlan,
      partial: Aggregate, keys: Seq[Attribute], grouping: Seq[Attribute]) {
    def what: String = {
      val functions = partial.aggregateExpressions.drop(keys.size).map(e => toPrettySQL(e match {
        case Alias(child, _) => child
        case other => other
      }))
      s"${functions.mkString(", ")} computed below the ${join.joinType.sql} join on its " +
        s"${if (join.left eq side) "left" else "right"} side, grouped by " +
        keys.map(_.name).mkString(", ")
    }
  }

  def pushed(aggregate: Aggregate): Option[Pushed] = {
    val join = aggregate.child match {
      case j: Join => Some(j)
      case Project(list, j: Join) if list.forall(_.isInstanceOf[Attribute]) => Some(j)
      case _ => None
    }
    val functions = aggregate.aggregateExpressions.flatMap(_.collect {
      case f: AggregateExpression => f
    })
    val grouping = aggregate.groupingExpressions.collect { case a: Attribute => a }
    if (functions.isEmpty || grouping.size != aggregate.groupingExpressions.size) None
    else join.flatMap { j =>
      val splits = functions.map(f => f -> PartialAggregates.of(f))
      if (splits.exists(_._2.isEmpty)) None
      else {
        val reads = AttributeSet(functions.flatMap(_.references))
        val sides = j.joinType match {
          case Inner => Seq(j.left, j.right)
          case LeftOuter | LeftSemi | LeftAnti => Seq(j.left)
          case RightOuter => Seq(j.right)
          case _ => Nil
        }
        sides.find(s => reads.subsetOf(s.outputSet) && !alreadyPushed(s)).flatMap { side =>
          val keys = (AttributeSet(grouping) ++ j.condition.map(_.references).getOrElse(
            AttributeSet.empty)).filter(side.outputSet.contains).toSeq
          if (keys.isEmpty) None
          else Some(rewrite(aggregate, j, side, keys, grouping, splits.map {
            case (f, split) => f -> split.get
          }))
        }
      }
    }
  }

  // A side that is an aggregation grouped by columns only: pushing again would stack another.
  private def alreadyPushed(side: LogicalPlan): Boolean = side match {
    case a: Aggregate => a.groupingExpressions.forall(_.isInstanceOf[Attribute])
    case _ => false
  }

  private def rewrite(aggregate: Aggregate, join: Join, side: LogicalPlan, keys: Seq[Attribute],
      grouping: Seq[Attribute], splits: Seq[(AggregateExpression, PartialAggregates)]): Pushed = {
    val partials = splits.flatMap(_._2.below)
    val partial = Aggregate(keys, keys ++ partials, side)
    val other = if (join.left eq side) join.right else join.left
    val joined = if (join.left eq side) join.copy(left = partial) else join.copy(right = partial)
    val above = splits.map { case (f, split) => f.canonicalized -> split.above }.toMap
    val results = aggregate.aggregateExpressions.map(_.transformUp {
      case f: AggregateExpression => above(f.canonicalized)
    }.asInstanceOf[NamedExpression])
    val read = grouping ++ partials.map(_.toAttribute)
    val plan = aggregate.copy(aggregateExpressions = results,
      child = Project(joined.output.filter(AttributeSet(read).contains), joined))
    Pushed(plan, join, side, other, partial, keys, grouping)
  }
}

package planguard.differential

import org.apache.spark.sql.catalyst.expressions.{Expression, FrameLessOffsetWindowFunction,
  IntegerLiteral, NthValue, NTile, RankLike, RowFrame, RowNumber, SpecifiedWindowFrame,
  UnboundedFollowing, UnboundedPreceding, WindowExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{First, Last}
import org.apache.spark.sql.catalyst.plans.logical.{GlobalLimit, LocalLimit, LogicalPlan, Offset,
  Project, Sample, SubqueryAlias, Tail}
import org.apache.spark.sql.catalyst.trees.TreePattern.CURRENT_LIKE
import org.apache.spark.sql.execution.QueryExecution

/**
 * Why a query's rows may differ from one run, or one legal plan, to another, so that the
 * differential mode must not compare them: a nondeterministic expression (Catalyst's own
 * `deterministic`: rand, uuid, a Python UDF marked nondeterministic, ...; and first and last,
 * whose value is the input's order's, which Spark 4 calls deterministic), a sample, a window
 * function by the order of rows that may tie (byRowOrder), a limit or offset over rows in no
 * order or over rows sorted by keys the query does not return, the clock (the expressions the
 * optimizer replaces with the time, or the session's state, when the query starts: Catalyst's
 * CURRENT_LIKE pattern: current_timestamp, now, current_date, current_user, ...). Empty when
 * none. A limit at the result over rows in no order is compared where a run shows it cut none
 * (resultLimit).
 */
object Determinism {
  def reason(query: QueryExecution): String = reason(query.analyzed)

  /**
   * The rows of the limit over rows in no order at the top of the query's result (`take(n)`'s,
   * `first()`'s, the `limit(n + 1)` that `show(n)` takes), where it is the only reason the query's
   * rows may differ; -1 where there is none. A run that returns fewer rows than that cut none:
   * every legal plan returns all the rows of the query below it, and they are compared.
   */
  def resultLimit(query: QueryExecution): Int =
    withoutResultLimit(query.analyzed).collect {
      case (rows, below) if reason(below).isEmpty => rows
    }.getOrElse(-1)

  private def withoutResultLimit(plan: LogicalPlan): Option[(Int, LogicalPlan)] = plan match {
    case GlobalLimit(IntegerLiteral(rows), LocalLimit(_, child)) if !ResultOrder.ordered(child) =>
      Some((rows, child))
    case _: Project | _: SubqueryAlias => withoutResultLimit(plan.children.head).map {
      case (rows, child) => (rows, plan.withNewChildren(Seq(child)))
    }
    case _ => None
  }

  private def reason(analyzed: LogicalPlan): String = {
    val nondeterministic = analyzed.collectWithSubqueries {
      case p => p.expressions.flatMap(innermostNondeterministic)
    }.flatten
    lazy val clock = analyzed.collectWithSubqueries {
      case p if p.expressions.exists(_.containsPattern(CURRENT_LIKE)) => p
    }
    lazy val sampled = analyzed.collectWithSubqueries { case s: Sample => s }
    lazy val windows = analyzed.collectWithSubqueries {
      case p => p.expressions.flatMap(_.collect { case w: WindowExpression if byRowOrder(w) => w })
    }.flatten
    lazy val unordered = analyzed.collectWithSubqueries {
      case l: GlobalLimit if !ResultOrder.ordered(l.child) && !noOp(l) => "a limit"
      case o: Offset if !ResultOrder.ordered(o.child) => "an offset"
      case t: Tail if !ResultOrder.ordered(t.child) => "a tail"
    }
    // The rows that tie where a limit cuts the sorted rows may be any of them: at the result,
    // they are told apart by the sort keys, which must then be result columns; inside the query,
    // they are not told apart.
    lazy val cutUnseen = ResultOrder.cut(analyzed).nonEmpty && !ResultOrder.keysReturned(analyzed)
    lazy val cutInside = {
      val result = ResultOrder.chain(analyzed)
      analyzed.collectWithSubqueries {
        case l: GlobalLimit if !noOp(l) && !result.exists(_ eq l) && ResultOrder.ordered(l.child) =>
          l
        case o: Offset if !result.exists(_ eq o) && ResultOrder.ordered(o.child) => o
      }.nonEmpty
    }
    if (nondeterministic.nonEmpty) {
      s"nondeterministic: ${nondeterministic.head.prettyName}"
    } else if (sampled.nonEmpty) {
      "a sample"
    } else if (windows.nonEmpty) {
      s"a window by the order of rows that may tie (${windows.head.windowFunction.prettyName}: " +
        "a ROWS frame, row_number, ntile, lag, lead or nth_value give tied rows their values in " +
        "the order they come)"
    } else if (unordered.nonEmpty) {
      s"${unordered.head} over rows in no order"
    } else if (cutUnseen) {
      "a limit over rows sorted by what the query does not return (rows that tie where it " +
        "cuts may differ)"
    } else if (cutInside) {
      "a limit inside the query over sorted rows (rows that tie where it cuts may differ)"
    } else if (clock.nonEmpty) {
      "it reads the clock or the session (current_timestamp, current_date, current_user, ...)"
    } else ""
  }

  // A limit of no fewer rows than its input can have keeps them all.
  private def noOp(limit: GlobalLimit): Boolean = {
    val input = limit.child match {
      case local: LocalLimit => local.child
      case other => other
    }
    input.maxRows.exists(rows => limit.maxRows.exists(rows <= _))
  }

  /**
   * Whether a window function's values follow the order of the rows within its sort order, which
   * rows that tie on the sort keys come in as they come: row_number, ntile, the offset functions
   * and a ROWS frame short of the whole partition. The rank functions and RANGE frames give tied
   * rows one value.
   */
  private def byRowOrder(w: WindowExpression): Boolean = w.windowSpec.orderSpec.nonEmpty && (
    w.windowFunction match {
      case _: RowNumber | _: NTile | _: FrameLessOffsetWindowFunction | _: NthValue => true
      case _: RankLike => false
      case _ => w.windowSpec.frameSpecification match {
        case SpecifiedWindowFrame(RowFrame, UnboundedPreceding, UnboundedFollowing) => false
        case SpecifiedWindowFrame(RowFrame, _, _) => true
        case _ => false
      }
    })

  private def innermostNondeterministic(e: Expression): Seq[Expression] = e.collect {
    case n @ (_: First | _: Last) => n
    case n if !n.deterministic && n.children.forall(_.deterministic) => n
  }
}

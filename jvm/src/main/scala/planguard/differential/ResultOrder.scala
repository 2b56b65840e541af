package planguard.differential

import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{GlobalLimit, LocalLimit, LogicalPlan, Offset,
  Project, Sort, SubqueryAlias}

/** The order a query returns its rows in: the sort under its root, if any. */
object ResultOrder {

  /** The sort order of the plan's rows, when a global sort is all that orders them. */
  def of(plan: LogicalPlan): Option[Seq[SortOrder]] = chain(plan).lastOption.collect {
    case s: Sort => s.order
  }

  /**
   * The operators from the root down to the global sort that orders the plan's rows: those that
   * hand its rows on, in its order. Empty when no sort orders them so.
   */
  def chain(plan: LogicalPlan): List[LogicalPlan] = plan match {
    case s: Sort if s.global => List(s)
    case _: Project | _: SubqueryAlias | _: LocalLimit | _: GlobalLimit | _: Offset =>
      val below = chain(plan.children.head)
      if (below.isEmpty) Nil else plan :: below
    case _ => Nil
  }

  /**
   * For Python: the positions, in the query's result, of the leading sort keys that are result
   * columns, comma-separated ("" when the first is not, or nothing sorts the rows); `ordered`
   * says which of the two.
   */
  def columns(plan: LogicalPlan): String = of(plan).map { order =>
    val ids = plan.output.map(_.exprId)
    order.map(_.child match {
      case a: Attribute => ids.indexOf(a.exprId)
      case _ => -1
    }).takeWhile(_ >= 0).mkString(",")
  }.getOrElse("")

  def ordered(plan: LogicalPlan): Boolean = of(plan).isDefined

  /**
   * For Python: where a limit or an offset cuts the sorted rows, as the rows kept that tie there
   * ("last": a limit's last row; "first,last": an offset's first row too; "": no cut). The rows
   * that tie with such a row on the sort keys may be any of them, under one plan or another.
   */
  def cut(plan: LogicalPlan): String = {
    val cuts = chain(plan).filter(p => p.isInstanceOf[GlobalLimit] || p.isInstanceOf[Offset])
    if (cuts.isEmpty) ""
    else if (cuts.exists(_.isInstanceOf[Offset])) "first,last"
    else "last"
  }

  /** Whether every sort key of the plan's rows is a result column. */
  def keysReturned(plan: LogicalPlan): Boolean = of(plan).exists { order =>
    val ids = plan.output.map(_.exprId).toSet
    order.forall(_.child match {
      case a: Attribute => ids.contains(a.exprId)
      case _ => false
    })
  }
}

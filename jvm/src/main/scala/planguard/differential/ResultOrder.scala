package planguard.differential

import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{GlobalLimit, LocalLimit, LogicalPlan, Offset,
  Project, Sort, SubqueryAlias}

/** The order a query returns its rows in: the sort under its root, if any. */
object ResultOrder {

  /** The sort order of the plan's rows, when a global sort is all that orders them. */
  def of(plan: LogicalPlan): Option[Seq[SortOrder]] = plan match {
    case s: Sort if s.global => Some(s.order)
    case _: Project | _: SubqueryAlias | _: LocalLimit | _: GlobalLimit | _: Offset =>
      of(plan.children.head)
    case _ => None
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
}

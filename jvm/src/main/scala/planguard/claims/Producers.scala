package planguard.claims

import java.util.HashMap

import org.apache.spark.sql.catalyst.expressions.{Attribute, ExprId}
import org.apache.spark.sql.catalyst.plans.QueryPlan

/**
 * The columns an operator's children output, by expression id: what the operator's references
 * read. A column two children output under one id (a self-union's) is as nullable as the most
 * nullable of them.
 */
private[claims] final class Producers(op: QueryPlan[_]) {
  private val byId = new HashMap[ExprId, Attribute]()
  op.children.foreach(_.asInstanceOf[QueryPlan[_]].output.foreach { a =>
    val known = byId.get(a.exprId)
    if (known == null || (a.nullable && !known.nullable)) byId.put(a.exprId, a)
  })

  /** The child column with `id`, or null. */
  def apply(id: ExprId): Attribute = byId.get(id)
}

package planguard.claims

import java.util.HashMap

import org.apache.spark.sql.catalyst.expressions.{Attribute, ExprId}

/**
 * The columns an operator's children output, by expression id: what the operator's references
 * read. A column two children output under one id (a self-union's) is as nullable as the most
 * nullable of them. Indexed on first use: an operator that passes its children's columns on as
 * they are and reads none asks for none.
 *
 * @param inputs each child's output, in the order of the children, derived as it is read
 */
private[claims] final class Producers(val inputs: Array[Output]) {
  private lazy val byId = {
    val found = new HashMap[ExprId, Attribute]()
    inputs.foreach(_.attributes.foreach { a =>
      val known = found.get(a.exprId)
      if (known == null || (a.nullable && !known.nullable)) found.put(a.exprId, a)
    })
    found
  }

  /** The child column with `id`, or null. */
  def apply(id: ExprId): Attribute = byId.get(id)
}

package planguard.claims

import java.util.HashMap

import org.apache.spark.sql.catalyst.expressions.{Attribute, ExprId}

/**
 * The columns an operator's children output, by expression id: what the operator's references
 * read. A column two children output under one id (a self-union's) is as nullable as the most
 * nullable of them. Read in place for a few columns, indexed on first use for more.
 *
 * @param inputs each child's output, in the order of the children
 */
private[claims] final class Producers(val inputs: Array[Seq[Attribute]]) {
  private lazy val few = inputs.iterator.map(_.length).sum <= Producers.ReadInPlace

  private lazy val byId = {
    val found = new HashMap[ExprId, Attribute]()
    inputs.foreach(_.foreach { a =>
      val known = found.get(a.exprId)
      if (known == null || (a.nullable && !known.nullable)) found.put(a.exprId, a)
    })
    found
  }

  /** The child column with `id`, or null. */
  def apply(id: ExprId): Attribute =
    if (!few) byId.get(id)
    else {
      var known: Attribute = null
      inputs.foreach(_.foreach { a =>
        if (a.exprId == id && (known == null || (a.nullable && !known.nullable))) known = a
      })
      known
    }
}

private object Producers {
  /** Up to how many columns a lookup reads them in place rather than index them. */
  private val ReadInPlace = 8
}

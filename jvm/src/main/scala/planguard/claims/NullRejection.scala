package planguard.claims

import org.apache.spark.sql.catalyst.expressions.{And, Attribute, AttributeSet, Expression,
  IsNotNull}

import planguard.shims.NullIntolerance

/**
 * Which columns a predicate rejects the nulls of: a row in which one of them is null never
 * passes it. A filter or an inner join keeps only rows that pass its condition, so it may declare
 * those columns NOT NULL (Spark's FilterExec does so for `IsNotNull` conjuncts).
 */
object NullRejection {

  /**
   * The columns whose nulls `condition` rejects: those of an `IsNotNull` conjunct, or of a
   * conjunct that is itself null when they are null (`c > 0`, `a = b`), each reached through
   * expressions that are null whenever an input is ([[strict]]).
   */
  def of(condition: Expression): AttributeSet = AttributeSet(conjuncts(condition).flatMap {
    case IsNotNull(e) => strict(e)
    case c => strict(c)
  })

  /** The columns whose nulls an equi-join key rejects: a null key matches no row. */
  def ofKeys(keys: Seq[Expression]): AttributeSet = AttributeSet(keys.flatMap(strict))

  /**
   * The columns that make `e` null when they are null: `e` itself when it is one, else those of
   * its inputs when `e` is null whenever an input is null (`NullIntolerant`).
   */
  def strict(e: Expression): Seq[Attribute] = e match {
    case a: Attribute => Seq(a)
    case _ if NullIntolerance.of(e) => e.children.flatMap(strict)
    case _ => Nil
  }

  private def conjuncts(e: Expression): Seq[Expression] = e match {
    case And(l, r) => conjuncts(l) ++ conjuncts(r)
    case other => Seq(other)
  }
}

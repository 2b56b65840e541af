package planguard.shims

import org.apache.spark.sql.catalyst.expressions.{Between, Expression}

/**
 * `x BETWEEN a AND b` as one expression (input, lower, upper): Spark 4.0 keeps it as `Between`;
 * Spark 3.5 parses it into `x >= a AND x <= b`, which is named as such.
 */
object BetweenExpression {
  def unapply(e: Expression): Option[(Expression, Expression, Expression)] = e match {
    case b: Between => Some((b.input, b.lower, b.upper))
    case _ => None
  }
}

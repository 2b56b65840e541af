package planguard.shims

import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * `x BETWEEN a AND b` as one expression: Spark 3.5 has none (it parses BETWEEN into
 * `x >= a AND x <= b`, named as such); Spark 4.0 keeps a `Between`.
 */
object BetweenExpression {
  def unapply(e: Expression): Option[(Expression, Expression, Expression)] = None
}

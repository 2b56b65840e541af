package planguard.shims

import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * Whether an expression returns null whenever one of its inputs is null. Spark 4 asks the
 * expression (`nullIntolerant`); Spark 3.5 marks such expressions with the NullIntolerant trait.
 */
object NullIntolerance {
  def of(e: Expression): Boolean = e.nullIntolerant
}

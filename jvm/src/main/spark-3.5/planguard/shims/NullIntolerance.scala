package planguard.shims

import org.apache.spark.sql.catalyst.expressions.{Expression, NullIntolerant}

/**
 * Whether an expression returns null whenever one of its inputs is null. Spark 3.5 marks such
 * expressions with the NullIntolerant trait; Spark 4 asks the expression (`nullIntolerant`).
 */
object NullIntolerance {
  def of(e: Expression): Boolean = e.isInstanceOf[NullIntolerant]
}

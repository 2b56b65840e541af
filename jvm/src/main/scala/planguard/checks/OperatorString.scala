package planguard.checks

import org.apache.spark.sql.execution.SparkPlan

/** A physical operator as EXPLAIN shows it, cut short: for the errors that name one. */
object OperatorString {
  def apply(op: SparkPlan): String = {
    val s = op.simpleString(5)
    if (s.length <= 160) s else s.take(157) + "..."
  }
}

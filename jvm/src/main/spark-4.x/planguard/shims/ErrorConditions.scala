package planguard.shims

import org.apache.spark.SparkThrowable

/**
 * A Spark error's condition. Spark 4.x names it `getCondition` (`getErrorClass`, deprecated,
 * returns it); Spark 3.5 has only `getErrorClass`.
 */
object ErrorCondition {
  def of(e: SparkThrowable): String = e.getCondition
}

/** planguard's errors: `getCondition` on every line, SparkThrowable's own on 4.x. */
trait ConditionThrowable extends SparkThrowable

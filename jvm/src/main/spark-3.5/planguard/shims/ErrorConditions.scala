package planguard.shims

import org.apache.spark.SparkThrowable

/**
 * A Spark error's condition. Spark 3.5 names it `getErrorClass`; 4.x `getCondition`.
 */
object ErrorCondition {
  def of(e: SparkThrowable): String = e.getErrorClass
}

/**
 * planguard's errors: `getCondition` on every line (Python calls it), which Spark 3.5 reads
 * through `getErrorClass`.
 */
trait ConditionThrowable extends SparkThrowable {
  def getCondition: String
  override def getErrorClass: String = getCondition
}

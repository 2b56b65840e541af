package planguard.errors

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkThrowable

/** A `PLANGUARD_PARTITIONS` hint planguard cannot apply. */
final class PlanGuardHintException(parameters: Map[String, String])
  extends IllegalArgumentException(
    PlanGuardErrors.message(PlanGuardHintException.Condition, parameters))
  with SparkThrowable {

  override def getCondition: String = PlanGuardHintException.Condition
  override def getSqlState: String = PlanGuardErrors.sqlState(getCondition)
  override def getMessageParameters: java.util.Map[String, String] = parameters.asJava
}

object PlanGuardHintException {
  val Condition = "PLANGUARD_INVALID_HINT"
}

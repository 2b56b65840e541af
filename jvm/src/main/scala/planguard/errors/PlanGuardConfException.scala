package planguard.errors

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkThrowable

/** A `spark.planguard.*` key with a value planguard does not accept (or an unknown key). */
final class PlanGuardConfException(parameters: Map[String, String])
  extends IllegalArgumentException(
    PlanGuardErrors.message(PlanGuardConfException.Condition, parameters))
  with SparkThrowable {

  override def getCondition: String = PlanGuardConfException.Condition
  override def getSqlState: String = PlanGuardErrors.sqlState(getCondition)
  override def getMessageParameters: java.util.Map[String, String] = parameters.asJava
}

object PlanGuardConfException {
  val Condition = "PLANGUARD_INVALID_CONF"
}

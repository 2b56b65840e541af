package planguard.errors

import scala.jdk.CollectionConverters._

import planguard.shims.ConditionThrowable

/** Input planguard cannot accept from the user (a conf, a hint), as a Spark error condition. */
abstract class PlanGuardInputException(condition: String, parameters: Map[String, String])
  extends IllegalArgumentException(PlanGuardErrors.message(condition, parameters))
  with ConditionThrowable {

  override def getCondition: String = condition
  override def getSqlState: String = PlanGuardErrors.sqlState(condition)
  override def getMessageParameters: java.util.Map[String, String] = parameters.asJava
}

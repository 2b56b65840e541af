package planguard.errors

/** A `spark.planguard.*` key with a value planguard does not accept (or an unknown key). */
final class PlanGuardConfException(parameters: Map[String, String])
  extends PlanGuardInputException(PlanGuardConfException.Condition, parameters)

object PlanGuardConfException {
  val Condition = "PLANGUARD_INVALID_CONF"
}

package planguard.errors

/** A `PLANGUARD_PARTITIONS` hint planguard cannot apply. */
final class PlanGuardHintException(parameters: Map[String, String])
  extends PlanGuardInputException(PlanGuardHintException.Condition, parameters)

object PlanGuardHintException {
  val Condition = "PLANGUARD_INVALID_HINT"
}

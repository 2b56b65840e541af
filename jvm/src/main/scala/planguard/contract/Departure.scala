package planguard.contract

/**
 * How a plan departs from a contract, as an error shows it: what was expected, what the plan has,
 * how they were compared and each difference. Empty when the contract holds.
 */
trait Departure {
  def expectedText: String
  def actualText: String
  def comparison: String
  def differences: Seq[String]
  final def isEmpty: Boolean = differences.isEmpty
}

/** A departure from a contract on something other than a schema: a distribution, an ordering. */
final case class PlanDeparture(
    expectedText: String,
    actualText: String,
    comparison: String,
    differences: Seq[String]) extends Departure

object PlanDeparture {
  /** The contract holds. */
  val None: PlanDeparture = PlanDeparture("", "", "", Nil)
}

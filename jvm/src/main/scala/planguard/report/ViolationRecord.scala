package planguard.report

/**
 * One violation (or planguard internal error) as reported: kept in the session's log, posted to
 * the listener bus, read by Python's `planguard.violations(spark)`.
 *
 * @param id the invariant id, or INTERNAL_ERROR
 * @param level what planguard did: fail, warn, or log (internal errors)
 * @param plan a one-line summary of the plan that broke the contract
 * @param time milliseconds since the epoch
 */
final case class ViolationRecord(
    id: String,
    level: String,
    phase: String,
    rule: Option[String],
    expected: String,
    actual: String,
    differences: Seq[String],
    plan: String,
    time: Long)

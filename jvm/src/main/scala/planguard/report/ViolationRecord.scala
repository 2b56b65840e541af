package planguard.report

import com.fasterxml.jackson.databind.annotation.JsonSerialize

/**
 * One violation (or planguard internal error) as reported: kept in the session's log, posted to
 * the listener bus, read by Python's `planguard.violations(spark)` and `planguard check`. Its
 * JSON has one writer, `ViolationRecordJson`, which Jackson uses wherever a record is written
 * (the event log's listener events included).
 *
 * @param id the invariant id, or INTERNAL_ERROR
 * @param level what planguard did: fail, warn, or log (internal errors)
 * @param plan a one-line summary of the plan that broke the contract
 * @param time milliseconds since the epoch
 */
@JsonSerialize(using = classOf[ViolationRecordJson])
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

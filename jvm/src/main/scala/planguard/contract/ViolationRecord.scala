package planguard.contract

import com.fasterxml.jackson.annotation.JsonProperty
import com.fasterxml.jackson.databind.annotation.JsonSerialize

/**
 * One violation (or planguard internal error) as reported: the one shape every report takes and
 * Python reads — kept in the session's log, posted to the listener bus, read by Python's
 * `planguard.violations(spark)` and `planguard check`, and sent with each error planguard raises
 * (among its message parameters, `InvariantViolation.Payload`), through py4j and Spark Connect
 * alike. Its JSON has one writer, `ViolationRecordJson`, which Jackson uses wherever a record is
 * written (the event log's listener events included); its readers name the fields alike.
 *
 * @param id the invariant id, or INTERNAL_ERROR
 * @param level what planguard did: fail, warn, or log (internal errors)
 * @param rule the rule that broke the contract; None where planguard could not tell
 * @param expected what the contract expects, as text (a schema, a distribution)
 * @param expectedSchema the schema the contract expects, as Spark's JSON of a StructType; None
 *                       for a contract on something else than a schema (DISTRIBUTION)
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
    @JsonProperty("expected_schema") expectedSchema: Option[String],
    @JsonProperty("actual_schema") actualSchema: Option[String],
    differences: Seq[String],
    plan: String,
    time: Long)

package planguard.report

import org.apache.spark.scheduler.SparkListenerEvent

/** A violation on the listener bus, so that event logs and the history server keep it. */
final case class PlanGuardViolationEvent(
    id: String,
    level: String,
    phase: String,
    rule: String,
    expected: String,
    actual: String,
    differences: String,
    plan: String,
    time: Long) extends SparkListenerEvent

object PlanGuardViolationEvent {
  def apply(r: ViolationRecord): PlanGuardViolationEvent = PlanGuardViolationEvent(r.id, r.level,
    r.phase, r.rule.orNull, r.expected, r.actual, r.differences.mkString("; "), r.plan, r.time)
}

package planguard.report

import org.apache.spark.scheduler.SparkListenerEvent

import planguard.contract.ViolationRecord

/**
 * A violation on the listener bus, so that event logs and the history server keep it: the record
 * itself, written by `ViolationRecordJson` as everywhere else.
 */
final case class PlanGuardViolationEvent(violation: ViolationRecord) extends SparkListenerEvent

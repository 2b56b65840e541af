package org.apache.spark.sql.planguard.ui

import org.apache.spark.scheduler.{SparkListener, SparkListenerEvent}
import org.apache.spark.status.{ElementTrackingStore, KVUtils}

import planguard.report.{PlanGuardViolationEvent, ViolationLog}

/**
 * Turns the violations posted to the listener bus into entries of the application's status
 * store, as Spark's SQLAppStatusListener does with SQL executions: in a running application from
 * the bus, in the history server from the event log. Like a session's log, the store keeps the
 * most recent `ViolationLog.Capacity`: an application can report without end, and the store
 * lives as long as it does (or as the history server keeps it).
 */
final class ViolationsListener(store: ElementTrackingStore) extends SparkListener {
  // A listener gets its events one at a time, on its queue's thread.
  private var next = 0L

  store.addTrigger(classOf[ViolationEntry], ViolationLog.Capacity) { count =>
    val oldest = KVUtils.viewToSeq(store.view(classOf[ViolationEntry]),
      (count - ViolationLog.Capacity).toInt)(_ => true)
    oldest.foreach(entry => store.delete(classOf[ViolationEntry], entry.seq))
  }

  override def onOtherEvent(event: SparkListenerEvent): Unit = event match {
    case PlanGuardViolationEvent(violation) =>
      Contained("keeping a violation for the planguard tab", ()) {
        store.write(new ViolationEntry(next, violation), checkTriggers = true)
        next += 1
      }
    case _ =>
  }
}

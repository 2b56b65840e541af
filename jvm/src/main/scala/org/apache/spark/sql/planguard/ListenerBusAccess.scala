package org.apache.spark.sql.planguard

import org.apache.spark.SparkContext
import org.apache.spark.scheduler.SparkListenerEvent

/** Spark posts SQL events through `SparkContext.listenerBus`, which is private to Spark. */
object ListenerBusAccess {
  def post(sc: SparkContext, event: SparkListenerEvent): Unit = sc.listenerBus.post(event)
}

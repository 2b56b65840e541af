package org.apache.spark.sql.planguard.ui

import java.util.{Collections, WeakHashMap}

import org.apache.spark.SparkContext
import org.apache.spark.status.ElementTrackingStore

/**
 * The planguard tab of a running application: attached when planguard installs in a session,
 * once per SparkContext however many sessions share it, and only when its UI is on
 * (spark.ui.enabled). Weak: a stopped context is forgotten with it.
 */
object LiveUi {
  private val attached = Collections.synchronizedSet(Collections.newSetFromMap(
    new WeakHashMap[SparkContext, java.lang.Boolean]))

  def attach(sc: SparkContext): Unit = Contained("to attach the planguard tab", ()) {
    sc.ui.foreach { ui =>
      if (attached.add(sc)) {
        // The status queue, with Spark's own status listeners: the store the UI reads.
        val store = sc.statusStore.store.asInstanceOf[ElementTrackingStore]
        sc.listenerBus.addToStatusQueue(new ViolationsListener(store))
        ui.attachTab(new PlanGuardTab(ui))
      }
    }
  }
}

package org.apache.spark.sql.planguard.ui

import org.apache.spark.ui.{SparkUI, SparkUITab}

/**
 * The UI's planguard tab, /planguard/: the violations of the application, read from its status
 * store, which `ViolationsListener` fills.
 */
final class PlanGuardTab(ui: SparkUI) extends SparkUITab(ui, "planguard") {
  override val name = "planguard"

  attachPage(new ViolationsPage(this, ui.store.store))
}

package org.apache.spark.sql.planguard.ui

import org.apache.spark.{SPARK_VERSION, SparkConf}
import org.apache.spark.scheduler.SparkListener
import org.apache.spark.status.{AppHistoryServerPlugin, ElementTrackingStore}
import org.apache.spark.ui.SparkUI
import org.slf4j.LoggerFactory

import planguard.install.{BuiltFor, ExtensionClasses}

/**
 * The planguard tab in the history server, registered in META-INF/services: the history server
 * replays an application's event log through `ViolationsListener`, then shows the tab for an
 * application that listed planguard in spark.sql.extensions or reported a violation (one without
 * planguard gets no tab saying that every invariant held).
 */
final class PlanGuardHistoryServerPlugin extends AppHistoryServerPlugin {
  import PlanGuardHistoryServerPlugin._

  override def createListeners(conf: SparkConf, store: ElementTrackingStore): Seq[SparkListener] =
    Contained("to replay the violations of an event log", Seq.empty[SparkListener]) {
      if (fits) Seq(new ViolationsListener(store)) else Nil
    }

  override def setupUI(ui: SparkUI): Unit = Contained("to show the planguard tab", ()) {
    if (fits && (ui.store.store.count(classOf[ViolationEntry]) > 0 || listed(ui))) {
      ui.attachTab(new PlanGuardTab(ui))
    }
  }
}

private object PlanGuardHistoryServerPlugin {
  /**
   * Whether this jar shows the tab in this history server: on its own line or a newer one, as the
   * extensions install (BuiltFor). Said once, when it does not.
   */
  lazy val fits: Boolean = BuiltFor.fit(SPARK_VERSION) != BuiltFor.Fit.OTHER || {
    LoggerFactory.getLogger("planguard").warn(s"planguard's jar for Spark ${BuiltFor.LINE} " +
      s"is in a history server of Spark $SPARK_VERSION: it shows no planguard tab. Put the " +
      s"jar of Spark ${BuiltFor.lineOf(SPARK_VERSION)} on its classpath instead.")
    false
  }

  /** Whether the application's spark.sql.extensions lists planguard's checks. */
  def listed(ui: SparkUI): Boolean =
    try {
      ui.store.environmentInfo().sparkProperties.exists { case (key, value) =>
        key == "spark.sql.extensions" && value.split(",").map(_.trim).contains(ExtensionClasses.CHECKS)
      }
    } catch {
      case _: NoSuchElementException => false // an event log without the environment
    }
}

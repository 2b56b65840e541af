package planguard

import scala.util.control.NonFatal

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.internal.SQLConf
import org.slf4j.LoggerFactory

import planguard.conf.PlanGuardConf

/**
 * Runs a planguard check: not at all when planguard is disabled, and so that a bug in
 * planguard never breaks the user's query (unless spark.planguard.internalErrors=fail).
 */
object Guarded {
  private val log = LoggerFactory.getLogger("planguard")

  def apply(what: String)(check: => Unit): Unit = {
    val conf = SQLConf.get
    if (PlanGuardConf.enabled(conf)) {
      PlanGuardConf.validateAll(conf)
      try check catch {
        case e: SparkThrowable with Throwable if e.getCondition.startsWith("PLANGUARD_") => throw e
        case NonFatal(e) if PlanGuardConf.failOnInternalError(conf) => throw e
        case NonFatal(e) => log.warn(s"planguard internal error in $what; the query goes on " +
          "unchecked. Please report it.", e)
      }
    }
  }
}

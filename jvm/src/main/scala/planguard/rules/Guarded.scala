package planguard.rules

import scala.util.control.NonFatal

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.SparkSession
import org.slf4j.LoggerFactory

import planguard.attribution.Replaying
import planguard.conf.PlanGuardConf
import planguard.contract.ViolationRecord
import planguard.errors.Foreign
import planguard.report.ViolationLog
import planguard.shims.ErrorCondition

/**
 * Runs planguard's checks: not at all when planguard is disabled, and so that a bug in planguard
 * never breaks the user's query: it is logged, recorded as INTERNAL_ERROR, and the query goes on
 * (unless spark.planguard.internalErrors=fail). Beside the hooks: every rule planguard injects
 * runs its work through it. Nothing is checked on a thread that replays Spark's preparation
 * (attribution.Replaying).
 *
 * What code planguard called out to threw (errors.Foreign: Spark's planner, another extension's
 * strategy) is not planguard's bug: it is rethrown as it was thrown, the same exception, neither
 * recorded nor taken for a reason to let the query go on, so that the query fails as it would
 * without planguard (Kyuubi's watchdog refusing a scan, say).
 */
object Guarded {
  private val log = LoggerFactory.getLogger("planguard")

  def apply(session: SparkSession, what: String)(checks: => Unit): Unit =
    if (!Replaying.now) orElse(session, what, ())(checks)

  /** As `apply`, for a step that produces a value: `fallback` when disabled or on a bug. */
  def orElse[T](session: SparkSession, what: String, fallback: => T)(step: => T): T = {
    val conf = session.sessionState.conf
    if (!PlanGuardConf.enabled(conf)) fallback
    else {
      try step catch {
        case Foreign(original) => throw original
        case e: SparkThrowable with Throwable
            if Option(ErrorCondition.of(e)).exists(_.startsWith("PLANGUARD_")) => throw e
        case Internal(e) if PlanGuardConf.failOnInternalError(conf) => throw e
        case Internal(e) =>
          log.warn(s"planguard internal error in $what; the query goes on unchecked.", e)
          ViolationLog.record(session, ViolationRecord("INTERNAL_ERROR", "log", what, None, "",
            "", None, None, Seq(e.toString), "", System.currentTimeMillis()))
          fallback
      }
    }
  }

  /**
   * planguard's own failures: every non-fatal exception, and the LinkageErrors of a jar built for
   * another Spark line (a class or method that Spark lacks: Spark 4.3 changed ShuffleExchangeExec's
   * constructor, 4.2 renamed KeyGroupedPartitioning), which NonFatal does not cover.
   */
  private object Internal {
    def unapply(e: Throwable): Option[Throwable] = e match {
      case NonFatal(_) | _: LinkageError => Some(e)
      case _ => None
    }
  }
}

package planguard

import org.apache.spark.sql.SparkSession

import planguard.errors.InvariantViolation
import planguard.report.{GuardedSessions, ViolationLog}

/** planguard's entry points for Python and for users: is it installed, and what does it accept. */
object PlanGuard {

  /** True when planguard's rules are part of `session`'s state. */
  def installed(session: SparkSession): Boolean = {
    session.sessionState // planguard's rule builders run when the session state is built
    GuardedSessions.contains(session)
  }

  /**
   * The session's violation report as JSON, for Python's `planguard.violations(spark)`: its
   * queries' and those of the streaming queries it started.
   */
  def violationsJson(session: SparkSession): String = ViolationLog.json(session)

  /** How many violations the session has reported in all, for `planguard.violation_count`. */
  def violationCount(session: SparkSession): Long = ViolationLog.count(session)

  /**
   * The violation among `error` and its causes, or null: for PySpark's error conversion, which
   * would otherwise ask the JVM about each cause in turn.
   */
  def violationIn(error: Throwable): InvariantViolation =
    Iterator.iterate(error)(_.getCause).takeWhile(_ != null).take(100).collectFirst {
      case v: InvariantViolation => v
    }.orNull
}

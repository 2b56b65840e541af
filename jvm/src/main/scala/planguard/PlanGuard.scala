package planguard

import java.util.{Collections, WeakHashMap}

import org.apache.spark.sql.SparkSession

import planguard.report.ViolationLog

/** planguard's entry points for Python and for users: is it installed, and what does it accept. */
object PlanGuard {

  private val sessions =
    Collections.synchronizedSet(Collections.newSetFromMap(
      new WeakHashMap[SparkSession, java.lang.Boolean]))

  private[planguard] def register(session: SparkSession): Unit = sessions.add(session)

  /** True when planguard's rules are part of `session`'s state. */
  def installed(session: SparkSession): Boolean = {
    session.sessionState // planguard's rule builders run when the session state is built
    sessions.contains(session)
  }

  /** The session's violation report as JSON, for Python's `planguard.violations(spark)`. */
  def violationsJson(session: SparkSession): String = ViolationLog.json(session)

  /** How many violations the session has reported in all, for `planguard.violation_count`. */
  def violationCount(session: SparkSession): Long = ViolationLog.count(session)
}

package planguard

import org.apache.spark.sql.internal.SQLConf
import org.slf4j.LoggerFactory

import planguard.conf.{Level, PlanGuardConf}
import planguard.errors.InvariantViolation
import planguard.schema.SchemaDiff

/** Turns a broken invariant into what its level asks for: an error, a warning, or nothing. */
object Violations {
  private val log = LoggerFactory.getLogger("planguard")

  /** The invariant's level for this query; `Off` means: do not even check. */
  def level(invariant: Invariant): Level = PlanGuardConf.level(SQLConf.get, invariant)

  def report(level: Level, invariant: Invariant, phase: String, diff: SchemaDiff,
      rule: Option[String]): Unit = {
    val violation = new InvariantViolation(invariant, phase, diff.expected, diff.actual, diff, rule)
    level match {
      case Level.Fail => throw violation
      case Level.Warn => log.warn(violation.getMessage.replace('\n', ' '))
      case Level.Off =>
    }
  }
}

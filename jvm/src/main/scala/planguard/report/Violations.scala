package planguard.report

import scala.util.DynamicVariable

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.trees.TreeNode
import org.slf4j.LoggerFactory

import planguard.conf.Levels
import planguard.contract.{Departure, Invariant, Level}
import planguard.errors.InvariantViolation

/** Turns a broken invariant into what its level asks for: an error, a warning, or nothing. */
object Violations {
  private val log = LoggerFactory.getLogger("planguard")
  private val recordOnlyNow = new DynamicVariable(false)

  /**
   * Runs `body` with every violation recorded at its level but none thrown or logged, so that all
   * of a statement's checks run and report (`planguard check` plans statements this way).
   */
  def recordOnly[T](body: => T): T = recordOnlyNow.withValue(true)(body)

  /** True inside `recordOnly`: the statement is planned and will not run. */
  def recordingOnly: Boolean = recordOnlyNow.value

  /**
   * Reports one check at the invariant's level among `levels`: not at all when it is off; when
   * the contract is broken (`diff` is not empty), records it, then fails or warns. `culprit` names
   * the rule that broke it and is evaluated only after a violation was found. `ceiling` replaces
   * the invariant's mode ceiling for a case graver than the invariant's others (NAMING's stored
   * qualifier). The one way every check reports.
   */
  def report[D <: Departure](levels: Levels, session: SparkSession, invariant: Invariant,
      phase: String, plan: TreeNode[_], ceiling: Option[Level] = None)(diff: => D)(
      culprit: D => Option[String]): Unit = {
    val level = ceiling.fold(levels(invariant))(levels(invariant, _))
    if (level != Level.Off) {
      val found = diff
      if (!found.isEmpty) record(session, level, invariant, phase, found, culprit(found), plan)
    }
  }

  private def record(session: SparkSession, level: Level, invariant: Invariant, phase: String,
      diff: Departure, rule: Option[String], plan: TreeNode[_]): Unit = {
    val violation = new InvariantViolation(invariant, phase, diff, rule)
    val found = ViolationRecord(invariant.id, level.name, phase, rule, diff.expectedText,
      diff.actualText, diff.differences, summary(plan), System.currentTimeMillis())
    ViolationLog.record(session, found)
    Findings.keep(found)
    level match {
      case _ if recordOnlyNow.value =>
      case Level.Fail => throw violation
      case Level.Warn => log.warn(violation.getMessage.replace('\n', ' '))
      case Level.Off =>
    }
  }

  /** The plan's root and size, for the report. */
  def summary(plan: TreeNode[_]): String =
    s"${plan.simpleString(5).take(200)} (${plan.collect { case n => n }.size} nodes)"
}

package planguard

import scala.util.DynamicVariable

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.trees.TreeNode
import org.slf4j.LoggerFactory

import planguard.conf.{Level, Levels, PlanGuardConf}
import planguard.errors.InvariantViolation
import planguard.report.{ViolationLog, ViolationRecord}

/** Turns a broken invariant into what its level asks for: an error, a warning, or nothing. */
object Violations {
  private val log = LoggerFactory.getLogger("planguard")
  private val recordingOnly = new DynamicVariable(false)

  /**
   * Runs `body` with every violation recorded at its level but none thrown or logged, so that all
   * of a statement's checks run and report (`planguard check` plans statements this way).
   */
  def recordOnly[T](body: => T): T = recordingOnly.withValue(true)(body)

  /** True inside `recordOnly`: the statement is planned and will not run. */
  def plannedOnly: Boolean = recordingOnly.value

  /**
   * Runs one check at the invariant's level: not at all when the level is off; when the contract
   * is broken, records it, then fails or warns. `rule` names the culprit and is evaluated only
   * after a violation was found. `mildest` is the level the check runs at when only the mode is
   * set: the invariant's default level unless this case of it is graver.
   */
  def check[D <: Departure](session: SparkSession, invariant: Invariant, phase: String,
      plan: TreeNode[_], mildest: Option[Level] = None)(
      diff: => D)(rule: D => Option[String] = (_: D) => None): Unit =
    checkAt(PlanGuardConf.level(session.sessionState.conf, invariant,
      mildest.getOrElse(invariant.defaultLevel)), session, invariant, phase, plan)(diff)(rule)

  /** As `check`, at its level among `levels`, read once for the rule that checks. */
  def checkWith[D <: Departure](levels: Levels, session: SparkSession, invariant: Invariant,
      phase: String, plan: TreeNode[_])(diff: => D)(rule: D => Option[String]): Unit =
    checkAt(levels(invariant), session, invariant, phase, plan)(diff)(rule)

  /** As `check`, at a level already read. */
  def checkAt[D <: Departure](level: Level, session: SparkSession, invariant: Invariant,
      phase: String, plan: TreeNode[_])(diff: => D)(rule: D => Option[String]): Unit =
    if (level != Level.Off) {
      val found = diff
      if (!found.isEmpty) report(session, level, invariant, phase, found, rule(found), plan)
    }

  private def report(session: SparkSession, level: Level, invariant: Invariant, phase: String,
      diff: Departure, rule: Option[String], plan: TreeNode[_]): Unit = {
    val violation = new InvariantViolation(invariant, phase, diff, rule)
    ViolationLog.record(session, ViolationRecord(invariant.id, level.name, phase, rule,
      diff.expectedText, diff.actualText, diff.differences,
      summary(plan), System.currentTimeMillis()))
    level match {
      case _ if recordingOnly.value =>
      case Level.Fail => throw violation
      case Level.Warn => log.warn(violation.getMessage.replace('\n', ' '))
      case Level.Off =>
    }
  }

  /** The plan's root and size, for the report. */
  def summary(plan: TreeNode[_]): String =
    s"${plan.simpleString(5).take(200)} (${plan.collect { case n => n }.size} nodes)"
}

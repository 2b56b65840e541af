package planguard.report

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.trees.TreeNode
import org.slf4j.LoggerFactory

import planguard.conf.Levels
import planguard.contract.{Departure, Invariant, Level}
import planguard.errors.InvariantViolation

/**
 * Where the violations one hook finds go, fixed when the hook starts: the session's log; the
 * query they belong to (`findings`: the root its EXPLAIN reads them from, Findings), when the
 * hook knows it; and whether they are only recorded (`recordOnly`: a statement `planguard check`
 * plans and never runs) or fail and warn at each invariant's level among `levels`.
 */
final class Reporter(session: SparkSession, val levels: Levels, findings: Option[TreeNode[_]],
    recordOnly: Boolean) {
  // A query checked with an invariant on has findings, none found yet: EXPLAIN says so.
  private val keptOn = findings.filter(_ => Invariant.all.exists(levels(_) != Level.Off))
  keptOn.foreach(Findings.checked)

  /**
   * Reports one check at the invariant's level: not at all when it is off; when the contract is
   * broken (`departure` is not empty), records it, then fails or warns. `culprit` names the rule
   * that broke it and is evaluated only after a violation was found. `ceiling` replaces the
   * invariant's mode ceiling for a case graver than the invariant's others (NAMING's stored
   * qualifier). The one way every check reports.
   */
  def report(invariant: Invariant, phase: String, plan: => TreeNode[_],
      ceiling: Option[Level] = None)(departure: => Departure)(
      culprit: Departure => Option[String]): Unit = {
    val level = ceiling.fold(levels(invariant))(levels(invariant, _))
    if (level != Level.Off) {
      val found = departure
      if (!found.isEmpty) record(level, invariant, phase, found, culprit(found), plan)
    }
  }

  private def record(level: Level, invariant: Invariant, phase: String, found: Departure,
      rule: Option[String], plan: TreeNode[_]): Unit = {
    val violation = InvariantViolation(invariant, level, phase, found, rule, Reporter.summary(plan))
    ViolationLog.record(session, violation.record)
    keptOn.foreach(Findings.keep(_, violation.record))
    level match {
      case _ if recordOnly =>
      case Level.Fail => throw violation
      case Level.Warn => Reporter.log.warn(violation.getMessage.replace('\n', ' '))
      case Level.Off =>
    }
  }
}

object Reporter {
  private val log = LoggerFactory.getLogger("planguard")

  /** The plan's root and size, for the report. */
  def summary(plan: TreeNode[_]): String =
    s"${plan.simpleString(5).take(200)} (${plan.collect { case n => n }.size} nodes)"
}

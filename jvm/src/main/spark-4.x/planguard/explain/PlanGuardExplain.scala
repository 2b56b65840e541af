package planguard.explain

import org.apache.spark.sql.ExtendedExplainGenerator
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec

import planguard.errors.InvariantViolation
import planguard.planner.eager.EagerAggregationReason
import planguard.query.PlannedQuery
import planguard.contract.ViolationRecord
import planguard.report.Findings

/**
 * planguard's section of EXPLAIN, listed in `spark.sql.extendedExplainProviders` (Spark 4.0's
 * ExtendedExplainGenerator; Spark 3.5 has none, and its jar no such class): the violations
 * planguard found in the explained query, as its checks kept them on the query (Findings), or
 * one line saying that all invariants hold; for an adaptive plan not run yet, a line saying that
 * its stages are checked as they run; then each aggregation planguard's planner computed below a
 * join (eager aggregation), and why. Spark also shows the section in the UI's SQL tab.
 */
final class PlanGuardExplain extends ExtendedExplainGenerator {

  override def title: String = "planguard"

  override def generateExtendedInfo(plan: SparkPlan): String =
    PlannedQuery.plannedRoot(plan).flatMap(Findings.of) match {
      case None => PlanGuardExplain.NotChecked
      case Some(found) =>
        val lines = found.map(PlanGuardExplain.text)
        val notRun = plan match {
          case adaptive: AdaptiveSparkPlanExec if !adaptive.isFinalPlan =>
            Seq(PlanGuardExplain.NotRun)
          case _ => Nil
        }
        val pushed = EagerAggregationReason.in(plan).map(PlanGuardExplain.Eager + _)
        ((if (lines.isEmpty) Seq(PlanGuardExplain.AllHold) else lines) ++ notRun ++ pushed)
          .mkString("\n")
    }
}

object PlanGuardExplain {
  val AllHold = "all invariants hold"
  val NotChecked = "not checked: planguard is not installed in this session, is disabled " +
    "(spark.planguard.enabled=false), or every invariant is off"
  val NotRun = "(so far: adaptive execution checks the plans of its stages as it runs them)"
  val Eager = "planner: eager aggregation: "

  /** One finding: the invariant, where and at what level, the rule, what differs. */
  private def text(r: ViolationRecord): String =
    s"${r.id} broken in phase ${r.phase} (${r.level}). " +
      s"Rule: ${InvariantViolation.ruleText(r.rule, r.phase)}.\n" +
      s"  Expected: ${r.expected}\n" +
      s"  Actual:   ${r.actual}\n" +
      s"  Differences: ${r.differences.mkString("; ")}"
}

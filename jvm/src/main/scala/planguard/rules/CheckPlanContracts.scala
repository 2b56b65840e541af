package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.SparkPlan

import planguard.attribution.PreparationReplay
import planguard.checks.{DeepestDeparture, DistributionCheck, OperatorContractCheck}
import planguard.conf.Levels
import planguard.contract.{Departure, Invariant, Level}
import planguard.report.Violations

/**
 * DISTRIBUTION and OPERATOR_CONTRACT, on any prepared physical plan: a query's, a subquery's, an
 * adaptive re-planning or an adaptive stage. Both hold of a plan alone, whatever query it belongs
 * to, so every plan Spark prepares is checked, both in one walk. The rule that broke one is named
 * by replaying the preparation of the running query's planned plan.
 */
object CheckPlanContracts {

  private final case class Contract(invariant: Invariant, ofOperator: SparkPlan => Departure,
      ofPlan: SparkPlan => Departure)

  private val contracts = Array(
    Contract(Invariant.Distribution, DistributionCheck.requirements, DistributionCheck(_)),
    Contract(Invariant.OperatorContract, OperatorContractCheck.contract, OperatorContractCheck(_)))

  def apply(session: SparkSession, plan: SparkPlan, phase: String, levels: Levels): Unit = {
    val checked = contracts.filter(c => levels(c.invariant) != Level.Off)
    if (checked.nonEmpty) {
      val found = DeepestDeparture.each(plan, checked.map(_.ofOperator))
      var i = 0
      while (i < checked.length) {
        val contract = checked(i)
        Violations.report(levels, session, contract.invariant, phase, plan)(found(i))(_ =>
          culprit(session, plan)(!contract.ofPlan(_).isEmpty))
        i += 1
      }
    }
  }

  /**
   * Preparation establishes distributions (EnsureRequirements): the culprit is the last rule after
   * which the replayed plan breaks the contract again.
   */
  private def culprit(session: SparkSession, plan: SparkPlan)(
      broken: SparkPlan => Boolean): Option[String] =
    PlannedQuery.owner(plan, session).flatMap { qe =>
      PreparationReplay.lastBreakingRule(session, qe.sparkPlan)(broken)
    }
}

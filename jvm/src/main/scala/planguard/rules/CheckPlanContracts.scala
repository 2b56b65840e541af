package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.SparkPlan

import planguard.{Departure, Invariant, Violations}
import planguard.checks.{DeepestDeparture, DistributionCheck, OperatorContractCheck,
  PreparationReplay}
import planguard.conf.{Level, Levels}

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
    // Every plan Spark prepares comes here: plain arrays and loops (see DeepestDeparture).
    val at = new Array[Level](contracts.length)
    val checked = new Array[SparkPlan => Departure](contracts.length)
    var i = 0
    while (i < contracts.length) {
      at(i) = levels(contracts(i).invariant)
      if (at(i) != Level.Off) checked(i) = contracts(i).ofOperator
      i += 1
    }
    val found = DeepestDeparture.each(plan, checked)
    i = 0
    while (i < contracts.length) {
      val contract = contracts(i)
      if (found(i) != null) {
        Violations.checkAt(at(i), session, contract.invariant, phase, plan)(found(i))(_ =>
          culprit(session, plan)(!contract.ofPlan(_).isEmpty))
      }
      i += 1
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

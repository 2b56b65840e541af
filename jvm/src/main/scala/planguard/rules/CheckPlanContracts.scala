package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.internal.SQLConf

import planguard.{Departure, Invariant, Violations}
import planguard.checks.{DeepestDeparture, DistributionCheck, OperatorContractCheck,
  PreparationReplay}
import planguard.conf.{Level, PlanGuardConf}

/**
 * DISTRIBUTION and OPERATOR_CONTRACT, on any prepared physical plan: a query's, a subquery's, an
 * adaptive re-planning or an adaptive stage. Both hold of a plan alone, whatever query it belongs
 * to, so every plan Spark prepares is checked, both in one walk. The rule that broke one is named
 * by replaying the preparation of the running query's planned plan.
 */
object CheckPlanContracts {

  private final case class Contract(invariant: Invariant, ofOperator: SparkPlan => Departure,
      ofPlan: SparkPlan => Departure)

  private val contracts = IndexedSeq(
    Contract(Invariant.Distribution, DistributionCheck.requirements, DistributionCheck(_)),
    Contract(Invariant.OperatorContract, OperatorContractCheck.contract, OperatorContractCheck(_)))

  def apply(session: SparkSession, plan: SparkPlan, phase: String): Unit = {
    val conf = SQLConf.get
    val checked = contracts.filter(c => PlanGuardConf.level(conf, c.invariant) != Level.Off)
    if (checked.nonEmpty) {
      checked.zip(DeepestDeparture.each(plan, checked.map(_.ofOperator))).foreach {
        case (contract, departure) =>
          Violations.check(session, contract.invariant, phase, plan)(departure)(_ =>
            culprit(session, plan)(!contract.ofPlan(_).isEmpty))
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

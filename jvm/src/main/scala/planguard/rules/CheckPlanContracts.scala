package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.SparkPlan

import planguard.{Invariant, Violations}
import planguard.checks.{DistributionCheck, OperatorContractCheck, PreparationReplay}

/**
 * DISTRIBUTION and OPERATOR_CONTRACT, on any prepared physical plan: a query's, a subquery's, an
 * adaptive re-planning or an adaptive stage. Both hold of a plan alone, whatever query it belongs
 * to, so every plan Spark prepares is checked. The rule that broke one is named by replaying the
 * preparation of the running query's planned plan.
 */
object CheckPlanContracts {

  def apply(session: SparkSession, plan: SparkPlan, phase: String): Unit = {
    Violations.check(session, Invariant.Distribution, phase, plan)(DistributionCheck(plan))(_ =>
      culprit(session, plan)(!DistributionCheck(_).isEmpty))
    Violations.check(session, Invariant.OperatorContract, phase, plan)(
      OperatorContractCheck(plan))(_ => culprit(session, plan)(!OperatorContractCheck(_).isEmpty))
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

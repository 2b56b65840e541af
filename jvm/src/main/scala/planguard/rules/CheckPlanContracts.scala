package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}

import planguard.attribution.PreparationReplay
import planguard.checks.{DeepestDeparture, DistributionCheck, OperatorContractCheck}
import planguard.claims.{Baseline, ClaimsCheck}
import planguard.contract.{Departure, Invariant, Level}
import planguard.schema.{LogicalTypes, SchemaDiff}

/**
 * DISTRIBUTION and OPERATOR_CONTRACT, on any prepared physical plan: a query's, a subquery's, an
 * adaptive re-planning or an adaptive stage. Both hold of a plan alone, whatever query it belongs
 * to, so every plan Spark prepares is checked, both in one walk; and, under OPERATOR_CONTRACT,
 * what the plan's operators declare without backing (ClaimsCheck), read against the owner's
 * optimized plan, but for what its planned plan declares already (PLANNING_SCHEMA's). The rule
 * that broke one is named by replaying the preparation of the running query's planned plan.
 */
object CheckPlanContracts {

  private final case class Contract(invariant: Invariant, ofOperator: SparkPlan => Departure,
      ofPlan: SparkPlan => Departure)

  private val contracts = Array(
    Contract(Invariant.Distribution, DistributionCheck.requirements, DistributionCheck(_)),
    Contract(Invariant.OperatorContract, OperatorContractCheck.contract, OperatorContractCheck(_)))

  def apply(context: CheckContext, plan: SparkPlan, phase: String): Unit = {
    val (session, owner, levels) = (context.session, context.owner, context.levels)
    val checked = contracts.filter(c => levels(c.invariant) != Level.Off)
    if (checked.nonEmpty) {
      val found = DeepestDeparture.each(plan, checked.map(_.ofOperator))
      var i = 0
      while (i < checked.length) {
        val contract = checked(i)
        context.reporter.report(contract.invariant, phase, plan)(found(i))(_ =>
          lastBreaking(session, owner)(!contract.ofPlan(_).isEmpty))
        i += 1
      }
    }
    if (levels(Invariant.OperatorContract) != Level.Off) {
      val claims = new Claims(plan, owner, context.types)
      context.reporter.report(Invariant.OperatorContract, phase, plan)(claims.newIn(
        plan))(_ => owner.flatMap(qe => PreparationReplay.firstBreakingRule(session,
          qe.sparkPlan)(!claims.newIn(_).isEmpty)))
    }
  }

  /**
   * Preparation establishes distributions (EnsureRequirements): the culprit is the last rule after
   * which the replayed plan breaks the contract again.
   */
  private def lastBreaking(session: SparkSession, owner: Option[QueryExecution])(
      broken: SparkPlan => Boolean): Option[String] =
    owner.flatMap(qe => PreparationReplay.lastBreakingRule(session, qe.sparkPlan)(broken))

  /**
   * What a prepared plan claims without backing, read against the optimized plan it was planned
   * from (its topmost operator's logical link) and its owner's, leaving out what the owner's
   * planned plan claims already: planning's claims are PLANNING_SCHEMA's, reported once. Both,
   * because the owner found is the running execution's, which is a command's where the plan is
   * one the command plans itself (CACHE TABLE's query, with adaptive execution off).
   */
  private final class Claims(plan: SparkPlan, owner: Option[QueryExecution],
      types: LogicalTypes) {
    private val baseline = new Baseline(owner.map(_.optimizedPlan).toSeq ++
      plan.find(_.logicalLink.isDefined).flatMap(_.logicalLink))
    private lazy val planned: Set[String] = owner.fold(Set.empty[String])(qe =>
      ClaimsCheck(qe.sparkPlan, baseline, types).differences.toSet)

    def newIn(p: SparkPlan): SchemaDiff = {
      val found = ClaimsCheck(p, baseline, types)
      if (found.isEmpty || found.differences.forall(planned.contains)) SchemaDiff.Holds else found
    }
  }
}

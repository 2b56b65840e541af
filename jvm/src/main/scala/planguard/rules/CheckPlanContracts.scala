package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}

import planguard.attribution.{PreparationReplay, StrategyAttribution}
import planguard.checks.{DeepestDeparture, DistributionCheck, OperatorContractCheck}
import planguard.claims.{Baseline, ClaimsCheck}
import planguard.contract.{Departure, Invariant, Level, Phase}
import planguard.schema.{LogicalTypes, SchemaDiff}

/**
 * DISTRIBUTION and OPERATOR_CONTRACT, on any prepared physical plan: a query's, a subquery's, an
 * adaptive re-planning or an adaptive stage. Both hold of a plan alone, whatever query it belongs
 * to, so every plan Spark prepares is checked, both in one walk. And what the plan's operators
 * declare without backing (ClaimsCheck), read against the owner's optimized plan: under
 * PLANNING_SCHEMA where the owner's planned plan declares it already (physical planning made it),
 * else under OPERATOR_CONTRACT. Every operator that runs is in a prepared plan, so the planned
 * plan's claims are read there, not in a walk of their own. The rule that broke a contract is
 * named by replaying the preparation of the running query's planned plan.
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
    val (planning, contract) = (levels(Invariant.PlanningSchema) != Level.Off,
      levels(Invariant.OperatorContract) != Level.Off)
    if (planning || contract) {
      val claims = new Claims(plan, owner, context.types)
      val found = claims.in(plan)
      if (!found.isEmpty) owner.filter(_ => claims.planned(found)) match {
        // Made by physical planning: PLANNING_SCHEMA's, under the strategy that planned the
        // operator, reported once for the query (adaptive execution re-plans the rest of it after
        // each stage and finds it again).
        case Some(qe) => if (planning && !Claims.reported(qe)) {
          context.reporter.report(Invariant.PlanningSchema, Phase.PhysicalPlanning, qe.sparkPlan)(
            claims.ofPlanned)(_ => claims.deepestPlanned.flatMap(
              StrategyAttribution.strategyPlanning(session, _)))
          Claims.markReported(qe)
        }
        case None => if (contract) {
          context.reporter.report(Invariant.OperatorContract, phase, plan)(found)(_ =>
            owner.flatMap(qe => PreparationReplay.firstBreakingRule(session, qe.sparkPlan)(
              !claims.newIn(_).isEmpty)))
        }
      }
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
   * from (its topmost operator's logical link) and its owner's; and what of it the owner's planned
   * plan claims already, made by physical planning. Both plans, because the owner found is the
   * running execution's, which is a command's where the plan is one the command plans itself
   * (CACHE TABLE's query, with adaptive execution off). The planned plan is walked only once a
   * prepared plan is found to claim something: its operators are copied by preparation, and the
   * walk's first reading of each one's expressions and output is most of its cost.
   */
  private final class Claims(plan: SparkPlan, owner: Option[QueryExecution],
      types: LogicalTypes) {
    private val baseline = new Baseline(owner.map(_.optimizedPlan).toSeq ++
      plan.find(_.logicalLink.isDefined).flatMap(_.logicalLink))
    lazy val ofPlanned: SchemaDiff =
      owner.fold(SchemaDiff.Holds)(qe => ClaimsCheck(qe.sparkPlan, baseline, types))

    def in(p: SparkPlan): SchemaDiff = ClaimsCheck(p, baseline, types)

    /** Whether the planned plan makes every claim `found` makes. */
    def planned(found: SchemaDiff): Boolean =
      !ofPlanned.isEmpty && found.differences.forall(ofPlanned.differences.contains)

    /** What `p` claims that the planned plan does not: what its preparation made. */
    def newIn(p: SparkPlan): SchemaDiff = {
      val found = in(p)
      if (found.isEmpty || planned(found)) SchemaDiff.Holds else found
    }

    /** The planned plan's deepest operator with claims, for naming the strategy that made it. */
    def deepestPlanned: Option[SparkPlan] =
      owner.flatMap(qe => ClaimsCheck.deepestClaimed(qe.sparkPlan, baseline, types))
  }

  private object Claims {
    private val Reported = TreeNodeTag[Unit]("planguard.planningClaimsReported")

    /**
     * Whether the planning claims of `qe` were reported already, as a warning: one that fails the
     * query is not remembered, as Spark 3.5 prepares a failed query again.
     */
    def reported(qe: QueryExecution): Boolean = qe.sparkPlan.getTagValue(Reported).nonEmpty

    def markReported(qe: QueryExecution): Unit = qe.sparkPlan.setTagValue(Reported, ())
  }
}

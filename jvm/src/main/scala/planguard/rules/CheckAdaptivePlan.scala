package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.QueryStageExec

import planguard.attribution.{CheckOnly, OptimizerReplay, PhysicalAttribution}
import planguard.checks.{OptimizerSchemaCheck, Outputs, PhysicalSchemaCheck}
import planguard.claims.ClaimsCheck
import planguard.conf.PlanGuardConf
import planguard.contract.{Invariant, Phase}
import planguard.query.PlannedQuery
import planguard.report.{Findings, Violations}
import planguard.schema.LogicalTypes

/**
 * Adaptive execution plans a query again after each stage: every re-planned physical plan must keep
 * the planned schema (PHYSICAL_SCHEMA) and every re-optimized logical plan the analyzed one
 * (OPTIMIZER_SCHEMA); every re-planned plan, a subquery's too, must give each operator its input
 * as it requires (DISTRIBUTION) and keep each operator's contract (OPERATOR_CONTRACT). Spark runs
 * query-stage preparation rules on the initial plan and on each whole re-planned plan. Returns
 * the plan unchanged.
 *
 * The initial plan never runs as such: adaptive execution cuts stages from it, each checked as it
 * is created (CheckPreparedPlan), and plans the rest again after each stage (here) up to the
 * final stage (CheckPreparedPlan). So its operators' contracts are checked there, each before it
 * runs, and not here as well, except in a statement that is planned and never run (`planguard
 * check`), whose initial plan is all there is.
 */
final case class CheckAdaptivePlan(session: SparkSession) extends Rule[SparkPlan]
  with CheckOnly {

  override def apply(plan: SparkPlan): SparkPlan = {
    Guarded(session, ruleName) {
      val owner = PlannedQuery.owner(plan, session)
      val outputs = new Outputs
      val query = PlannedQuery.whole(plan, owner, outputs, adaptive = true)
      val contracts = Violations.recordingOnly || plan.exists(_.isInstanceOf[QueryStageExec])
      // Nothing to check in the initial plan of a query planned outside a SQL execution
      // (explain, df.queryExecution, df.rdd): it is checked when it runs, inside its own.
      if (query.isDefined || contracts) {
        val levels = PlanGuardConf.levels(session.sessionState.conf)
        val types = LogicalTypes.of(session.sessionState.conf)
        Findings.keptOn(PlannedQuery.findingsRoot(plan, owner), levels) {
          query.foreach { qe =>
            val reoptimized = PlannedQuery.rootLink(plan)
              .filterNot(l => qe.sparkPlan.logicalLink.exists(_ eq l))
            reoptimized.foreach { logical =>
              val analyzed = PlannedQuery.analyzed(qe)
              Violations.report(levels, session, Invariant.OptimizerSchema,
                Phase.AdaptiveReoptimization, logical)(
                OptimizerSchemaCheck(analyzed, qe.optimizedPlan, logical, types)) { _ =>
                OptimizerReplay.firstBreakingOf(
                  session.sessionState.adaptiveRulesHolder.runtimeOptimizerRules,
                  qe.optimizedPlan, "adaptive runtime optimizer rule") { p =>
                  !OptimizerSchemaCheck(analyzed, qe.optimizedPlan, p, types).isEmpty
                }
              }
              // What the optimized plan claims already was reported where it was made.
              val claims = ClaimsCheck.newClaims(qe.optimizedPlan, types)
              Violations.report(levels, session, Invariant.OptimizerSchema,
                Phase.AdaptiveReoptimization, logical)(claims(logical)) { _ =>
                OptimizerReplay.firstBreakingOf(
                  session.sessionState.adaptiveRulesHolder.runtimeOptimizerRules,
                  qe.optimizedPlan, "adaptive runtime optimizer rule")(!claims(_).isEmpty)
              }
            }
            Violations.report(levels, session, Invariant.PhysicalSchema,
              Phase.AdaptiveReoptimization, plan)(
              PhysicalSchemaCheck(PlannedQuery.analyzed(qe), qe.sparkPlan, plan, types,
                outputs))(_ =>
              PhysicalAttribution.ruleOf(session, PlannedQuery.analyzed(qe), qe.sparkPlan, plan,
                types))
          }
          if (contracts) {
            CheckPlanContracts(session, plan, Phase.AdaptiveReoptimization, levels, types, owner)
          }
        }
      }
    }
    plan
  }
}

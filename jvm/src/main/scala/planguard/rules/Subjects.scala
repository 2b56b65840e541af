package planguard.rules

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}

import planguard.attribution.OptimizerReplay
import planguard.checks.ResultPlans
import planguard.claims.{Baseline, ClaimsCheck}
import planguard.contract.Phase
import planguard.query.PlannedQuery
import planguard.schema.SchemaDiff

/**
 * An optimizer's run, as OPTIMIZER_SCHEMA reads it: `after`, optimized from `before` (the analyzed
 * plan; at adaptive re-optimization, the optimized plan the runtime rules start from), with the
 * outputs of their results, read once; the claims `after` makes that the plans before it do not
 * back; and `replay`, which finds the first of the run's rules after which a plan is broken.
 */
private[rules] final class Optimization(val phase: String, val analyzed: LogicalPlan,
    val before: LogicalPlan, val after: LogicalPlan, outputs: => (Seq[Attribute], Seq[Attribute]),
    val claims: LogicalPlan => SchemaDiff, val replay: (LogicalPlan => Boolean) => Option[String]) {
  lazy val (beforeOutput, afterOutput) = outputs
}

private[rules] object Optimization {

  /** The optimizer's run from the analyzed plan of `query`. */
  def of(query: PlannedQuery, context: CheckContext): Optimization = {
    val analyzed = new Baseline(Seq(query.analyzed))
    new Optimization(Phase.Optimization, query.analyzed, query.analyzed, query.optimized,
      (query.analyzedOutput, query.optimizedOutput), ClaimsCheck(_, analyzed, context.types),
      OptimizerReplay.firstBreakingRule(context.session, query.analyzed))
  }

  /**
   * An adaptive re-optimization of `qe`'s optimized plan into `reoptimized`: what the optimized
   * plan claims already was reported where it was made.
   */
  def adaptive(qe: QueryExecution, reoptimized: LogicalPlan, context: CheckContext)
      : Optimization = {
    val optimized = qe.optimizedPlan
    new Optimization(Phase.AdaptiveReoptimization, PlannedQuery.analyzed(qe), optimized,
      reoptimized, (ResultPlans.output(optimized), ResultPlans.output(reoptimized)),
      ClaimsCheck.newClaims(optimized, context.types),
      OptimizerReplay.firstBreakingOf(
        context.session.sessionState.adaptiveRulesHolder.runtimeOptimizerRules, optimized,
        "adaptive runtime optimizer rule"))
  }
}

/**
 * Physical planning, as PLANNING_SCHEMA reads it: `physical`, planned from the optimized plan of
 * `query` — the plan as planned, where Spark keeps it (`query.planned`), else the prepared plan.
 */
private[rules] final case class Planning(query: PlannedQuery, physical: SparkPlan)

/**
 * A physical plan prepared (or adaptively re-planned) from `qe`'s planned plan, as PHYSICAL_SCHEMA
 * reads it: the whole plan of that query.
 */
private[rules] final case class Preparation(phase: String, qe: QueryExecution,
    prepared: SparkPlan)

package planguard.rules

import planguard.attribution.{PhysicalAttribution, StrategyAttribution}
import planguard.checks.{OptimizerSchemaCheck, PhysicalSchemaCheck, PlanningSchemaCheck,
  UniqueFieldCheck}
import planguard.claims.LocalRows
import planguard.contract.{Invariant, Phase}
import planguard.query.PlannedQuery

/**
 * Every check of a query's plans, each with the rule it names when it finds a departure, declared
 * once: a hook runs those of the subjects it has at hand (QueryChecks, CheckAdaptivePlan). Adding
 * a check is adding an entry here. The contracts of any physical plan, DISTRIBUTION and
 * OPERATOR_CONTRACT, are checked together in one walk of the plan (CheckPlanContracts), and so
 * are the claims the plans' operators make.
 */
private[rules] object Checks {

  /** What the query as written is given and returns, at analysis. */
  val ofAnalysis: Seq[Check[PlannedQuery]] = Seq(
    new Check[PlannedQuery](Invariant.UniqueField, phase = _ => Phase.Analysis,
      plan = _.analyzed,
      departure = (q, c) =>
        UniqueFieldCheck(q.analyzed, q.analyzedOutput, c.conf.caseSensitiveAnalysis),
      culprit = (_, _, _) => None),
    new Check[PlannedQuery](Invariant.BatchSchema, phase = _ => Phase.Analysis,
      plan = _.analyzed,
      departure = (q, _) => LocalRows(q.analyzed),
      culprit = (_, _, found) => LocalRows.culprit(found)))

  /** An optimizer's run: the analyzed plan's optimization, each adaptive re-optimization. */
  val ofOptimization: Seq[Check[Optimization]] = Seq(
    new Check[Optimization](Invariant.OptimizerSchema, phase = _.phase, plan = _.after,
      departure = (o, c) =>
        OptimizerSchemaCheck(o.analyzed, o.beforeOutput, o.afterOutput, c.types),
      culprit = (o, c, _) =>
        o.replay(!OptimizerSchemaCheck(o.analyzed, o.before, _, c.types).isEmpty)),
    new Check[Optimization](Invariant.OptimizerSchema, phase = _.phase, plan = _.after,
      departure = (o, _) => o.claims(o.after),
      culprit = (o, _, _) => o.replay(!o.claims(_).isEmpty)))

  /**
   * Physical planning. Its claims are read in the prepared plans, where they run, and named
   * PLANNING_SCHEMA's where the plan as planned makes them (CheckPlanContracts).
   */
  val ofPlanning: Seq[Check[Planning]] = Seq(
    new Check[Planning](Invariant.PlanningSchema, phase = _ => Phase.PhysicalPlanning,
      plan = _.physical,
      departure = (p, c) => PlanningSchemaCheck(p.query.optimized, p.query.optimizedOutput,
        p.physical, c.types, c.outputs),
      culprit = (p, c, _) => StrategyAttribution.strategyOf(c.session, p.physical)))

  /** A query's whole physical plan, prepared or adaptively re-planned. */
  val ofPreparation: Seq[Check[Preparation]] = Seq(
    new Check[Preparation](Invariant.PhysicalSchema, phase = _.phase, plan = _.prepared,
      departure = (p, c) => PhysicalSchemaCheck(PlannedQuery.analyzed(p.qe), p.qe.sparkPlan,
        p.prepared, c.types, c.outputs),
      culprit = (p, c, _) => PhysicalAttribution.ruleOf(c.session, PlannedQuery.analyzed(p.qe),
        p.qe.sparkPlan, p.prepared, c.types)))
}

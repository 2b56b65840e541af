package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan}

import planguard.{Guarded, Invariant, Phase, Violations}
import planguard.checks.{OptimizerReplay, OptimizerSchemaCheck, PlanningSchemaCheck, StrategyAttribution}

/**
 * OPTIMIZER_SCHEMA and PLANNING_SCHEMA, when Spark prepares a query's physical plan: after
 * planning, before anything executes. Returns the plan unchanged; throwing stops the query before
 * any row is produced or any file written.
 */
final case class CheckPreparedPlan(session: SparkSession) extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = {
    Guarded(session, ruleName) {
      PlannedQuery.of(plan, session).filter(_.firstCheck(ruleName)).foreach { query =>
        Violations.check(session, Invariant.OptimizerSchema, Phase.Optimization, query.optimized)(
          OptimizerSchemaCheck(query.analyzed, query.optimized)) { _ =>
          OptimizerReplay.firstBreakingRule(session.sessionState.optimizer,
            query.analyzed.clone())(!OptimizerSchemaCheck(query.analyzed, _).isEmpty)
        }
        val planned = query.planned.getOrElse(plan)
        Violations.check(session, Invariant.PlanningSchema, Phase.PhysicalPlanning, planned)(
          PlanningSchemaCheck(query.optimized, planned))(_ =>
          StrategyAttribution.strategyOf(session, planned))
      }
    }
    plan
  }
}

/** planguard's columnar rule: checks only, around Spark's columnar transitions. */
final class PlanGuardColumnarRule(session: SparkSession) extends ColumnarRule {
  override val preColumnarTransitions: Rule[SparkPlan] = CheckPreparedPlan(session)
  override val postColumnarTransitions: Rule[SparkPlan] = CheckPreparedPhysicalPlan(session)
}

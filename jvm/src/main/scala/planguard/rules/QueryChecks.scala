package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}

import planguard.attribution.{OptimizerReplay, PhysicalAttribution, StrategyAttribution}
import planguard.checks.{OptimizerSchemaCheck, Outputs, PhysicalSchemaCheck, PlanningSchemaCheck,
  UniqueFieldCheck}
import planguard.claims.{Baseline, ClaimsCheck, LocalRows}
import planguard.conf.Levels
import planguard.contract.{Invariant, Phase}
import planguard.query.PlannedQuery
import planguard.report.Violations
import planguard.schema.LogicalTypes

/**
 * The checks that hold of a whole query, not of a plan alone: they compare its analyzed,
 * optimized, planned and prepared plans. Run once its physical plan is prepared
 * (CheckPreparedPlan), or, for a plan prepared outside any SQL execution, where that was not
 * possible, when the plan executes (ChecksAtExecution).
 */
private[planguard] object QueryChecks {

  /**
   * UNIQUE_FIELD, OPTIMIZER_SCHEMA and PLANNING_SCHEMA of `query`, whose prepared plan is `plan`;
   * then the query is marked checked.
   */
  def ofQuery(session: SparkSession, levels: Levels, types: LogicalTypes, query: PlannedQuery,
      plan: SparkPlan, outputs: Outputs): Unit = {
    Violations.report(levels, session, Invariant.UniqueField, Phase.Analysis, query.analyzed)(
      UniqueFieldCheck(query.analyzed, query.analyzedOutput,
        session.sessionState.conf.caseSensitiveAnalysis))(
      _ => None)
    Violations.report(levels, session, Invariant.OptimizerSchema, Phase.Optimization,
      query.optimized)(
      OptimizerSchemaCheck(query.analyzed, query.analyzedOutput, query.optimizedOutput,
        types)) { _ =>
      OptimizerReplay.firstBreakingRule(session, query.analyzed)(
        !OptimizerSchemaCheck(query.analyzed, query.analyzed, _, types).isEmpty)
    }
    val analyzed = new Baseline(Seq(query.analyzed))
    Violations.report(levels, session, Invariant.OptimizerSchema, Phase.Optimization,
      query.optimized)(ClaimsCheck(query.optimized, analyzed, types)) { _ =>
      OptimizerReplay.firstBreakingRule(session, query.analyzed)(
        !ClaimsCheck(_, analyzed, types).isEmpty)
    }
    val planned = query.planned.getOrElse(plan)
    Violations.report(levels, session, Invariant.PlanningSchema, Phase.PhysicalPlanning,
      planned)(
      PlanningSchemaCheck(query.optimized, query.optimizedOutput, planned, types, outputs))(_ =>
      StrategyAttribution.strategyOf(session, planned))
    // Planning's claims are read in the plan as planned, before preparation: a prepared plan's
    // are OPERATOR_CONTRACT's (CheckPlanContracts).
    query.planned.foreach { planned =>
      val optimized = new Baseline(Seq(query.optimized))
      Violations.report(levels, session, Invariant.PlanningSchema, Phase.PhysicalPlanning,
        planned)(ClaimsCheck(planned, optimized, types))(_ =>
        ClaimsCheck.deepestClaimed(planned, optimized, types)
          .flatMap(StrategyAttribution.strategyPlanning(session, _)))
    }
    Violations.report(levels, session, Invariant.BatchSchema, Phase.Analysis, query.analyzed)(
      LocalRows(query.analyzed))(LocalRows.culprit)
    query.markChecked()
  }

  /** PHYSICAL_SCHEMA of `plan`, the whole prepared plan of `qe`'s query. */
  def ofWholePlan(session: SparkSession, levels: Levels, types: LogicalTypes, qe: QueryExecution,
      plan: SparkPlan, outputs: Outputs): Unit =
    Violations.report(levels, session, Invariant.PhysicalSchema, Phase.Preparation, plan)(
      PhysicalSchemaCheck(PlannedQuery.analyzed(qe), qe.sparkPlan, plan, types, outputs))(_ =>
      PhysicalAttribution.ruleOf(session, PlannedQuery.analyzed(qe), qe.sparkPlan, plan, types))
}

package planguard.rules

import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}

import planguard.query.PlannedQuery

/**
 * The checks that hold of a whole query, not of a plan alone: they compare its analyzed,
 * optimized, planned and prepared plans (Checks). Run once its physical plan is prepared
 * (CheckPreparedPlan), or, for a plan prepared outside any SQL execution, where that was not
 * possible, when the plan executes (ChecksAtExecution).
 */
private[rules] object QueryChecks {

  /**
   * The checks of analysis, optimization and physical planning of `query`, whose prepared plan
   * is `plan`; then the query is marked checked.
   */
  def ofQuery(context: CheckContext, query: PlannedQuery, plan: SparkPlan): Unit = {
    Checks.ofAnalysis.foreach(_(query, context))
    val optimization = Optimization.of(query, context)
    Checks.ofOptimization.foreach(_(optimization, context))
    val planning = Planning(query, query.planned.getOrElse(plan))
    Checks.ofPlanning.foreach(_(planning, context))
    query.markChecked()
  }

  /**
   * The checks of `plan`, the whole prepared (`phase`: preparation) or adaptively re-planned
   * (adaptive re-optimization) plan of `qe`'s query.
   */
  def ofWholePlan(context: CheckContext, qe: QueryExecution, plan: SparkPlan,
      phase: String): Unit = {
    val preparation = Preparation(phase, qe, plan)
    Checks.ofPreparation.foreach(_(preparation, context))
  }
}

package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec

import planguard.attribution.CheckOnly
import planguard.contract.Phase
import planguard.query.PlannedQuery

/**
 * The contracts of a prepared physical plan, checked once Spark has prepared it — after planning,
 * EnsureRequirements, the other preparation rules and the columnar transitions — and before
 * anything executes. For the query whose plan it is: the checks of its analysis, optimization and
 * planning, once (QueryChecks.ofQuery); those of its whole prepared plan (with adaptive execution,
 * also of its final stage); DISTRIBUTION and OPERATOR_CONTRACT on every plan (subqueries' and
 * adaptive stages' too). Returns the plan with BATCH_SCHEMA's checks placed (PlaceBatchChecks),
 * which execution runs; throwing stops the query before any row is produced or any file written.
 * A plan prepared outside any SQL execution has no QueryExecution at hand: what needs it is
 * completed when the plan runs (ChecksAtExecution).
 */
final case class CheckPreparedPlan(session: SparkSession) extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = {
    var result = plan
    Guarded(session, ruleName) {
      val owner = PlannedQuery.owner(plan, session)
      val context = CheckContext(session, owner, PlannedQuery.findingsRoot(plan, owner))
      PlannedQuery.of(plan, owner, session, context.outputs).filter(_.unchecked).foreach {
        QueryChecks.ofQuery(context, _, plan)
      }
      PlannedQuery.whole(plan, owner, context.outputs, context.conf.adaptiveExecutionEnabled)
        .foreach(QueryChecks.ofWholePlan(context, _, plan, Phase.Preparation))
      plan match {
        // A leaf here: its stages, re-plannings and final stage are checked as they come.
        case _: AdaptiveSparkPlanExec =>
        case _ =>
          CheckPlanContracts(context, plan, Phase.Preparation)
          // An EXPLAIN statement's plan is shown, never run: it shows the plan Spark made.
          // Prepared outside any SQL execution, a query's plan was checked without its
          // QueryExecution: its result's check completes the query's checks when it runs.
          if (!PlannedQuery.explaining(session)) {
            result = PlaceBatchChecks(context, plan, checksAtExecution = owner.isEmpty)
          }
      }
    }
    result
  }
}

/**
 * planguard's columnar rule: checks only, after the columnar transitions, where every other
 * extension's columnar rules have run too.
 */
final class PlanGuardColumnarRule(session: SparkSession) extends ColumnarRule with CheckOnly {
  override val postColumnarTransitions: Rule[SparkPlan] = CheckPreparedPlan(session)
}

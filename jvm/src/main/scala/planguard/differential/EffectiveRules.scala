package planguard.differential

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.QueryExecution

/**
 * The optimizer rules that changed a query's plan, from Spark's own account of them (the query's
 * `QueryPlanningTracker`: each rule's effective invocations), less those Spark refuses to exclude
 * (`Optimizer.nonExcludableRules`): the rules `spark.sql.optimizer.excludedRules` can take out of
 * this query's optimization, one a line, in the order the optimizer runs them.
 */
object EffectiveRules {
  def of(session: SparkSession, query: QueryExecution): String = {
    query.optimizedPlan
    val tracked = query.tracker.rules
    val optimizer = session.sessionState.optimizer
    val refused = optimizer.nonExcludableRules.toSet
    optimizer.batches.flatMap(_.rules.map(_.ruleName)).distinct
      .filter(rule => !refused(rule) && tracked.get(rule).exists(_.numEffectiveInvocations > 0))
      .mkString("\n")
  }
}

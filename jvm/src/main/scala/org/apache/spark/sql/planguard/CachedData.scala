package org.apache.spark.sql.planguard

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/**
 * The step between normalization and the optimizer (QueryExecution.withCachedData): the session's
 * cached queries put in `plan` as their in-memory relations, for a replay of the optimizer to
 * start from what the optimizer was given (the CacheManager's method is private to Spark).
 */
object CachedData {
  def use(session: SparkSession, plan: LogicalPlan): LogicalPlan =
    session.sharedState.cacheManager.useCachedData(plan)
}

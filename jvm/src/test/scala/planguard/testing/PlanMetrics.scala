package planguard.testing

import org.apache.spark.sql.Dataset
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, AdaptiveSparkPlanHelper}

/** A query's SQL metrics, for the Python tests: read from the plan that ran. */
object PlanMetrics extends AdaptiveSparkPlanHelper {

  /** The sum of the metrics called `name` over the executed plan (its final plan, if adaptive). */
  def named(query: Dataset[_], name: String): Long = {
    val plan: SparkPlan = query.queryExecution.executedPlan match {
      case a: AdaptiveSparkPlanExec => a.finalPhysicalPlan
      case p => p
    }
    collectWithSubqueries(plan) { case node => node.metrics.values.toSeq }.flatten
      .filter(_.name.contains(name)).map(_.value).sum
  }
}

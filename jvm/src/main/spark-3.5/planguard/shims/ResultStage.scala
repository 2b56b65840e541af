package planguard.shims

import org.apache.spark.sql.execution.SparkPlan

/** Adaptive execution's result stage is Spark 4.0's (ResultQueryStageExec): 3.5 has none. */
object ResultStage {
  def unapply(plan: SparkPlan): Option[SparkPlan] = None
}

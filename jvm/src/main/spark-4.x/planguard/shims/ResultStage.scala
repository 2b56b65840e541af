package planguard.shims

import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.ResultQueryStageExec

/**
 * Adaptive execution's result stage (ResultQueryStageExec, new in Spark 4.0), unwrapped: the plan
 * it runs. Spark 3.5 runs the final plan without such a stage.
 */
object ResultStage {
  def unapply(plan: SparkPlan): Option[SparkPlan] = plan match {
    case r: ResultQueryStageExec => Some(r.plan)
    case _ => None
  }
}

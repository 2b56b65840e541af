package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

import planguard.attribution.CheckOnly
import planguard.conf.PlanGuardConf
import planguard.query.AnalyzedPlans

/**
 * Remembers the analyzed root of every QueryExecution as it becomes the optimizer's input, so that
 * a plan prepared outside a SQL execution (explain, cache, df.rdd) can be traced back to it.
 * Returns the plan unchanged.
 */
final case class RememberAnalyzedPlan(session: SparkSession) extends Rule[LogicalPlan]
  with CheckOnly {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (PlanGuardConf.enabled(session.sessionState.conf)) AnalyzedPlans.remember(plan)
    plan
  }
}

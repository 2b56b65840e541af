package planguard.rules

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf

import planguard.conf.PlanGuardConf

/**
 * Remembers the analyzed root of every QueryExecution as it becomes the optimizer's input, so that
 * a plan prepared outside a SQL execution (explain, cache, df.rdd) can be traced back to it.
 * Returns the plan unchanged.
 */
object RememberAnalyzedPlan extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (PlanGuardConf.enabled(SQLConf.get)) AnalyzedPlans.remember(plan)
    plan
  }
}

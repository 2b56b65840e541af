package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.trees.TreePattern.ALIAS

import planguard.naming.GeneratedNames

/**
 * Remembers the tagged aliases of a plan's unanalyzed nodes, in the Resolution batch
 * (GeneratedNames.remember).
 */
final case class RememberGeneratedNames(session: SparkSession) extends Rule[LogicalPlan] {
  // Runs in every Resolution-batch iteration: a plan with nothing to remember reads no conf.
  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!plan.analyzed && plan.containsPattern(ALIAS)) {
      Guarded(session, ruleName)(GeneratedNames.remember(plan))
    }
    plan
  }
}

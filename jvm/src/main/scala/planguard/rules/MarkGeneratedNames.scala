package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.trees.TreePattern.UNRESOLVED_ALIAS

import planguard.naming.GeneratedNames

/**
 * Tags the unresolved aliases of a plan before Spark resolves them (GeneratedNames.mark): it runs
 * in the Hints batch, which precedes Resolution.
 */
final case class MarkGeneratedNames(session: SparkSession) extends Rule[LogicalPlan] {
  // Runs in every Hints-batch iteration: a plan with nothing to mark reads no conf.
  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (plan.containsPattern(UNRESOLVED_ALIAS)) {
      Guarded(session, ruleName)(GeneratedNames.mark(plan))
    }
    plan
  }
}

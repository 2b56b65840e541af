package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.SparkPlan

import planguard.{Guarded, Invariant, Phase, Violations}
import planguard.checks.{PhysicalAttribution, PhysicalSchemaCheck}

/**
 * PHYSICAL_SCHEMA on each prepared plan, after EnsureRequirements, the other preparation rules and
 * the columnar transitions — without adaptive execution the whole plan, with it the final stage —
 * against the plan as planned. Returns the plan unchanged.
 */
final case class CheckPreparedPhysicalPlan(session: SparkSession) extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = {
    Guarded(session, ruleName) {
      PlannedQuery.whole(plan, session).foreach { qe =>
        Violations.check(session, Invariant.PhysicalSchema, Phase.Preparation, plan)(
          PhysicalSchemaCheck(qe.analyzed, qe.sparkPlan, plan))(_ =>
          PhysicalAttribution.ruleOf(session, qe.analyzed, qe.sparkPlan, plan))
      }
    }
    plan
  }
}

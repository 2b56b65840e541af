package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan}

import planguard.{Guarded, Invariant, Phase, Violations}
import planguard.checks.OptimizerSchemaCheck
import planguard.conf.Level

/**
 * Checks each query's plans when Spark prepares its physical plan for execution; returns the plan
 * unchanged. Throwing here stops the query before any row is produced or any file written.
 */
final case class CheckPreparedPlan(session: SparkSession) extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = {
    Guarded(ruleName) {
      val level = Violations.level(Invariant.OptimizerSchema)
      if (level != Level.Off) {
        PlannedQuery.of(plan, session).filter(_.firstCheck()).foreach { query =>
          val diff = OptimizerSchemaCheck(query.analyzed, query.optimized)
          if (!diff.isEmpty) {
            Violations.report(level, Invariant.OptimizerSchema, Phase.Optimization, diff, None)
          }
        }
      }
    }
    plan
  }
}

/**
 * The columnar pre-transition hook is the one plan hook Spark runs on both the adaptive and the
 * non-adaptive path, after planning and before execution.
 */
final class PlanGuardColumnarRule(session: SparkSession) extends ColumnarRule {
  override val preColumnarTransitions: Rule[SparkPlan] = CheckPreparedPlan(session)
}

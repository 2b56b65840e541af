package planguard.attribution

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SparkPlan

import planguard.checks.PhysicalSchemaCheck
import planguard.schema.LogicalTypes

/**
 * The rule that broke PHYSICAL_SCHEMA: a preparation or adaptive query-stage rule found by replay,
 * else the planner strategy that planned the departing node (adaptive execution re-plans).
 */
object PhysicalAttribution {
  def ruleOf(session: SparkSession, analyzed: LogicalPlan, planned: SparkPlan,
      actual: SparkPlan, types: LogicalTypes): Option[String] =
    PreparationReplay.firstBreakingRule(session, planned)(
      !PhysicalSchemaCheck(analyzed, planned, _, types).isEmpty)
      .orElse(StrategyAttribution.strategyOf(session, actual))
}

package planguard.checks

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SparkPlan

import planguard.schema.SchemaDiff

/**
 * PLANNING_SCHEMA (seed 004 §3.5): the physical plan's output schema is the optimized plan's with
 * qualifiers stripped — names, order, types; nullability may tighten, never loosen.
 */
object PlanningSchemaCheck {
  def apply(optimized: LogicalPlan, planned: SparkPlan): SchemaDiff = {
    val expected = ResultPlans.logical(optimized).schema
    SchemaDiff.exact(expected, ResultPlans.physical(planned, optimized).fold(expected)(_.schema),
      "planning keeps the optimized schema, qualifiers stripped")
  }
}

package planguard.checks

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SparkPlan

import planguard.schema.{LogicalTypes, SchemaDiff}

/**
 * PLANNING_SCHEMA (seed 004 §3.5): the physical plan's output schema is the optimized plan's with
 * qualifiers stripped — names, order, types; nullability may tighten, never loosen.
 */
object PlanningSchemaCheck {
  def apply(optimized: LogicalPlan, planned: SparkPlan, types: LogicalTypes): SchemaDiff = {
    val logical = ResultPlans.logical(optimized)
    ResultPlans.physical(planned, optimized) match {
      case Some(physical) if !types.conforms(logical.output, physical.output) =>
        SchemaDiff.exact(logical.schema, physical.schema,
          "planning keeps the optimized schema, qualifiers stripped", types)
      case _ => SchemaDiff.Holds
    }
  }
}

package planguard.checks

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SparkPlan

import planguard.schema.SchemaDiff

/**
 * PHYSICAL_SCHEMA (seed 004 §3.8): preparing a physical plan (EnsureRequirements, columnar
 * transitions, ...) and adaptive re-planning keep the planned schema — exactly when the query is
 * projected, as a multiset otherwise; nullability may tighten, never loosen.
 */
object PhysicalSchemaCheck {
  def apply(analyzed: LogicalPlan, planned: SparkPlan, prepared: SparkPlan): SchemaDiff = {
    val logicalRoot = planned.logicalLink.getOrElse(analyzed)
    val expected = SchemaDiff.nullableAsIn(ResultPlans.physical(planned, logicalRoot).schema,
      ResultPlans.logical(analyzed).schema)
    val actual = ResultPlans.physical(prepared, logicalRoot).schema
    val why = ResultPlans.orderRule(analyzed)
    if (ResultPlans.isProjected(analyzed)) SchemaDiff.exact(expected, actual, why)
    else SchemaDiff.asMultiset(expected, actual, why)
  }
}

package planguard.checks

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import planguard.schema.{LogicalTypes, SchemaDiff}

/**
 * OPTIMIZER_SCHEMA (seed 004 §3.7): optimisation keeps the analyzed plan's output schema —
 * exactly when the analyzed root is a projection, as a multiset otherwise. Nullability may
 * tighten, never loosen. Qualifiers are not part of the output schema, so they may change.
 */
object OptimizerSchemaCheck {

  /** The difference between the analyzed and the optimized schema; empty when the contract holds. */
  def apply(analyzed: LogicalPlan, optimized: LogicalPlan): SchemaDiff =
    apply(analyzed, analyzed, optimized)

  /**
   * The same contract from an earlier optimized plan: adaptive re-optimization must keep the
   * schema the optimizer produced, and a break the optimizer made is reported once, there.
   * Nullability the optimizer tightened may loosen back to the analyzed plan's.
   */
  def apply(analyzed: LogicalPlan, before: LogicalPlan, after: LogicalPlan): SchemaDiff = {
    val (from, to) = (ResultPlans.logical(before), ResultPlans.logical(after))
    // The usual case, cheaply: the same fields in the same order, none loosened.
    if (LogicalTypes.conforms(from.output, to.output)) return SchemaDiff.Holds
    val expected = SchemaDiff.nullableAsIn(from.schema, ResultPlans.logical(analyzed).schema)
    val actual = to.schema
    val why = ResultPlans.orderRule(analyzed)
    if (ResultPlans.isProjected(analyzed)) SchemaDiff.exact(expected, actual, why)
    else SchemaDiff.asMultiset(expected, actual, why)
  }
}

package planguard.checks

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SparkPlan

import planguard.schema.{LogicalTypes, SchemaDiff}

/**
 * PHYSICAL_SCHEMA: preparing a physical plan (EnsureRequirements, columnar
 * transitions, ...) and adaptive re-planning keep the planned schema — exactly when the query is
 * projected, as a multiset otherwise. Nullability is the prepared plan's to restate: a NOT NULL
 * it withdraws stays true of the rows (preparation puts physical scalar subqueries, declared
 * nullable, where the optimizer proved a value non-null; adaptive execution puts an empty
 * relation with the analyzed nullability in place of a result it finds empty), and one it adds
 * at the root is checked on its rows (BATCH_SCHEMA).
 */
object PhysicalSchemaCheck {
  /** @param outputs the physical plans' outputs, read once for all the checks of one plan */
  def apply(analyzed: LogicalPlan, planned: SparkPlan, prepared: SparkPlan,
      types: LogicalTypes, outputs: Outputs = new Outputs): SchemaDiff = {
    val logicalRoot = planned.logicalLink.getOrElse(analyzed)
    // A command whose query is not its physical child is checked as that query, elsewhere.
    val plannedQuery = ResultPlans.physical(planned, logicalRoot).getOrElse(planned)
    val preparedQuery = ResultPlans.physical(prepared, logicalRoot).getOrElse(plannedQuery)
    // The usual case, cheaply: the same fields in the same order, none loosened.
    if ((preparedQuery eq plannedQuery) ||
        types.conforms(outputs(plannedQuery), outputs(preparedQuery))) {
      return SchemaDiff.Holds
    }
    val actual = preparedQuery.schema
    val expected = SchemaDiff.nullableAsIn(plannedQuery.schema, actual, types)
    val why = ResultPlans.orderRule(analyzed)
    if (ResultPlans.isProjected(analyzed)) SchemaDiff.exact(expected, actual, why, types)
    else SchemaDiff.asMultiset(expected, actual, why, types)
  }
}

package planguard.checks

import org.apache.spark.sql.catalyst.plans.logical.{Command, LogicalPlan, Project, SubqueryAlias, View}

import planguard.schema.SchemaDiff

/**
 * OPTIMIZER_SCHEMA (seed 004 §3.7): optimisation keeps the analyzed plan's output schema —
 * exactly when the analyzed root is a projection, as a multiset otherwise. Nullability may
 * tighten, never loosen. Qualifiers are not part of the output schema, so they may change.
 */
object OptimizerSchemaCheck {

  /** The difference between the analyzed and the optimized schema; empty when the contract holds. */
  def apply(analyzed: LogicalPlan, optimized: LogicalPlan): SchemaDiff = {
    val (expected, actual) = resultPlans(analyzed, optimized)
    if (isProjected(expected)) SchemaDiff.exact(expected.schema, actual.schema)
    else SchemaDiff.asMultiset(expected.schema, actual.schema)
  }

  /** A write command returns no rows: its contract is on the query whose rows it writes. */
  private def resultPlans(analyzed: LogicalPlan, optimized: LogicalPlan) =
    (analyzed, optimized) match {
      case (a: Command, o: Command) if a.children.size == 1 && o.children.size == 1 =>
        (a.children.head, o.children.head)
      case _ => (analyzed, optimized)
    }

  /** Aliases and views only rename the relation; the projection under them fixes the order. */
  private def isProjected(plan: LogicalPlan): Boolean = plan match {
    case _: Project => true
    case SubqueryAlias(_, child) => isProjected(child)
    case v: View => isProjected(v.child)
    case _ => false
  }
}

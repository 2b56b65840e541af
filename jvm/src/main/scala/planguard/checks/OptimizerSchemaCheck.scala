package planguard.checks

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.types.StructType

import planguard.schema.{LogicalTypes, SchemaDiff}

/**
 * OPTIMIZER_SCHEMA: optimisation keeps the analyzed plan's output schema — names and types,
 * exactly when the analyzed root is a projection, as a multiset otherwise. Qualifiers are not
 * part of the output schema, so they may change; nor is field metadata (LogicalTypes); nor is
 * declared nullability, which the optimizer restates either way as it replaces the operators
 * that produce a column (a decorrelated subquery becomes an outer join, INTERSECT a semi join
 * keeping its left side's nullability, a function its implementation). Spark's analyzer even
 * declares NOT NULL what it returns null for (`uniform(NULL, 1, 0)` in Spark 4.0.1). The NOT NULL
 * declarations code relies on, the physical operators', are checked on the rows a query returns
 * (BATCH_SCHEMA).
 */
object OptimizerSchemaCheck {

  /**
   * The difference between the analyzed and the optimized schema, given the outputs of their
   * results (ResultPlans.output), each read once by the caller; empty when the contract holds.
   */
  def apply(analyzed: LogicalPlan, analyzedOutput: Seq[Attribute],
      optimizedOutput: Seq[Attribute], types: LogicalTypes): SchemaDiff =
    compare(analyzed, analyzedOutput, optimizedOutput, types)

  /**
   * The same contract from an earlier optimized plan: adaptive re-optimization must keep the
   * schema the optimizer produced, and a break the optimizer made is reported once, there.
   */
  def apply(analyzed: LogicalPlan, before: LogicalPlan, after: LogicalPlan,
      types: LogicalTypes): SchemaDiff =
    compare(analyzed, ResultPlans.output(before), ResultPlans.output(after), types)

  private def compare(analyzed: LogicalPlan, from: Seq[Attribute], to: Seq[Attribute],
      types: LogicalTypes): SchemaDiff = {
    // The usual case, cheaply: the same fields in the same order, none loosened.
    if (types.conforms(from, to)) return SchemaDiff.Holds
    val (expected, actual) = (DataTypeUtils.fromAttributes(from), DataTypeUtils.fromAttributes(to))
    val why = ResultPlans.orderRule(analyzed)
    val compared =
      if (ResultPlans.isProjected(analyzed)) {
        SchemaDiff.exact(nullable(expected), nullable(actual), why, types)
      } else SchemaDiff.asMultiset(nullable(expected), nullable(actual), why, types)
    compared.copy(expected = expected, actual = actual)
  }

  private def nullable(schema: StructType): StructType =
    LogicalTypes.asNullable(schema).asInstanceOf[StructType]
}

package planguard.checks

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.catalyst.util.MetadataColumnHelper
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.types.{Metadata, StructType}

import planguard.schema.{LogicalTypes, SchemaDiff}

/**
 * OPTIMIZER_SCHEMA: optimisation keeps the analyzed plan's output schema — names, types and
 * metadata, exactly when the analyzed root is a projection, as a multiset otherwise. Qualifiers
 * are not part of the output schema, so they may change; nor is declared nullability, which the
 * optimizer restates either way as it replaces the operators that produce a column (a
 * decorrelated subquery becomes an outer join, INTERSECT a semi join keeping its left side's
 * nullability, a function its implementation). Spark's analyzer even declares NOT NULL what it
 * returns null for (`uniform(NULL, 1, 0)` in Spark 4.0.1). The NOT NULL declarations code relies
 * on, the physical operators', are checked on the rows a query returns (BATCH_SCHEMA).
 *
 * Nor is the metadata of a v2 table's metadata columns (Iceberg's `_file`, `_pos`, `_spec_id`,
 * `_partition`, ...): the table describes each twice, and Spark takes one description per phase.
 * The analyzer builds the column's attribute from the table's `MetadataColumn` (its name, type and
 * `metadataInJSON`); the optimizer's V2ScanRelationPushDown rebuilds the relation's attributes
 * from the scan's read schema, keeping only their ids. Where the two differ (Iceberg 1.10 puts a
 * comment on its metadata columns in the read schema only), the optimized schema differs from
 * the analyzed one by no rule's doing, as soon as a projection over the scan is dropped as a
 * no-op. Users set no metadata on these columns; their values are the same either way.
 */
object OptimizerSchemaCheck {

  /**
   * The difference between the analyzed and the optimized schema, given the outputs of their
   * results (ResultPlans.logical), each read once by the caller; empty when the contract holds.
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
    compare(analyzed, ResultPlans.logical(before).output, ResultPlans.logical(after).output, types)

  private def compare(analyzed: LogicalPlan, from: Seq[Attribute], to: Seq[Attribute],
      types: LogicalTypes): SchemaDiff = {
    // The usual case, cheaply: the same fields in the same order, none loosened.
    if (types.conforms(from, to)) return SchemaDiff.Holds
    val described = tableMetadataColumns(analyzed)
    val (expected, actual) = (schema(from, described), schema(to, described))
    val why = ResultPlans.orderRule(analyzed)
    val compared =
      if (ResultPlans.isProjected(analyzed)) {
        SchemaDiff.exact(nullable(expected), nullable(actual), why, types)
      } else SchemaDiff.asMultiset(nullable(expected), nullable(actual), why, types)
    compared.copy(expected = DataTypeUtils.fromAttributes(from),
      actual = DataTypeUtils.fromAttributes(to))
  }

  /** The metadata columns that the analyzed plan reads from v2 tables. */
  private def tableMetadataColumns(analyzed: LogicalPlan): AttributeSet =
    AttributeSet(analyzed.collect {
      case r: DataSourceV2Relation => r.output.filter(_.isMetadataCol)
    }.flatten)

  /** The schema of `output`, the table's metadata columns without their metadata. */
  private def schema(output: Seq[Attribute], described: AttributeSet): StructType =
    DataTypeUtils.fromAttributes(output.map { a =>
      if (described.contains(a)) a.withMetadata(Metadata.empty) else a
    })

  private def nullable(schema: StructType): StructType =
    LogicalTypes.asNullable(schema).asInstanceOf[StructType]
}

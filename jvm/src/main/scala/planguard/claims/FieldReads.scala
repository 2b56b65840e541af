package planguard.claims

import org.apache.spark.sql.catalyst.expressions.{Expression, GetArrayStructFields,
  GetStructField}
import org.apache.spark.sql.types.{ArrayType, DataType, StructType}

import planguard.schema.LogicalTypes

/**
 * Which field of its input a struct-field access reads. Analysis resolves `s.A` to the field of
 * `s` it names (case-insensitively unless spark.sql.caseSensitive=true) and keeps the name as
 * written; a rule that rewrites the input's type must keep the access reading that same field:
 * Spark 3.5.0-3.5.1's OptimizeCsvJsonExprs pruned `from_json(...).A` to parse a field `A` the data
 * does not have (SPARK-49743), and the access read nulls where the data held values.
 */
private[claims] object FieldReads {

  /** An access as analysis names it: the name written and the type it reads. */
  final case class Access(name: String, dataType: DataType)

  /** The access `e` is, with the exact name of the input's field it reads now. */
  def unapply(e: Expression): Option[(Access, String)] = e match {
    case GetStructField(child, ordinal, Some(name)) => child.dataType match {
      case s: StructType if ordinal < s.length =>
        Some(Access(name, LogicalTypes.asNullable(s(ordinal).dataType)) -> s(ordinal).name)
      case _ => None
    }
    case GetArrayStructFields(child, field, ordinal, _, _) => child.dataType match {
      case ArrayType(s: StructType, _) if ordinal < s.length =>
        Some(Access(field.name, LogicalTypes.asNullable(field.dataType)) -> s(ordinal).name)
      case _ => None
    }
    case _ => None
  }
}

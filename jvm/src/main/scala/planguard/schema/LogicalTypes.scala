package planguard.schema

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._

/**
 * planguard's one definition of "the same logical type", used by every schema comparison
 * (docs/types.md). Types and collations must be equal; names equal as the session resolves them
 * (ignoring case unless spark.sql.caseSensitive=true: `GROUP BY C1` may name the column `c1`'s
 * grouping `C1`, and every later reference resolves both alike); nullability may tighten
 * (nullable to not null) at any nesting level, never loosen. Field metadata is not compared
 * (docs/invariants.md, "Metadata is not part of a schema contract"): Spark's own rules drop a
 * column's comment (`dropDuplicates` on some columns) and fill one in (`CAST(c AS STRING) AS c`),
 * and Spark's own plan validation compares names and types only. A column vector is compared on
 * what it carries: its data type, without nullability.
 *
 * @param caseSensitive whether names that differ only in case are different names
 */
final case class LogicalTypes(caseSensitive: Boolean) {

  /** True when a value of `actual` type is a valid value of `expected` type. */
  def conforms(expected: DataType, actual: DataType): Boolean = (expected, actual) match {
    case (e: StructType, a: StructType) =>
      e.length == a.length && e.fields.indices.forall(i => conforms(e.fields(i), a.fields(i)))
    case (ArrayType(e, eNull), ArrayType(a, aNull)) =>
      LogicalTypes.tightens(eNull, aNull) && conforms(e, a)
    case (MapType(ek, ev, eNull), MapType(ak, av, aNull)) =>
      LogicalTypes.tightens(eNull, aNull) && conforms(ek, ak) && conforms(ev, av)
    case _ => expected == actual
  }

  def conforms(expected: StructField, actual: StructField): Boolean =
    sameName(expected.name, actual.name) &&
      LogicalTypes.tightens(expected.nullable, actual.nullable) &&
      conforms(expected.dataType, actual.dataType)

  /** As for fields, on the attributes a plan declares: its schema without building one. */
  def conforms(expected: Attribute, actual: Attribute): Boolean =
    sameName(expected.name, actual.name) &&
      LogicalTypes.tightens(expected.nullable, actual.nullable) &&
      conforms(expected.dataType, actual.dataType)

  /** Position by position: a plan's declared output against the one a contract expects. */
  def conforms(expected: Seq[Attribute], actual: Seq[Attribute]): Boolean =
    expected.length == actual.length &&
      expected.iterator.zip(actual.iterator).forall { case (e, a) => conforms(e, a) }

  def sameName(expected: String, actual: String): Boolean =
    if (caseSensitive) expected == actual else expected.equalsIgnoreCase(actual)
}

object LogicalTypes {

  /** Names compared exactly: for what no session resolves (column vectors, tests). */
  val Exact: LogicalTypes = LogicalTypes(caseSensitive = true)
  private val IgnoringCase = LogicalTypes(caseSensitive = false)

  /** Names compared as `conf`'s analyzer resolves them. */
  def of(conf: SQLConf): LogicalTypes = if (conf.caseSensitiveAnalysis) Exact else IgnoringCase

  /**
   * `dataType` with every level nullable: what a plan may declare for a column whose analyzed
   * type is `dataType` when only its nullability is restated (see OptimizerSchemaCheck).
   */
  def asNullable(dataType: DataType): DataType = dataType match {
    case s: StructType =>
      StructType(s.fields.map(f => f.copy(dataType = asNullable(f.dataType), nullable = true)))
    case ArrayType(e, _) => ArrayType(asNullable(e), containsNull = true)
    case MapType(k, v, _) => MapType(asNullable(k), asNullable(v), valueContainsNull = true)
    case other => other
  }

  /**
   * True when a column vector of type `vector` holds values of the `expected` type. Vectors keep
   * no nullability, and Arrow vectors not the collation (a collated string is
   * stored as the same UTF-8 bytes): those are not compared. A user-defined type is stored as its
   * SQL type.
   */
  def stores(expected: DataType, vector: DataType): Boolean = (expected, vector) match {
    case (e: UserDefinedType[_], v) => stores(e.sqlType, v)
    case (e, v: UserDefinedType[_]) => stores(e, v.sqlType)
    case (_: StringType, _: StringType) => true
    case (e: StructType, v: StructType) =>
      e.length == v.length && e.fields.zip(v.fields).forall { case (ef, vf) =>
        ef.name == vf.name && stores(ef.dataType, vf.dataType)
      }
    case (ArrayType(e, _), ArrayType(v, _)) => stores(e, v)
    case (MapType(ek, ev, _), MapType(vk, vv, _)) => stores(ek, vk) && stores(ev, vv)
    case _ => expected == vector
  }

  /** Nullability may go from nullable to not null, never the other way. */
  private def tightens(expectedNullable: Boolean, actualNullable: Boolean): Boolean =
    expectedNullable || !actualNullable
}

package planguard.schema

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.types._

/**
 * planguard's one definition of "the same logical type", used by every schema comparison.
 * Types, names, collations and field metadata (which carries char/varchar lengths) must be equal;
 * nullability may tighten (nullable to not null) at any nesting level, never loosen. A column
 * vector is compared on what it carries: its data type, without nullability or metadata
 * (see docs/types.md).
 */
object LogicalTypes {

  /** True when a value of `actual` type is a valid value of `expected` type. */
  def conforms(expected: DataType, actual: DataType): Boolean = (expected, actual) match {
    case (e: StructType, a: StructType) =>
      e.length == a.length && e.fields.indices.forall(i => conforms(e.fields(i), a.fields(i)))
    case (ArrayType(e, eNull), ArrayType(a, aNull)) => tightens(eNull, aNull) && conforms(e, a)
    case (MapType(ek, ev, eNull), MapType(ak, av, aNull)) =>
      tightens(eNull, aNull) && conforms(ek, ak) && conforms(ev, av)
    case _ => expected == actual
  }

  def conforms(expected: StructField, actual: StructField): Boolean =
    expected.name == actual.name && tightens(expected.nullable, actual.nullable) &&
      expected.metadata == actual.metadata && conforms(expected.dataType, actual.dataType)

  /** As for fields, on the attributes a plan declares: its schema without building one. */
  def conforms(expected: Attribute, actual: Attribute): Boolean =
    expected.name == actual.name && tightens(expected.nullable, actual.nullable) &&
      expected.metadata == actual.metadata && conforms(expected.dataType, actual.dataType)

  /** Position by position: a plan's declared output against the one a contract expects. */
  def conforms(expected: Seq[Attribute], actual: Seq[Attribute]): Boolean =
    expected.length == actual.length &&
      expected.iterator.zip(actual.iterator).forall { case (e, a) => conforms(e, a) }

  /**
   * True when a column vector of type `vector` holds values of the `expected` type. Vectors keep
   * neither nullability nor metadata, and Arrow vectors not the collation (a collated string is
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

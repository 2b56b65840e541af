package planguard.schema

import org.apache.spark.sql.types._

/**
 * planguard's one definition of "the same logical type", used by every schema comparison.
 * Types, names, collations and field metadata (which carries char/varchar lengths) must be equal;
 * nullability may tighten (nullable to not null) at any nesting level, never loosen.
 */
object LogicalTypes {

  /** True when a value of `actual` type is a valid value of `expected` type. */
  def conforms(expected: DataType, actual: DataType): Boolean = (expected, actual) match {
    case (e: StructType, a: StructType) =>
      e.length == a.length && e.fields.zip(a.fields).forall { case (ef, af) => conforms(ef, af) }
    case (ArrayType(e, eNull), ArrayType(a, aNull)) => tightens(eNull, aNull) && conforms(e, a)
    case (MapType(ek, ev, eNull), MapType(ak, av, aNull)) =>
      tightens(eNull, aNull) && conforms(ek, ak) && conforms(ev, av)
    case _ => expected == actual
  }

  def conforms(expected: StructField, actual: StructField): Boolean =
    expected.name == actual.name && tightens(expected.nullable, actual.nullable) &&
      expected.metadata == actual.metadata && conforms(expected.dataType, actual.dataType)

  /** Nullability may go from nullable to not null, never the other way. */
  private def tightens(expectedNullable: Boolean, actualNullable: Boolean): Boolean =
    expectedNullable || !actualNullable
}

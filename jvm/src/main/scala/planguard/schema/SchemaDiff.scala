package planguard.schema

import scala.collection.mutable

import org.apache.spark.sql.types.{StructField, StructType}

import planguard.contract.Departure

/**
 * The field-by-field difference between the schema a contract expects and the one a plan has.
 *
 * @param comparison how the schemas were compared, in words, for the error message
 */
final case class SchemaDiff(
    expected: StructType,
    actual: StructType,
    comparison: String,
    differences: Seq[String]) extends Departure {
  override def expectedText: String = SchemaDiff.render(expected)
  override def actualText: String = SchemaDiff.render(actual)
}

object SchemaDiff {

  /** The contract holds, found without building the schemas. */
  val Holds: SchemaDiff = SchemaDiff(StructType(Nil), StructType(Nil), "", Nil)

  /** Position by position: same names, order and types; nullability may tighten. */
  def exact(expected: StructType, actual: StructType, why: String,
      types: LogicalTypes): SchemaDiff = {
    val differences = (0 until math.max(expected.length, actual.length)).flatMap { i =>
      (expected.fields.lift(i), actual.fields.lift(i)) match {
        case (Some(e), Some(a)) if !types.conforms(e, a) => Some(s"#$i ${describe(e, a, types)}")
        case (Some(e), None) => Some(s"#$i missing ${render(e)}")
        case (None, Some(a)) => Some(s"#$i unexpected ${render(a)}")
        case _ => None
      }
    }
    SchemaDiff(expected, actual, s"exact: $why", differences)
  }

  /** As multisets: the same fields in any order; nullability may tighten. */
  def asMultiset(expected: StructType, actual: StructType, why: String,
      types: LogicalTypes): SchemaDiff = {
    val unmatched = mutable.ArrayBuffer(actual.fields.toIndexedSeq: _*)
    val missing = expected.fields.filter { e =>
      val i = unmatched.indexWhere(a => types.conforms(e, a))
      if (i >= 0) unmatched.remove(i)
      i < 0
    }
    val differences = missing.map { e =>
      unmatched.indexWhere(a => types.sameName(e.name, a.name)) match {
        case -1 => s"missing ${render(e)}"
        case i => describe(e, unmatched.remove(i), types)
      }
    } ++ unmatched.map(a => s"unexpected ${render(a)}")
    SchemaDiff(expected, actual, s"as a multiset: $why", differences.toSeq)
  }

  /**
   * `schema` with each field nullable where `floor` has a nullable field of that name: the
   * nullability a later step may declare without a difference.
   */
  def nullableAsIn(schema: StructType, floor: StructType, types: LogicalTypes): StructType = {
    val nullable = floor.fields.filter(_.nullable)
    StructType(schema.fields.map { f =>
      if (nullable.exists(n => types.sameName(n.name, f.name))) f.copy(nullable = true) else f
    })
  }

  private def describe(e: StructField, a: StructField, types: LogicalTypes): String = {
    val what = Seq(
      if (!types.sameName(e.name, a.name)) Some(s"name ${e.name} -> ${a.name}") else None,
      if (!types.conforms(e.dataType, a.dataType)) {
        Some(s"type ${e.dataType.sql} -> ${a.dataType.sql}")
      } else None,
      if (!e.nullable && a.nullable) Some("nullability loosened: NOT NULL -> nullable") else None
    ).flatten
    s"${e.name}: ${what.mkString(", ")}"
  }

  private def render(f: StructField): String =
    s"${f.name} ${f.dataType.sql}${if (f.nullable) "" else " NOT NULL"}"

  def render(schema: StructType): String =
    if (schema.isEmpty) "(no columns)" else schema.fields.map(render).mkString(", ")
}

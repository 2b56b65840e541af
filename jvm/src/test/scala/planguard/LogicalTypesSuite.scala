package planguard

import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import planguard.schema.LogicalTypes
import planguard.testing.Collations

/** planguard's one definition of logical type equality (docs/types.md). */
class LogicalTypesSuite extends AnyFunSuite {
  // None on Spark 3.5, which has no collations.
  private val lcase = Collations.lowercase
  private val exact = LogicalTypes.Exact

  private def field(t: DataType, nullable: Boolean = true, metadata: Metadata = Metadata.empty) =
    StructField("c", t, nullable, metadata)

  test("types and collations are significant") {
    assert(!exact.conforms(IntegerType, LongType))
    assert(!exact.conforms(DecimalType(10, 2), DecimalType(12, 2)))
    assert(!exact.conforms(TimestampType, TimestampNTZType))
    lcase.foreach { collated =>
      assert(!exact.conforms(StringType, collated))
      assert(exact.conforms(collated, Collations.lowercase.get))
    }
  }

  test("names compare as the session resolves them") {
    val c1 = StructField("c1", IntegerType)
    assert(!exact.conforms(c1, c1.copy(name = "C1")))
    assert(LogicalTypes(caseSensitive = false).conforms(c1, c1.copy(name = "C1")))
    assert(!LogicalTypes(caseSensitive = false).conforms(c1, c1.copy(name = "c2")))
  }

  test("metadata is not compared, at any level") {
    // CHAR/VARCHAR as Spark keeps them after analysis: a STRING whose metadata names the type.
    val meta = (t: DataType) =>
      CharVarcharUtils.replaceCharVarcharWithStringInSchema(StructType(Seq(field(t)))).head.metadata
    val (c3, v3) = (meta(CharType(3)), meta(VarcharType(3)))
    assert(c3 != Metadata.empty && c3 != v3)
    assert(exact.conforms(field(StringType, metadata = c3), field(StringType, metadata = v3)))
    val comment = new MetadataBuilder().putString("comment", "the key").build()
    val other = new MetadataBuilder().putString("comment", "another").build()
    // Spark drops a comment (`dropDuplicates` on other columns) and fills one in
    // (`CAST(c AS STRING) AS c`, reduced to `c`).
    assert(exact.conforms(field(StringType, metadata = comment), field(StringType)))
    assert(exact.conforms(field(StringType), field(StringType, metadata = comment)))
    assert(exact.conforms(field(StringType, metadata = comment),
      field(StringType, metadata = other)))
    val nested = (m: Metadata) => StructType(Seq(StructField("x", StringType, true, m)))
    assert(exact.conforms(nested(comment), nested(Metadata.empty)))
    // What is compared still is: the type, the name, nullability.
    assert(!exact.conforms(field(StringType, metadata = comment), field(IntegerType)))
    assert(!exact.conforms(nested(comment), StructType(Seq(StructField("y", StringType)))))
  }

  test("nullability may tighten, never loosen, at every level") {
    assert(exact.conforms(field(IntegerType), field(IntegerType, nullable = false)))
    assert(!exact.conforms(field(IntegerType, nullable = false), field(IntegerType)))
    assert(exact.conforms(ArrayType(IntegerType, true), ArrayType(IntegerType, false)))
    assert(!exact.conforms(ArrayType(IntegerType, false), ArrayType(IntegerType, true)))
    assert(!exact.conforms(MapType(StringType, IntegerType, false),
      MapType(StringType, IntegerType, true)))
  }

  test("nested types are compared field by field") {
    val s = StructType(Seq(StructField("x", IntegerType), StructField("y", StringType)))
    assert(exact.conforms(ArrayType(s), ArrayType(s)))
    assert(!exact.conforms(ArrayType(s), ArrayType(StructType(s.fields.reverse))))
    assert(!exact.conforms(s, s.copy(fields = s.fields.map(_.copy(name = "z")))))
    assert(!exact.conforms(s, StructType(s.fields.take(1))))
  }

  test("a column vector is compared on its type, without nullability, metadata or collation") {
    val s = StructType(Seq(StructField("x", IntegerType, nullable = false)))
    assert(LogicalTypes.stores(s, s.copy(fields = s.fields.map(_.copy(nullable = true)))))
    lcase.foreach(collated => assert(LogicalTypes.stores(collated, StringType)))
    assert(LogicalTypes.stores(ArrayType(IntegerType, false), ArrayType(IntegerType, true)))
    assert(!LogicalTypes.stores(IntegerType, LongType))
    assert(!LogicalTypes.stores(s, StructType(Seq(StructField("y", IntegerType)))))
    assert(!LogicalTypes.stores(MapType(StringType, IntegerType), MapType(StringType, LongType)))
  }
}

package planguard

import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import planguard.schema.LogicalTypes

/** planguard's one definition of logical type equality (docs/types.md). */
class LogicalTypesSuite extends AnyFunSuite {
  private val lcase = StringType("UTF8_LCASE")

  private def field(t: DataType, nullable: Boolean = true, metadata: Metadata = Metadata.empty) =
    StructField("c", t, nullable, metadata)

  test("types and collations are significant") {
    assert(!LogicalTypes.conforms(IntegerType, LongType))
    assert(!LogicalTypes.conforms(DecimalType(10, 2), DecimalType(12, 2)))
    assert(!LogicalTypes.conforms(TimestampType, TimestampNTZType))
    assert(!LogicalTypes.conforms(StringType, lcase))
    assert(LogicalTypes.conforms(lcase, StringType("UTF8_LCASE")))
  }

  test("char and varchar are strings told apart by their metadata") {
    // As Spark stores them: a STRING field whose metadata keeps the declared type.
    val meta = (t: DataType) =>
      CharVarcharUtils.replaceCharVarcharWithStringInSchema(StructType(Seq(field(t)))).head.metadata
    val (c3, v3) = (meta(CharType(3)), meta(VarcharType(3)))
    assert(c3 != Metadata.empty && c3 != v3)
    assert(LogicalTypes.conforms(field(StringType, metadata = c3), field(StringType, metadata = c3)))
    assert(!LogicalTypes.conforms(field(StringType, metadata = c3), field(StringType, metadata = v3)))
    assert(!LogicalTypes.conforms(field(StringType, metadata = c3), field(StringType)))
  }

  test("nullability may tighten, never loosen, at every level") {
    assert(LogicalTypes.conforms(field(IntegerType), field(IntegerType, nullable = false)))
    assert(!LogicalTypes.conforms(field(IntegerType, nullable = false), field(IntegerType)))
    assert(LogicalTypes.conforms(ArrayType(IntegerType, true), ArrayType(IntegerType, false)))
    assert(!LogicalTypes.conforms(ArrayType(IntegerType, false), ArrayType(IntegerType, true)))
    assert(!LogicalTypes.conforms(MapType(StringType, IntegerType, false),
      MapType(StringType, IntegerType, true)))
  }

  test("nested types are compared field by field") {
    val s = StructType(Seq(StructField("x", IntegerType), StructField("y", StringType)))
    assert(LogicalTypes.conforms(ArrayType(s), ArrayType(s)))
    assert(!LogicalTypes.conforms(ArrayType(s), ArrayType(StructType(s.fields.reverse))))
    assert(!LogicalTypes.conforms(s, s.copy(fields = s.fields.map(_.copy(name = "z")))))
    assert(!LogicalTypes.conforms(s, StructType(s.fields.take(1))))
  }

  test("a column vector is compared on its type, without nullability, metadata or collation") {
    val s = StructType(Seq(StructField("x", IntegerType, nullable = false)))
    assert(LogicalTypes.stores(s, s.copy(fields = s.fields.map(_.copy(nullable = true)))))
    assert(LogicalTypes.stores(lcase, StringType))
    assert(LogicalTypes.stores(ArrayType(IntegerType, false), ArrayType(IntegerType, true)))
    assert(!LogicalTypes.stores(IntegerType, LongType))
    assert(!LogicalTypes.stores(s, StructType(Seq(StructField("y", IntegerType)))))
    assert(!LogicalTypes.stores(MapType(StringType, IntegerType), MapType(StringType, LongType)))
  }
}

package planguard.checks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{DataType, NullType, StructField, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch

import planguard.schema.{LogicalTypes, SchemaDiff}

/**
 * BATCH_SCHEMA: what execution produced against the plan's schema. A row is
 * checked on what it carries, its field count; a columnar batch on its column count and each
 * vector's data type (LogicalTypes.stores); a query's result also for nulls in the columns its
 * producing operator declares NOT NULL (`promised`, positions), which the code generated for its
 * consumers trusts.
 */
object BatchSchemaCheck {

  /**
   * @param trailing whether a row may carry fields past the plan's (a row-based data source's:
   *                 Spark's projection above it reads the plan's fields by position)
   */
  def row(expected: StructType, row: InternalRow, promised: Array[Int], trailing: Boolean)
      : SchemaDiff = {
    val numFields = row.numFields
    val differences =
      if (numFields == expected.length || trailing && numFields > expected.length) {
        nulls(expected, promised, i => row.isNullAt(i))
      }
      else Seq(s"a row has $numFields fields, the plan ${expected.length}") ++
        (numFields until expected.length).map(i => s"#$i missing ${expected(i).name}")
    diff(expected, differences, "rows: field count and promised NOT NULL columns",
      carried(expected, numFields, _ => None))
  }

  def batch(expected: StructType, batch: ColumnarBatch, promised: Array[Int]): SchemaDiff = {
    val n = batch.numCols()
    // A vector may declare no type (Iceberg's vectors of a column the scan fills itself): no
    // type to compare.
    val types = (i: Int) => Option(batch.column(i).dataType())
    val differences = (if (n == expected.length) nulls(expected, promised,
        i => batch.column(i).hasNull)
      else Seq(s"a batch has $n columns, the plan ${expected.length}")) ++
      (0 until math.min(n, expected.length)).flatMap { i =>
        types(i).filterNot(LogicalTypes.stores(expected(i).dataType, _)).map { v =>
          s"#$i ${expected(i).name}: vector type ${expected(i).dataType.sql} -> ${v.sql}"
        }
      }
    diff(expected, differences,
      "columnar batches: column count, vector types and promised NOT NULL columns",
      carried(expected, n, types))
  }

  private def nulls(expected: StructType, promised: Array[Int], isNull: Int => Boolean)
      : Seq[String] =
    promised.toSeq.filter(isNull).map { i =>
      s"#$i ${expected(i).name}: a null in a column the operator declares NOT NULL"
    }

  // The actual schema is built only for a violation: the check runs while the query does.
  private def diff(expected: StructType, differences: Seq[String], comparison: String,
      actual: => StructType): SchemaDiff =
    SchemaDiff(expected, if (differences.isEmpty) expected else actual, comparison, differences)

  /** The schema a row or batch shows: the plan's names, the types it carries where it does. */
  private def carried(expected: StructType, n: Int, types: Int => Option[DataType])
      : StructType =
    StructType((0 until n).map { i =>
      val field = expected.fields.lift(i).getOrElse(StructField(s"_$i", NullType))
      types(i).fold(field)(t => field.copy(dataType = t))
    })
}

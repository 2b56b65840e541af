package planguard.exec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.slf4j.LoggerFactory

import planguard.checks.BatchSchemaCheck
import planguard.contract.{Invariant, Phase}
import planguard.errors.InvariantViolation
import planguard.schema.SchemaDiff

/**
 * Checks a sample of what an operator produced — each partition's first row or batch, then every
 * `every`th — where it is produced (in tasks, or on the driver for collected rows). Fails the
 * task (and so the query) or logs one warning per partition on the executor.
 *
 * @param output the producing operator's declared output
 * @param producer the class of the operator that produced the rows or batches, for the report
 * @param notNull whether the columns the producing operator declares NOT NULL must hold no null
 *                (a query's result's)
 */
final case class BatchSampler(output: Seq[Attribute], producer: Class[_], fail: Boolean,
    every: Int, notNull: Boolean) {

  // Both built where the check runs, not while the query is planned.
  @transient private lazy val schema: StructType = DataTypeUtils.fromAttributes(output)
  /** The positions of the columns that must hold no null. */
  @transient private lazy val promised: Seq[Int] =
    if (notNull) schema.fields.indices.filterNot(schema(_).nullable) else Nil

  def rows(rows: Iterator[InternalRow]): Iterator[InternalRow] =
    sampled(rows)(r => BatchSchemaCheck.row(schema, r, promised))

  def batches(batches: Iterator[ColumnarBatch]): Iterator[ColumnarBatch] =
    sampled(batches)(b => BatchSchemaCheck.batch(schema, b, promised))

  def all(rows: Array[InternalRow]): Array[InternalRow] = {
    this.rows(rows.iterator).foreach(_ => ())
    rows
  }

  private def sampled[T](items: Iterator[T])(diff: T => SchemaDiff): Iterator[T] = {
    var left = 0
    var reported = false
    items.map { item =>
      if (left == 0) {
        left = every
        val found = diff(item)
        if (!found.isEmpty && !reported) {
          reported = true
          report(found)
        }
      }
      left -= 1
      item
    }
  }

  private def report(diff: SchemaDiff): Unit = {
    val violation =
      new InvariantViolation(Invariant.BatchSchema, Phase.Execution, diff, Some(producerName))
    if (fail) throw violation
    LoggerFactory.getLogger("planguard").warn(violation.getMessage.replace('\n', ' '))
  }

  // Named as Spark names nodes by default (nodeName, whose regex would cost more than the rest).
  private def producerName: String =
    s"operator ${producer.getSimpleName.stripSuffix("Exec")} (${producer.getName})"
}

package planguard.exec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.slf4j.LoggerFactory

import planguard.checks.BatchSchemaCheck
import planguard.contract.{Invariant, Level, Phase}
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
 * @param entry whether the rows enter row code from something that cannot prove their NOT NULL
 *              columns (a DataFrame's data, a cache, a data source's or a plugin's batches, a
 *              Python function's output): those columns are checked on every row and batch, as
 *              the code reading them trusts each one; the rest is sampled
 * @param trailing whether a row may carry fields past the declared ones (a row-based data
 *                 source's: Iceberg's metadata tables return more than they declare, which Spark's
 *                 projection above the scan drops)
 */
final case class BatchSampler(output: Seq[Attribute], producer: Class[_], fail: Boolean,
    every: Int, notNull: Boolean, entry: Boolean = false, trailing: Boolean = false) {

  // Both built where the check runs, not while the query is planned.
  @transient private lazy val schema: StructType = DataTypeUtils.fromAttributes(output)
  /** The positions of the columns that must hold no null. */
  @transient private lazy val promised: Array[Int] =
    if (notNull || entry) schema.fields.indices.filterNot(schema(_).nullable).toArray
    else Array.empty

  /** Whether this check stands for `a`'s NOT NULL: it checks it on every row and batch. */
  def provesNotNull(a: Attribute): Boolean =
    entry && output.exists(o => o.exprId == a.exprId && !o.nullable)

  def rows(rows: Iterator[InternalRow]): Iterator[InternalRow] =
    sampled(rows)(r => BatchSchemaCheck.row(schema, r, promised, trailing))(r =>
      promised.exists(i => i < r.numFields && r.isNullAt(i)))

  def batches(batches: Iterator[ColumnarBatch]): Iterator[ColumnarBatch] =
    sampled(batches)(b => BatchSchemaCheck.batch(schema, b, promised))(b =>
      promised.exists(i => i < b.numCols() && b.column(i).hasNull))

  def all(rows: Array[InternalRow]): Array[InternalRow] = {
    this.rows(rows.iterator).foreach(_ => ())
    rows
  }

  /**
   * Every `every`th item checked in full (`diff`); at an entry, every other item checked for a
   * null in a NOT NULL column (`hasNull`, a bit test per column) and, when it has one, in full.
   */
  private def sampled[T](items: Iterator[T])(diff: T => SchemaDiff)(hasNull: T => Boolean)
      : Iterator[T] = {
    val nullsEach = entry && promised.nonEmpty
    var left = 0
    var reported = false
    items.map { item =>
      if (left == 0 || (nullsEach && hasNull(item))) {
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
    val violation = InvariantViolation(Invariant.BatchSchema, if (fail) Level.Fail else Level.Warn,
      Phase.Execution, diff, Some(producerName), producerName)
    if (fail) throw violation
    LoggerFactory.getLogger("planguard").warn(violation.getMessage.replace('\n', ' '))
  }

  // Named as Spark names nodes by default (nodeName, whose regex would cost more than the rest).
  private def producerName: String =
    s"operator ${producer.getSimpleName.stripSuffix("Exec")} (${producer.getName})"
}

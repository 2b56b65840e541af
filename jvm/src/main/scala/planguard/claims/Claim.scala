package planguard.claims

import org.apache.spark.sql.catalyst.expressions.Alias
import org.apache.spark.sql.types.StructField

/**
 * One thing an operator declares that its plan does not back: a NOT NULL nothing proves, a
 * reference that reads another column or type than its producer outputs, a field access that
 * reads another field than it names.
 *
 * @param column the column (or expression) it is about, as the error shows it
 * @param expected what the operator could declare there: the column as its producer has it
 * @param actual what the operator declares
 * @param why the difference, in words
 */
final case class Claim(column: String, expected: StructField, actual: StructField, why: String) {
  def difference: String = s"$column: $why"

  /** The claim made inside the expression of the output column `a`, which the error names. */
  def in(a: Alias): Claim = copy(why = s"$why, in column ${a.name}#${a.exprId.id}")
}

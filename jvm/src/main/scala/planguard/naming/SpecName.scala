package planguard.naming

import java.util.Locale

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction}
import org.apache.spark.sql.catalyst.util.toPrettySQL
import org.apache.spark.sql.types.NumericType

import planguard.shims.BetweenExpression

/**
 * The naming=spec name of an expression (docs/naming.md): Spark's own pretty form
 * (`toPrettySQL`, which already
 * parenthesises operators with spaces, separates arguments with `, ` and unquotes string
 * literals), with what it lacks put in first:
 *  - every column qualified with its relation (the last part of its qualifier), when it has one;
 *  - unary minus as the operator `(- x)`, also for negative numeric literals (`SELECT -2`, which
 *    Spark parses as a literal) and for `negative(x)` (PySpark's `-col("x")`);
 *  - LIKE and BETWEEN as parenthesised operators, like every other operator (Spark writes
 *    `a LIKE b` and `between(a, b, c)`);
 *  - function names in lowercase, user-defined functions, window functions and `cast` included.
 * Spark names columns this way only where the user wrote no name; see ApplySpecNames.
 */
object SpecName {

  def apply(e: Expression): String = toPrettySQL(prepare(e))

  private def prepare(e: Expression): Expression = e.transformUp {
    case a: AttributeReference => PrettyAttribute(qualified(a), a.dataType)
    case Literal(v, t: NumericType) if v != null && v.toString.startsWith("-") =>
      PrettyAttribute(s"(- ${v.toString.drop(1)})", t)
    case m: UnaryMinus => PrettyAttribute(s"(- ${toPrettySQL(m.child)})", m.dataType)
    case b @ BetweenExpression(input, lower, upper) =>
      PrettyAttribute(s"(${apply(input)} BETWEEN ${apply(lower)} AND ${apply(upper)})",
        b.dataType)
    case like @ (_: Like | _: MultiLikeBase) =>
      PrettyAttribute(s"(${toPrettySQL(like)})", like.dataType)
    // Their arguments are not their children, so the transformation did not reach them.
    case r: InheritAnalysisRules =>
      PrettyAttribute(lowercased(r.makeSQLString(r.parameters.map(apply)), r.prettyName),
        r.dataType)
    // An aggregate function is named with its AggregateExpression, which must keep it as child.
    case call if !call.isInstanceOf[LeafExpression] && !call.isInstanceOf[AggregateFunction] =>
      val sql = toPrettySQL(call)
      val lower = lowercased(sql, callName(call))
      if (lower == sql) call else PrettyAttribute(lower, call.dataType)
  }

  private def qualified(a: AttributeReference): String =
    a.qualifier.lastOption.fold(a.name)(relation => s"$relation.${a.name}")

  /** The name a call is written with: `cast` for `CAST(x AS INT)`, the UDF's for a UDF. */
  private def callName(e: Expression): String = e match {
    case u: UserDefinedExpression => u.name
    case a: AggregateExpression => callName(a.aggregateFunction)
    case w: WindowExpression => callName(w.windowFunction)
    case _ => e.prettyName
  }

  /** `sql` with its leading call name in lowercase, if it starts with `name(`. */
  private def lowercased(sql: String, name: String): String =
    if (sql.regionMatches(true, 0, name, 0, name.length) && sql.startsWith("(", name.length)) {
      name.toLowerCase(Locale.ROOT) + sql.substring(name.length)
    } else sql
}

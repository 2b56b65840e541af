package planguard.checks

import java.util.Locale

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.StructType

import planguard.schema.SchemaDiff

/**
 * UNIQUE_FIELD: in the result of a query, no two different columns
 * (attributes) share (relation, name). The same column twice (`SELECT a, a`) is legal.
 *
 * Only the result: inside a plan, Spark enforces the invariant itself wherever a name is used.
 * It resolves every reference at analysis and fails on one that matches two columns
 * (AMBIGUOUS_REFERENCE), and from then on finds columns by id, so a clash below the root can never
 * be read by mistake (a DataFrame join whose sides both have `id`, selected as `df1.id` and
 * `df2.id`, is legal). What escapes Spark is the result it hands a client, who reads its columns
 * by name. A written query is left out (ResultPlans.writes): a write by name fails on duplicate
 * names in Spark, and a positional one (INSERT, SET VARIABLE, a view with a column list) never
 * reads them.
 */
object UniqueFieldCheck {

  /**
   * The clashes in the result of the query whose analyzed plan this is, given its `output` (read
   * once by the caller); empty when none.
   */
  def apply(analyzed: LogicalPlan, result: Seq[Attribute], caseSensitive: Boolean)
      : SchemaDiff = analyzed match {
    case write if ResultPlans.writes(write) => SchemaDiff.Holds
    case query =>
      // Names compare as Spark's resolver compares them: case-insensitively unless
      // spark.sql.caseSensitive is set.
      def fold(name: String) = if (caseSensitive) name else name.toLowerCase(Locale.ROOT)
      // Nearly every result names each column once: relations are compared, and clashes
      // grouped, only when a name repeats.
      val names = new java.util.HashSet[String]
      val namesRepeat = !result.forall(a => names.add(fold(a.name)))
      // Indexed: read by position below.
      val output = if (namesRepeat) result.toIndexedSeq else IndexedSeq.empty
      def key(i: Int) = (output(i).qualifier.map(fold), fold(output(i).name))
      val clashes = if (!namesRepeat) Nil else output.indices.groupBy(key).values
        .filter(positions => positions.map(output(_).exprId).distinct.size > 1)
        .map(_.sorted).toSeq.sortBy(_.head)
      if (clashes.isEmpty) SchemaDiff.Holds
      else {
        val repeated = clashes.flatMap(_.tail).toSet
        val schema = query.schema
        val expected = StructType(schema.fields.indices.filterNot(repeated).map(schema(_)))
        SchemaDiff(expected, schema, s"its root is a ${query.nodeName}", clashes.map { positions =>
          s"${output(positions.head).qualifiedName} names different columns at " +
            positions.map(i => s"#$i (${output(i)})").mkString(", ")
        })
      }
  }
}

package planguard.checks

import scala.annotation.tailrec

import org.apache.spark.sql.catalyst.expressions.{Alias, ExprId, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.StructType

import planguard.naming.GeneratedNames
import planguard.schema.SchemaDiff

/**
 * NAMING on a write (PersistedColumns): the stored names the user did not write. A stored
 * column's name is judged where it was chosen: at the alias that named it, however many
 * projections hand it on; a rename (`withColumnRenamed`, `toDF`, `AS`, `alias`) chooses anew.
 *  - `generated`: a name Spark (or `naming=spec`) made from the column's expression:
 *    such names differ between engines and versions, so the stored schema would too.
 *  - `qualified`: such a name carrying the relation qualifier of a column it was computed from:
 *    a stored name must not carry a relation (`customer.id` read back as table
 *    `customer_blocked` is `customer_blocked.customer.id`). A name the user wrote
 *    (`AS \`customer.id\``) is the way to store one, and is not flagged.
 * A column is reported in one of the two only.
 */
final case class NamingCheck(generated: SchemaDiff, qualified: SchemaDiff)

object NamingCheck {

  def apply(command: LogicalPlan, query: LogicalPlan, names: Seq[String]): NamingCheck = {
    val remembered = GeneratedNames.remembered(query)
    val aliases: Map[ExprId, Alias] = query.flatMap(_.expressions.flatMap(_.collect {
      case a: Alias => a.exprId -> a
    })).toMap
    // The alias that chose the name of the column `id` names: through the aliases that hand a
    // column's name on unchanged (`x AS x`), to the one that gave it; none for a source column.
    @tailrec def namedBy(id: ExprId, seen: Set[ExprId]): Option[Alias] = aliases.get(id) match {
      case Some(Alias(child: NamedExpression, name))
          if child.name == name && !seen(child.exprId) => namedBy(child.exprId, seen + id)
      case found => found
    }
    val stored = StructType(query.schema.zip(names).map { case (f, n) => f.copy(name = n) })
    val flagged = query.output.zip(names).zipWithIndex.flatMap { case ((attribute, name), i) =>
      namedBy(attribute.exprId, Set(attribute.exprId))
        .filter(a => a.name == name && GeneratedNames.isGenerated(a, remembered))
        .map(a => (i, name, qualifier(a)))
    }
    val where = s"in ${command.nodeName}"
    def diff(found: Seq[(Int, String, Option[String])], what: ((String, Option[String])) => String)
        : SchemaDiff = {
      val positions = found.map(_._1).toSet
      SchemaDiff(StructType(stored.fields.indices.filterNot(positions).map(stored(_))), stored,
        where, found.map { case (i, name, q) => s"#$i $name: ${what((name, q))}" })
    }
    val (withQualifier, plain) = flagged.partition(_._3.isDefined)
    NamingCheck(
      diff(plain, _ => "named by Spark after its expression; name it yourself"),
      diff(withQualifier, { case (_, q) =>
        s"carries the relation qualifier ${q.get}, which the stored column would keep" }))
  }

  /** The qualifier `relation.` of a column the alias computes from, if its name carries one. */
  private def qualifier(alias: Alias): Option[String] = alias.child.references.toSeq.collectFirst {
    case a if a.qualifier.nonEmpty && alias.name.contains(s"${a.qualifier.last}.${a.name}") =>
      s"${a.qualifier.last}."
  }
}

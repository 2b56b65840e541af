package planguard.checks

import java.util.Locale

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.types.StructType

import planguard.schema.SchemaDiff

/**
 * UNIQUE_FIELD (seed 004, added invariant): in the schema each logical node creates, no two
 * different attributes share (relation, name). The same attribute twice (`SELECT a, a`) is legal.
 */
object UniqueFieldCheck {

  /** The schema-creating nodes of `plan` that break the invariant, with what they break. */
  def apply(plan: LogicalPlan, caseSensitive: Boolean): Seq[(LogicalPlan, SchemaDiff)] = {
    val broken = mutable.ArrayBuffer.empty[(LogicalPlan, SchemaDiff)]
    def visit(node: LogicalPlan): Unit = node match {
      case expand: Expand => expand.child.children.foreach(visit)
      case _ =>
        if (createsSchema(node) && hasClash(node.output, caseSensitive)) {
          broken += node -> diff(node, node.output, caseSensitive)
        }
        node.children.foreach(visit)
    }
    visit(plan)
    broken.toSeq
  }

  /**
   * The nodes that create a schema, as seed 004 lists them: relations, projections, aggregates,
   * joins, windows, generators, unions, and aliases, which requalify their child's columns.
   * GROUPING SETS, ROLLUP and CUBE expand into an Expand over a projection that copies the grouping
   * columns under their own (relation, name): Spark's plumbing, never referenced by name and gone
   * above the aggregate, so an Expand and its child are left out.
   */
  private def createsSchema(node: LogicalPlan): Boolean = node match {
    case _: LeafNode | _: Project | _: Aggregate | _: Join | _: Window | _: Generate | _: Union |
         _: SubqueryAlias => true
    case _ => false
  }

  private def key(a: Attribute, caseSensitive: Boolean): (Seq[String], String) =
    if (caseSensitive) (a.qualifier, a.name)
    else (a.qualifier.map(_.toLowerCase(Locale.ROOT)), a.name.toLowerCase(Locale.ROOT))

  /**
   * The test every node pays, on its output as a sequence (iterating an AttributeSet copies it,
   * hashing every attribute): whether two different attributes (exprIds) share the key; the same
   * attribute twice never clashes. Most outputs are narrow: their names are compared pairwise, with
   * no set to build; a wide one goes through a set of names first.
   */
  private def hasClash(output: Seq[Attribute], caseSensitive: Boolean): Boolean = {
    val attributes = output.toArray
    if (attributes.length > Narrow) return hasClashInWide(attributes, caseSensitive)
    def same(x: String, y: String) = if (caseSensitive) x == y else x.equalsIgnoreCase(y)
    var i = 1
    while (i < attributes.length) {
      val a = attributes(i)
      var j = 0
      while (j < i) {
        val b = attributes(j)
        if (same(a.name, b.name) && a.exprId != b.exprId &&
            a.qualifier.length == b.qualifier.length &&
            a.qualifier.iterator.zip(b.qualifier.iterator).forall { case (x, y) => same(x, y) }) {
          return true
        }
        j += 1
      }
      i += 1
    }
    false
  }

  private val Narrow = 32

  private def hasClashInWide(attributes: Array[Attribute], caseSensitive: Boolean): Boolean = {
    val names = new java.util.HashSet[String](attributes.length * 2)
    def name(a: Attribute) = if (caseSensitive) a.name else a.name.toLowerCase(Locale.ROOT)
    attributes.exists(a => !names.add(name(a))) && attributes.groupBy(key(_, caseSensitive))
      .exists { case (_, same) => same.exists(_.exprId != same.head.exprId) }
  }

  private def diff(node: LogicalPlan, output: Seq[Attribute], caseSensitive: Boolean)
      : SchemaDiff = {
    val groups = output.indices.groupBy(i => key(output(i), caseSensitive)).values
      .filter(is => is.map(output(_).exprId).distinct.size > 1)
      .map(_.sorted).toSeq.sortBy(_.head)
    val repeated = groups.flatMap(_.tail).toSet
    val schema = node.schema
    val expected = StructType(schema.fields.indices.filterNot(repeated).map(schema(_)))
    val differences = groups.map { is =>
      s"${output(is.head).qualifiedName} names different columns at " +
        is.map(i => s"#$i (${output(i)})").mkString(", ")
    }
    SchemaDiff(expected, schema, s"in ${node.nodeName}", differences)
  }
}

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
   * hashing every attribute). Names first (lower-casing a lower-case name does not allocate); only
   * when a name repeats, whether different attributes (exprIds) share the full key: the same
   * attribute twice never clashes.
   */
  private def hasClash(output: Seq[Attribute], caseSensitive: Boolean): Boolean = {
    val names = new java.util.HashSet[String](output.size * 2)
    def name(a: Attribute) = if (caseSensitive) a.name else a.name.toLowerCase(Locale.ROOT)
    output.exists(a => !names.add(name(a))) && output.groupBy(key(_, caseSensitive))
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

package planguard.checks

import java.util.Locale

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
    val expanded = plan.collect { case e: Expand => e.child }
    plan.flatMap {
      case node if createsSchema(node) && !expanded.exists(_ eq node) =>
        val output = node.output
        if (hasClash(output, caseSensitive)) Some(node -> diff(node, output, caseSensitive))
        else None
      case _ => None
    }
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
   * The cheap test every node pays: names first (lower-casing an already lower-case name does not
   * allocate), then the full key for the few names that repeat.
   */
  private def hasClash(output: Seq[Attribute], caseSensitive: Boolean): Boolean = {
    val names = new java.util.HashSet[String](output.size * 2)
    val repeated = output.filterNot { a =>
      names.add(if (caseSensitive) a.name else a.name.toLowerCase(Locale.ROOT))
    }
    repeated.nonEmpty && {
      val byKey = output.groupBy(key(_, caseSensitive))
      repeated.exists(a => byKey(key(a, caseSensitive)).exists(_.exprId != a.exprId))
    }
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

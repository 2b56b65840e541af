package planguard.checks

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{Expand, LogicalPlan}
import org.apache.spark.sql.types.StructType

import planguard.schema.SchemaDiff

/**
 * UNIQUE_FIELD (seed 004, added invariant): in the schema each logical node creates, no two
 * different attributes share (relation, name). The same attribute twice (`SELECT a, a`) is legal.
 */
object UniqueFieldCheck {

  /** The schema-creating nodes of `plan` that break the invariant, with what they break. */
  def apply(plan: LogicalPlan, caseSensitive: Boolean): Seq[(LogicalPlan, SchemaDiff)] = {
    val expansion = plan.collect { case e: Expand => e.child }
    plan.collect {
      case node if createsSchema(node) && !expansion.exists(_ eq node) &&
          duplicates(node.output, caseSensitive).nonEmpty =>
        node -> diff(node, duplicates(node.output, caseSensitive))
    }
  }

  /**
   * Nodes that pass a child's schema through create no schema of their own. GROUPING SETS,
   * ROLLUP and CUBE expand into an Expand over a projection that copy the grouping columns under
   * their own (relation, name): Spark's plumbing, never referenced by name, and gone above the
   * aggregate.
   */
  private def createsSchema(node: LogicalPlan): Boolean =
    !node.isInstanceOf[Expand] && !node.children.exists(_.output == node.output)

  private def duplicates(output: Seq[Attribute], caseSensitive: Boolean): Seq[Seq[Int]] = {
    def key(a: Attribute) = {
      val k = (a.qualifier, a.name)
      if (caseSensitive) k else (k._1.map(_.toLowerCase), k._2.toLowerCase)
    }
    output.indices.groupBy(i => key(output(i))).values
      .filter(is => is.map(output(_).exprId).distinct.size > 1)
      .map(_.sorted).toSeq.sortBy(_.head)
  }

  private def diff(node: LogicalPlan, groups: Seq[Seq[Int]]): SchemaDiff = {
    val output = node.output
    val repeated = groups.flatMap(_.tail).toSet
    val expected = StructType(node.schema.fields.indices.filterNot(repeated).map(node.schema(_)))
    val differences = groups.map { is =>
      s"${output(is.head).qualifiedName} names different columns at " +
        is.map(i => s"#$i (${output(i)})").mkString(", ")
    }
    SchemaDiff(expected, node.schema, s"in ${node.nodeName}", differences)
  }
}

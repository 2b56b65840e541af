package planguard.checks

import java.util.{IdentityHashMap, Locale}

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions.{AttributeReference, NamedExpression}
import org.apache.spark.sql.catalyst.plans.{ExistenceJoin, LeftAnti, LeftSemi}
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.catalyst.trees.TreePattern.PLAN_EXPRESSION
import org.apache.spark.sql.types.{NullType, StructType}

import planguard.schema.SchemaDiff

/**
 * UNIQUE_FIELD (seed 004, added invariant): in the schema each logical node creates, no two
 * different attributes share (relation, name). The same attribute twice (`SELECT a, a`) is legal.
 */
object UniqueFieldCheck {

  /**
   * The schema-creating nodes of `plan` and of its subqueries' plans that break the invariant,
   * with what they break, deepest first.
   *
   * Each node is asked only about the pairs of columns it can newly put side by side: a filter,
   * a sort or a union passes on its child's columns (a union its first child's), a join puts its
   * sides' columns together (a clash within a side is its side's), an alias requalifies its
   * child's. So a join whose sides share no relation, and an alias over columns of one relation,
   * have nothing new to check, and most of a plan's wide nodes are not read column by column.
   */
  def apply(plan: LogicalPlan, caseSensitive: Boolean): Seq[(LogicalPlan, SchemaDiff)] = {
    val broken = mutable.ArrayBuffer.empty[(LogicalPlan, SchemaDiff)]
    val columns = new IdentityHashMap[LogicalPlan, Seq[NamedExpression]]()
    def columnsFor(node: LogicalPlan): Seq[NamedExpression] = {
      val known = columns.get(node)
      if (known != null) known else {
        val found = columnsOf(node)(columnsFor)
        columns.put(node, found)
        found
      }
    }
    val relations = new IdentityHashMap[LogicalPlan, Seq[Seq[String]]]()
    def relationsOf(node: LogicalPlan): Seq[Seq[String]] = {
      val known = relations.get(node)
      if (known != null) known else {
        val found = node match {
          case alias: SubqueryAlias => Seq(qualifier(alias))
          case join: Join => join.joinType match {
            case LeftSemi | LeftAnti => relationsOf(join.left)
            case _ => (relationsOf(join.left) ++ relationsOf(join.right)).distinct
          }
          case union: Union => relationsOf(union.children.head)
          case _ if passesOn(node) => relationsOf(node.children.head)
          case _ => columnsFor(node).map(_.qualifier).distinct
        }
        relations.put(node, found)
        found
      }
    }
    def newPairs(node: LogicalPlan): Boolean = node match {
      case _: Union => false
      case join: Join => join.joinType match {
        case LeftSemi | LeftAnti => false
        case ExistenceJoin(_) => true
        case _ => relationsOf(join.left).exists(l =>
          relationsOf(join.right).exists(r => sameRelation(l, r, caseSensitive)))
      }
      case alias: SubqueryAlias => relationsOf(alias.child).size > 1
      case _ => createsSchema(node)
    }
    def visit(node: LogicalPlan, checked: Boolean): Unit = {
      if (node.containsPattern(PLAN_EXPRESSION)) node.subqueries.foreach(visit(_, checked = true))
      node.children.foreach(child => visit(child, checked = !plumbing(node, child)))
      if (checked && newPairs(node) && hasClash(columnsFor(node), caseSensitive)) {
        broken += node -> diff(node, caseSensitive)
      }
    }
    visit(plan, checked = true)
    broken.toSeq
  }

  /**
   * A node's output columns as a clash depends on them, each with the relation, name and id of
   * Spark's output attribute, from its children's (`of`). Spark computes a join's, an alias's,
   * a filter's output from its children's on every call, and a projection's or an aggregate's
   * by deriving each expression's type and nullability: asking each node of a deep plan in turn
   * would compute the lower ones again and again. Any other node is asked.
   */
  private[planguard] def columnsOf(node: LogicalPlan)(
      of: LogicalPlan => Seq[NamedExpression]): Seq[NamedExpression] =
    node match {
      case project: Project => project.projectList
      case aggregate: Aggregate => aggregate.aggregateExpressions
      case window: Window => of(window.child) ++ window.windowExpressions
      case join: Join => join.joinType match {
        case ExistenceJoin(exists) => of(join.left) :+ exists
        case LeftSemi | LeftAnti => of(join.left)
        case _ => of(join.left) ++ of(join.right)
      }
      case alias: SubqueryAlias =>
        of(alias.child).map(c => AttributeReference(c.name, NullType)(c.exprId, qualifier(alias)))
      case union: Union => of(union.children.head)
      case _ if passesOn(node) => of(node.children.head)
      case _ => node.output
    }

  /**
   * A child whose schema is Spark's plumbing, never referenced by name: the projection an `Expand`
   * reads (GROUPING SETS, ROLLUP, CUBE copy the grouping columns under their own relation and
   * name), and the join under a USING or NATURAL join's projection, which outputs both sides'
   * keys; the projection keeps one, and the others only for qualified access (`t2.k`), as
   * Spark's hidden output.
   */
  private def plumbing(parent: LogicalPlan, child: LogicalPlan): Boolean = (parent, child) match {
    case (_: Expand, _) => true
    case (p: Project, _: Join) => p.getTagValue(Project.hiddenOutputTag).isDefined
    case _ => false
  }

  /** Nodes whose output is their child's. */
  private def passesOn(node: LogicalPlan): Boolean = node match {
    case _: Filter | _: Sort | _: GlobalLimit | _: LocalLimit | _: Distinct | _: View => true
    case _ => false
  }

  /** The relation an alias gives its child's columns, as Spark's SubqueryAlias qualifies them. */
  private def qualifier(alias: SubqueryAlias): Seq[String] =
    alias.identifier.qualifier :+ alias.alias

  /**
   * The nodes that create a schema, as seed 004 lists them: relations, projections, aggregates,
   * joins, windows, generators, unions, and aliases, which requalify their child's columns. An
   * `Expand` and the plumbing children of `plumbing` are left out.
   */
  private def createsSchema(node: LogicalPlan): Boolean = node match {
    case _: LeafNode | _: Project | _: Aggregate | _: Join | _: Window | _: Generate | _: Union |
         _: SubqueryAlias => true
    case _ => false
  }

  private def key(a: NamedExpression, caseSensitive: Boolean): (Seq[String], String) =
    if (caseSensitive) (a.qualifier, a.name)
    else (a.qualifier.map(_.toLowerCase(Locale.ROOT)), a.name.toLowerCase(Locale.ROOT))

  /**
   * The test every node pays: whether two different columns (exprIds) share (relation, name); the
   * same column twice never clashes. Names compare as Spark's resolver does (`equalsIgnoreCase`
   * unless case-sensitive). Most outputs are narrow: their names are compared pairwise, with
   * nothing to build; a wide one's go through a table of name hashes first.
   */
  private def hasClash(output: Seq[NamedExpression], caseSensitive: Boolean): Boolean = {
    val columns = output.toArray
    def clash(a: NamedExpression, b: NamedExpression) =
      same(a.name, b.name, caseSensitive) && a.exprId != b.exprId &&
        sameRelation(a.qualifier, b.qualifier, caseSensitive)
    if (columns.length > Narrow) return hasClashInWide(columns, caseSensitive)(clash)
    var i = 1
    while (i < columns.length) {
      var j = 0
      while (j < i) {
        if (clash(columns(i), columns(j))) return true
        j += 1
      }
      i += 1
    }
    false
  }

  private val Narrow = 32

  /** Open addressing on the names' hashes: only columns whose names hash alike are compared. */
  private def hasClashInWide(columns: Array[NamedExpression], caseSensitive: Boolean)(
      clash: (NamedExpression, NamedExpression) => Boolean): Boolean = {
    val slots = Integer.highestOneBit(columns.length * 4)
    val table = Array.fill(slots)(-1)
    var i = 0
    while (i < columns.length) {
      val h = hash(columns(i).name, caseSensitive)
      var slot = h & (slots - 1)
      while (table(slot) >= 0) {
        val j = table(slot)
        if (hash(columns(j).name, caseSensitive) == h && clash(columns(i), columns(j))) return true
        slot = (slot + 1) & (slots - 1)
      }
      table(slot) = i
      i += 1
    }
    false
  }

  private def sameRelation(x: Seq[String], y: Seq[String], caseSensitive: Boolean): Boolean =
    x.length == y.length &&
      x.iterator.zip(y.iterator).forall { case (a, b) => same(a, b, caseSensitive) }

  private def same(x: String, y: String, caseSensitive: Boolean): Boolean =
    if (caseSensitive) x == y else x.equalsIgnoreCase(y)

  /** A hash under which names `same` calls equal hash alike. */
  private def hash(name: String, caseSensitive: Boolean): Int =
    if (caseSensitive) name.hashCode
    else {
      var h = 0
      var i = 0
      while (i < name.length) {
        h = 31 * h + Character.toLowerCase(Character.toUpperCase(name.charAt(i)))
        i += 1
      }
      h
    }

  /** Spark's own output attributes, in the error: which columns clash, and where. */
  private def diff(node: LogicalPlan, caseSensitive: Boolean): SchemaDiff = {
    val output = node.output
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

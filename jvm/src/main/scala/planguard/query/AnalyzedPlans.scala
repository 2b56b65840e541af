package planguard.query

import java.lang.ref.WeakReference

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project, SubqueryAlias, View,
  WithCTE}
import org.apache.spark.sql.catalyst.trees.TreeNodeTag

/**
 * Where a plan prepared outside a SQL execution, or planned inside another query's execution as
 * a query of its own (a cached plan), finds its analyzed plan: among the analyzed roots this
 * thread normalised last. Spark normalises a query's analyzed plan on the thread that then
 * optimizes and plans it, in one chain of lazy values. The optimizer nearly always keeps the
 * root's output attributes, which pick the right root; where it removed an alias that named a
 * root column, they are read through the analyzed root's aliases (RedundantAliases); where it
 * gave a root column a new attribute (it decorrelates a LATERAL subquery that selects the outer
 * query's columns), the optimized root usually still carries the tag `remember` put on the
 * analyzed root, as the optimizer copies a node's tags to the copies it makes. A tag alone is not
 * enough: a rule that builds a new node without copying tags loses it, as a broken rule may, and
 * as the join of a WITH query read twice loses it; such a plan's query is checked when the plan
 * runs (ChecksAtExecution; docs/architecture.md, Known limits). An
 * adaptive stage or a subquery, whose roots output other attributes and carry no such tag, is
 * never taken for the query. (Roots remembered at analysis would miss a frame analyzed long
 * before its explain or cache.)
 */
private[planguard] object AnalyzedPlans {
  private val Remembered = 8

  /** The last roots normalised on each thread, the most recent first. */
  private val recent = ThreadLocal.withInitial[List[WeakReference[LogicalPlan]]](() => Nil)

  /**
   * On a remembered root and on the nodes under it that return its rows as they are, which the
   * optimizer may make the root: a WITH root's main query (InlineCTE), a star's projection and a
   * subquery's alias (RemoveNoopOperators, EliminateSubqueryAliases), a view.
   */
  private val Root = TreeNodeTag[WeakReference[LogicalPlan]]("planguard.analyzedRoot")

  def remember(analyzed: LogicalPlan): Unit = {
    mark(analyzed, analyzed)
    recent.set((new WeakReference(analyzed) :: recent.get).take(Remembered))
  }

  // Set once per root: a DataFrame's analyzed plan is normalised again each time it is planned.
  // A node under the root may be another remembered root's too: the last remembered wins.
  private def mark(node: LogicalPlan, root: LogicalPlan): Unit = {
    if (!node.getTagValue(Root).exists(_.get eq root)) {
      node.synchronized(node.setTagValue(Root, new WeakReference(root)))
    }
    node match {
      case w: WithCTE => mark(w.plan, root)
      case a: SubqueryAlias => mark(a.child, root)
      case v: View => mark(v.child, root)
      case p: Project if p.projectList.forall(_.isInstanceOf[Attribute]) &&
          p.projectList.corresponds(p.child.output)(_.exprId == _.exprId) => mark(p.child, root)
      case _ =>
    }
  }

  /**
   * The most recent root that an optimized root, outputting `output`, was optimized from, with
   * its own output (read once: each check of the query reads it).
   */
  def of(optimized: LogicalPlan, output: Seq[Attribute]): Option[(LogicalPlan, Seq[Attribute])] =
    find(recent.get.flatMap(ref => Option(ref.get)), optimized, output)

  /**
   * The roots normalised after `outer`'s, the most recent first: the queries that the execution of
   * the query analyzed as `outer` planned inside it, on its thread (a CACHE TABLE's cached query, a
   * cached plan built again after a write). None when `outer` is no longer remembered: a root
   * normalised before it could be any earlier query's. Nearly always none: `outer` is the last.
   */
  def normalisedAfter(outer: LogicalPlan): Seq[LogicalPlan] = {
    val roots = recent.get.flatMap(ref => Option(ref.get))
    val newer = roots.takeWhile(_ ne outer)
    if (newer.size == roots.size) Nil else newer
  }

  /** As `of`, among `roots`. */
  def among(roots: Seq[LogicalPlan])(optimized: LogicalPlan, output: Seq[Attribute])
      : Option[(LogicalPlan, Seq[Attribute])] = find(roots, optimized, output)

  /**
   * The first root with `output`'s attributes; else the first with as many that are `output`'s
   * read through the aliases the optimizer may have removed (RedundantAliases); else the root
   * whose tag `optimized` carries, if it has as many columns. Only a plan that no root's
   * attributes matched pays for the last two.
   */
  private def find(roots: Seq[LogicalPlan], optimized: LogicalPlan, output: Seq[Attribute])
      : Option[(LogicalPlan, Seq[Attribute])] = {
    def outputs = roots.iterator.map(root => (root, root.output))
    outputs.find { case (_, rootOutput) => PlannedQuery.sameOutput(rootOutput, output) }
      .orElse(outputs.filter(_._2.size == output.size).find { case (root, rootOutput) =>
        val source = RedundantAliases.unaliasing(root)
        PlannedQuery.sameOutput(rootOutput.map(source), output.map(source))
      })
      .orElse(optimized.getTagValue(Root).flatMap(ref => Option(ref.get))
        .filter(tagged => roots.exists(_ eq tagged))
        .map(root => (root, root.output)).filter(_._2.size == output.size))
  }
}

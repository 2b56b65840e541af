package planguard.rules

import java.lang.ref.WeakReference

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import planguard.checks.MicroBatchV1Write

/**
 * Where a plan prepared outside a SQL execution, or planned inside another query's execution as
 * a query of its own (a cached plan), finds its analyzed plan: among the analyzed roots this
 * thread normalised last. Spark normalises a query's analyzed plan on the thread that then
 * optimizes and plans it, in one chain of lazy values, and the optimizer keeps the root's output
 * attributes (but for a streaming micro-batch's on Spark 4.2: MicroBatchV1Write), which pick the
 * right one; an adaptive stage or a subquery, whose roots output other attributes, is never taken
 * for the query. (A tag on the analyzed root is lost when a rule builds
 * a new root without copying tags, as a broken rule may; roots remembered at analysis miss a frame
 * analyzed long before its explain or cache: docs/architecture.md.)
 */
private[planguard] object AnalyzedPlans {
  private val Remembered = 8

  /** The last roots normalised on each thread, the most recent first. */
  private val recent = ThreadLocal.withInitial[List[WeakReference[LogicalPlan]]](() => Nil)

  def remember(analyzed: LogicalPlan): Unit =
    recent.set((new WeakReference(analyzed) :: recent.get).take(Remembered))

  /**
   * The most recent root with the same output attributes as an optimized root's `output`, with
   * its own output (read once: each check of the query reads it).
   */
  def of(output: Seq[Attribute]): Option[(LogicalPlan, Seq[Attribute])] =
    find(recent.get.flatMap(ref => Option(ref.get)), output)

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
  def among(roots: Seq[LogicalPlan], output: Seq[Attribute])
      : Option[(LogicalPlan, Seq[Attribute])] = find(roots, output)

  /**
   * The first root with `output`'s attributes; else the first streaming micro-batch into a
   * DataSource V1 sink whose attributes are `output`'s read through the batch's aliases, which
   * Spark 4.2's optimizer removes (MicroBatchV1Write).
   */
  private def find(roots: Seq[LogicalPlan], output: Seq[Attribute])
      : Option[(LogicalPlan, Seq[Attribute])] = {
    roots.iterator.map(root => (root, root.output))
      .find { case (_, rootOutput) => PlannedQuery.sameOutput(rootOutput, output) }
      .orElse(roots.iterator.flatMap(root => MicroBatchV1Write.unaliasing(root).map(root -> _))
        .collectFirst { case (root, source)
          if PlannedQuery.sameOutput(root.output.map(source), output.map(source)) =>
            (root, root.output)
        })
  }
}

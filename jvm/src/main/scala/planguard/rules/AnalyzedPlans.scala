package planguard.rules

import java.lang.ref.WeakReference

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/**
 * Where a plan prepared outside a SQL execution finds its analyzed plan: among the analyzed roots
 * this thread normalised last. Spark normalises a query's analyzed plan on the thread that then
 * optimizes and plans it, in one chain of lazy values, and the optimizer keeps the root's output
 * attributes, which pick the right one; an adaptive stage or a subquery, whose roots output other
 * attributes, is never taken for the query. (A tag on the analyzed root would follow it to the
 * optimized root, but measured at about 0.4 ms more planning time per query.)
 */
private[planguard] object AnalyzedPlans {
  private val Remembered = 8

  /** The last roots remembered on one thread: a ring, written at `next`. */
  private final class Recent {
    val roots = new Array[WeakReference[LogicalPlan]](Remembered)
    var next = 0
  }

  private val recent = ThreadLocal.withInitial[Recent](() => new Recent)

  def remember(analyzed: LogicalPlan): Unit = {
    val r = recent.get
    r.roots(r.next) = new WeakReference(analyzed)
    r.next = (r.next + 1) % Remembered
  }

  /** The most recent root with the same output attributes as `optimizedRoot`. */
  def of(optimizedRoot: LogicalPlan): Option[LogicalPlan] = {
    val r = recent.get
    val output = optimizedRoot.output
    var back = 1
    while (back <= Remembered) {
      val ref = r.roots((r.next - back + Remembered) % Remembered)
      val root = if (ref == null) null else ref.get
      if (root != null && PlannedQuery.sameOutput(root.output, output)) return Some(root)
      back += 1
    }
    None
  }
}

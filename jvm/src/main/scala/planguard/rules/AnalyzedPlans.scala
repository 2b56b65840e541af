package planguard.rules

import java.lang.ref.WeakReference

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet}
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

  private val recent = ThreadLocal.withInitial[List[WeakReference[LogicalPlan]]](() => Nil)

  def remember(analyzed: LogicalPlan): Unit =
    recent.set((new WeakReference(analyzed) :: recent.get).take(Remembered))

  def of(optimizedRoot: LogicalPlan): Option[LogicalPlan] = {
    val output = optimizedRoot.output
    recent.get.iterator.flatMap(r => Option(r.get)).find(a => sameAttributes(a.output, output))
  }

  // The same attributes, nearly always in the same order: compared in order before as sets.
  private def sameAttributes(a: Seq[Attribute], b: Seq[Attribute]): Boolean =
    a.corresponds(b)(_.exprId == _.exprId) || AttributeSet(a) == AttributeSet(b)
}

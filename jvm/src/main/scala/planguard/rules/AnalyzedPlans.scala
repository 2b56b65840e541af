package planguard.rules

import java.lang.ref.WeakReference

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.trees.TreeNodeTag

/**
 * Where a plan prepared outside a SQL execution finds its analyzed plan. Two traces, because a
 * rule may rebuild the root without Spark's transform helpers and so drop its tags:
 *  - a tag on the analyzed root, which Spark copies through clones and transforms to the
 *    optimized root;
 *  - the analyzed roots this thread normalised last: planning follows normalisation on the same
 *    thread, and the root's output attributes (which the optimizer keeps) pick the right one.
 * Either way the output attributes must match, so an adaptive stage or a subquery, whose roots
 * output other attributes, is never taken for the query.
 */
private[planguard] object AnalyzedPlans {
  private val Tag = TreeNodeTag[LogicalPlan]("planguard.analyzed")
  private val Remembered = 8

  private val recent = ThreadLocal.withInitial[List[WeakReference[LogicalPlan]]](() => Nil)

  def remember(analyzed: LogicalPlan): Unit = {
    analyzed.setTagValue(Tag, analyzed)
    recent.set((new WeakReference(analyzed) :: recent.get).take(Remembered))
  }

  def of(optimizedRoot: LogicalPlan): Option[LogicalPlan] = {
    def matches(analyzed: LogicalPlan) = analyzed.outputSet == optimizedRoot.outputSet
    optimizedRoot.getTagValue(Tag).filter(matches)
      .orElse(recent.get.iterator.flatMap(r => Option(r.get)).find(matches))
  }
}

package planguard.checks

import org.apache.spark.sql.execution.SparkPlan

import planguard.{Departure, PlanDeparture}

/**
 * Runs per-operator contracts over a physical plan, children first, and returns each contract's
 * first departure found: the deepest broken operator, whose breakage explains its ancestors'.
 */
object DeepestDeparture {

  def apply(plan: SparkPlan)(contract: SparkPlan => Departure): Departure =
    each(plan, IndexedSeq(contract)).head

  /** Several contracts in one walk of the plan: each one's deepest departure, in their order. */
  def each(plan: SparkPlan, contracts: IndexedSeq[SparkPlan => Departure])
      : IndexedSeq[Departure] = {
    val found = Array.fill[Departure](contracts.length)(PlanDeparture.None)
    var holding = contracts.length
    def walk(op: SparkPlan): Unit = {
      val children = op.children
      val it = children.iterator
      while (holding > 0 && it.hasNext) walk(it.next())
      var i = 0
      while (holding > 0 && children.nonEmpty && i < found.length) {
        if (found(i).isEmpty) {
          found(i) = contracts(i)(op)
          if (!found(i).isEmpty) holding -= 1
        }
        i += 1
      }
    }
    walk(plan)
    found.toIndexedSeq
  }
}

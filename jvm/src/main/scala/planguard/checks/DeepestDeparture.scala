package planguard.checks

import org.apache.spark.sql.execution.SparkPlan

import planguard.contract.{Departure, PlanDeparture}

/**
 * Runs per-operator contracts over a physical plan, children first, and returns each contract's
 * first departure found: the deepest broken operator, whose breakage explains its ancestors'.
 *
 * Plain loops: this walk runs once per prepared plan, so for a driver's first thousands of
 * queries the JIT runs it interpreted or as profiled C1 code, where every collection operation
 * and closure costs far more than the walk itself (docs/benchmarks.md, "Cold code").
 */
object DeepestDeparture {

  def apply(plan: SparkPlan)(contract: SparkPlan => Departure): Departure =
    each(plan, Array(contract))(0)

  /**
   * Several contracts in one walk of the plan: each one's deepest departure, in their order
   * (PlanDeparture.None where it holds). Leaves require nothing of children they do not have.
   */
  def each(plan: SparkPlan, contracts: Array[SparkPlan => Departure]): Array[Departure] = {
    val found = Array.fill[Departure](contracts.length)(PlanDeparture.None)
    def walk(op: SparkPlan): Unit = {
      val children = op.children
      if (children.nonEmpty) {
        val it = children.iterator
        while (it.hasNext) walk(it.next())
        var i = 0
        while (i < contracts.length) {
          if (found(i).isEmpty) found(i) = contracts(i)(op)
          i += 1
        }
      }
    }
    walk(plan)
    found
  }
}

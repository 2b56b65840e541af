package planguard.checks

import org.apache.spark.sql.execution.SparkPlan

import planguard.contract.{Departure, PlanDeparture}

/**
 * Runs per-operator contracts over a physical plan, children first, and returns each contract's
 * first departure found: the deepest broken operator, whose breakage explains its ancestors'.
 */
object DeepestDeparture {

  def apply(plan: SparkPlan)(contract: SparkPlan => Departure): Departure =
    each(plan, Seq(contract)).head

  /**
   * Several contracts in one walk of the plan: each one's deepest departure, in their order
   * (PlanDeparture.None where it holds). Leaves require nothing of children they do not have.
   */
  def each(plan: SparkPlan, contracts: Seq[SparkPlan => Departure]): Seq[Departure] = {
    val found = Array.fill[Departure](contracts.length)(PlanDeparture.None)
    def walk(op: SparkPlan): Unit = {
      op.children.foreach(walk)
      if (op.children.nonEmpty) {
        for (i <- contracts.indices if found(i).isEmpty) found(i) = contracts(i)(op)
      }
    }
    walk(plan)
    found.toSeq
  }
}

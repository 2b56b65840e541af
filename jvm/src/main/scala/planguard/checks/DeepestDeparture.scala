package planguard.checks

import org.apache.spark.sql.execution.SparkPlan

import planguard.{Departure, PlanDeparture}

/**
 * Runs per-operator contracts over a physical plan, children first, and returns each contract's
 * first departure found: the deepest broken operator, whose breakage explains its ancestors'.
 */
object DeepestDeparture {

  def apply(plan: SparkPlan)(contract: SparkPlan => Departure): Departure =
    each(plan, Array(contract))(0)

  /**
   * Several contracts in one walk of the plan: each one's deepest departure, in their order; a
   * null contract is not run, and its departure is null. Every plan Spark prepares is walked,
   * mostly by code the JIT has not optimised yet: plain arrays and loops.
   */
  def each(plan: SparkPlan, contracts: Array[SparkPlan => Departure]): Array[Departure] = {
    val found = new Array[Departure](contracts.length)
    var holding = 0
    var i = 0
    while (i < contracts.length) {
      if (contracts(i) != null) {
        found(i) = PlanDeparture.None
        holding += 1
      }
      i += 1
    }
    def walk(op: SparkPlan): Unit = {
      val children = op.children
      val it = children.iterator
      while (holding > 0 && it.hasNext) walk(it.next())
      var i = 0
      while (holding > 0 && children.nonEmpty && i < found.length) {
        if (found(i) != null && found(i).isEmpty) {
          found(i) = contracts(i)(op)
          if (!found(i).isEmpty) holding -= 1
        }
        i += 1
      }
    }
    walk(plan)
    found
  }
}

package planguard.checks

import org.apache.spark.sql.execution.SparkPlan

import planguard.{Departure, PlanDeparture}

/**
 * Runs a per-operator contract over a physical plan, children first, and returns the first
 * departure found: the deepest broken operator, whose breakage explains its ancestors'.
 */
object DeepestDeparture {

  def apply(plan: SparkPlan)(contract: SparkPlan => Departure): Departure = {
    val children = plan.children.iterator
    while (children.hasNext) {
      val found = apply(children.next())(contract)
      if (!found.isEmpty) return found
    }
    if (plan.children.isEmpty) PlanDeparture.None else contract(plan)
  }
}

package planguard.claims

import org.apache.spark.sql.catalyst.plans.QueryPlan

/** Every node of a plan and of the plans of its subquery expressions, at any depth. */
object WithSubqueries {
  // QueryPlan.foreachWithSubqueries is Spark 4's; Spark 3.5 has `subqueries`.
  def foreach(plan: QueryPlan[_])(f: QueryPlan[_] => Unit): Unit =
    plan.foreach { node =>
      val op = node.asInstanceOf[QueryPlan[_]]
      f(op)
      op.subqueries.foreach(s => foreach(s.asInstanceOf[QueryPlan[_]])(f))
    }
}

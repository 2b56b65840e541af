package planguard.claims

import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.trees.TreePattern.{PLAN_EXPRESSION, TreePattern}

/**
 * The nodes of a plan and of the plans of its subquery expressions, at any depth. A node's
 * subqueries are read only where its tree holds a subquery expression (Spark's tree-pattern bits,
 * by which `QueryPlan.subqueries` itself finds them): reading them derives the node's expressions.
 */
object WithSubqueries {
  // QueryPlan.foreachWithSubqueries is Spark 4's; Spark 3.5 has `subqueries`.
  def foreach(plan: QueryPlan[_])(f: QueryPlan[_] => Unit): Unit =
    plan.foreach { node =>
      val op = node.asInstanceOf[QueryPlan[_]]
      f(op)
      subqueries(op).foreach(foreach(_)(f))
    }

  /**
   * The nodes of `plan` and of its subqueries' plans whose tree holds `pattern` (the nodes with
   * it and their ancestors): a subtree without it is not entered.
   */
  def foreachHolding(plan: QueryPlan[_], pattern: TreePattern)(f: QueryPlan[_] => Unit): Unit =
    if (plan.containsAnyPattern(pattern, PLAN_EXPRESSION)) {
      if (plan.containsPattern(pattern)) f(plan)
      plan.children.foreach(c => foreachHolding(c.asInstanceOf[QueryPlan[_]], pattern)(f))
      subqueries(plan).foreach(foreachHolding(_, pattern)(f))
    }

  /** The plans of `op`'s own subquery expressions. */
  def subqueries(op: QueryPlan[_]): Seq[QueryPlan[_]] =
    if (op.containsPattern(PLAN_EXPRESSION)) op.subqueries.map(_.asInstanceOf[QueryPlan[_]])
    else Nil
}

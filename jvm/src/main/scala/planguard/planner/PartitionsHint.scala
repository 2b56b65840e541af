package planguard.planner

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnresolvedHint}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.trees.TreePattern.UNRESOLVED_HINT
import org.apache.spark.sql.types.IntegerType

import planguard.errors.PlanGuardErrors
import planguard.rules.Guarded

/**
 * Resolves `/*+ PLANGUARD_PARTITIONS(n) */`: the exchanges planguard's planner emits for the query
 * it is written in get n partitions (PartitionCount). Spark drops hints it does not know with a
 * warning, so this rule, in the Hints batch, removes the hint and tags the root of the plan being
 * analyzed (the query's, or the subquery's it is written in) with n.
 */
final case class PartitionsHint(session: SparkSession) extends Rule[LogicalPlan] {

  // Runs in every Hints-batch iteration of every query: a plan without hints is not walked.
  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!plan.containsPattern(UNRESOLVED_HINT)) plan
    else Guarded.orElse(session, ruleName, plan) {
      val counts = plan.collect {
        case UnresolvedHint(name, parameters, _) if name.equalsIgnoreCase(PartitionsHint.Name) =>
          PartitionsHint.count(parameters)
      }.distinct
      if (counts.isEmpty) plan
      else {
        if (counts.size > 1) throw PlanGuardErrors.invalidHint(counts.mkString(", "),
          "one count per query: the hints of a query disagree")
        // The root is tagged once the hint is gone: Spark 3.5 does not copy a replaced node's
        // tags to its replacement (resolveOperatorsDown), and the hint may be the root.
        val withoutHints = plan.resolveOperatorsWithPruning(_.containsPattern(UNRESOLVED_HINT)) {
          case h: UnresolvedHint if h.name.equalsIgnoreCase(PartitionsHint.Name) => h.child
        }
        PartitionCount.hint(withoutHints, counts.head)
        withoutHints
      }
    }
}

object PartitionsHint {
  val Name = "PLANGUARD_PARTITIONS"

  // Spark 3.5's hints take any values (Dataset.hint's), 4.x's expressions.
  private def count(parameters: Seq[Any]): Int = parameters match {
    case Seq(Literal(n: Int, IntegerType)) if n > 0 => n
    case other => throw PlanGuardErrors.invalidHint(other.map {
        case e: Expression => e.sql
        case v => String.valueOf(v)
      }.mkString(", "),
      "one positive integer, the number of partitions")
  }
}

package planguard.claims

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.types.StructType

import planguard.checks.OperatorString
import planguard.schema.{LogicalTypes, SchemaDiff}

/**
 * "A NOT NULL is proved where it appears, and every reference reads what it names": what a plan's
 * operators declare without backing (OperatorClaims), read against the plans before its phase
 * (Baseline). Spark's generated code trusts each declaration: a column declared NOT NULL is read
 * without its null bit (a null becomes -1 or 0), a reference or field access reads the slot it
 * names. Checked on the optimized plan (OPTIMIZER_SCHEMA), the planned physical plan
 * (PLANNING_SCHEMA) and every prepared plan (OPERATOR_CONTRACT); the deepest operator with a
 * claim is reported, with each of its claims.
 */
object ClaimsCheck {

  /** The claims of a logical plan, its subqueries' included. */
  def apply(plan: LogicalPlan, baseline: Baseline, types: LogicalTypes): SchemaDiff =
    deepest(plan, baseline, types, subqueries = true).fold(SchemaDiff.Holds)(diff)

  /** The claims of a physical plan; its subqueries are prepared and checked as plans of theirs. */
  def apply(plan: SparkPlan, baseline: Baseline, types: LogicalTypes): SchemaDiff =
    deepest(plan, baseline, types, subqueries = false).fold(SchemaDiff.Holds)(diff)

  /**
   * The claims of a logical plan that `before` — the optimized plan an adaptive re-optimization
   * starts from — does not make already, read against it.
   */
  def newClaims(before: LogicalPlan, types: LogicalTypes): LogicalPlan => SchemaDiff = {
    val baseline = new Baseline(Seq(before))
    lazy val made = apply(before, baseline, types).differences.toSet
    plan => {
      val found = apply(plan, baseline, types)
      if (found.isEmpty || found.differences.forall(made.contains)) SchemaDiff.Holds else found
    }
  }

  /** The deepest operator with claims, for naming what planned it. */
  def deepestClaimed(plan: SparkPlan, baseline: Baseline, types: LogicalTypes)
      : Option[SparkPlan] =
    deepest(plan, baseline, types, subqueries = false).map(_.op.asInstanceOf[SparkPlan])

  private final case class Found(op: QueryPlan[_], claims: Seq[Claim])

  private def deepest(plan: QueryPlan[_], baseline: Baseline, types: LogicalTypes,
      subqueries: Boolean): Option[Found] =
    new Walk(baseline, types, subqueries)(plan).left.toOption

  /**
   * One walk of a plan, children first: the deepest operator with claims, or, where there is none,
   * the plan's output, which its parent reads its children's columns from (each operator's output
   * is derived at most once, and only where it is read: Output).
   */
  private final class Walk(baseline: Baseline, types: LogicalTypes, subqueries: Boolean) {
    def apply(plan: QueryPlan[_]): Either[Found, Output] = {
      val children = plan.children
      val inputs = new Array[Output](children.length)
      val each = children.iterator
      var below: Option[Found] = None
      var i = 0
      while (below.isEmpty && each.hasNext) {
        apply(each.next().asInstanceOf[QueryPlan[_]]) match {
          case Right(output) => inputs(i) = output
          case Left(found) => below = Some(found)
        }
        i += 1
      }
      val subqueryPlans =
        if (subqueries) WithSubqueries.subqueries(plan).iterator else Iterator.empty
      while (below.isEmpty && subqueryPlans.hasNext) {
        below = apply(subqueryPlans.next()).left.toOption
      }
      below.map(Left(_)).getOrElse {
        val output = new Output(plan)
        val claims = OperatorClaims(plan, inputs, output, baseline, types)
        if (claims.isEmpty) Right(output) else Left(Found(plan, claims))
      }
    }
  }

  private def diff(found: Found): SchemaDiff = {
    val claims = found.claims
    SchemaDiff(StructType(claims.map(_.expected)), StructType(claims.map(_.actual)),
      "a NOT NULL is proved where it appears and a reference reads what it names; " +
        text(found.op),
      claims.map(_.difference))
  }

  private def text(op: QueryPlan[_]): String = op match {
    case p: SparkPlan => OperatorString(p)
    case other =>
      val s = other.simpleString(5)
      if (s.length <= 160) s else s.take(157) + "..."
  }
}

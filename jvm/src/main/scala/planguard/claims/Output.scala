package planguard.claims

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.QueryPlan

/**
 * An operator's output as one walk of the claims reads it: derived on first use, then kept. Spark
 * derives a projection's, a join's or a union's output anew on every reading (a union's from all
 * its children's), and a walk needs it only where a claim may depend on it: an operator that
 * declares its own columns, or reads its children's (Producers). The root's, or the children's
 * of a union that reads none, is never derived.
 */
private[claims] final class Output(plan: QueryPlan[_]) {
  lazy val attributes: Seq[Attribute] = plan.output
}

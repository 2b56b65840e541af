package planguard.shims

import org.apache.spark.sql.execution.InSubqueryExec

/**
 * Whether an IN subquery is dynamic partition pruning's: Spark 4.x says so (`isDynamicPruning`);
 * Spark 3.5 says the opposite (`shouldBroadcast`, true for a plain IN subquery).
 */
object DynamicPruning {
  def is(in: InSubqueryExec): Boolean = in.isDynamicPruning
}

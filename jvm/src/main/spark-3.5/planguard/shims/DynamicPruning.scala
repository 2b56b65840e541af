package planguard.shims

import org.apache.spark.sql.execution.InSubqueryExec

/**
 * Whether an IN subquery is dynamic partition pruning's: Spark 3.5 broadcasts the result of a
 * plain IN subquery (`shouldBroadcast`) and not dynamic pruning's; 4.x names it `isDynamicPruning`.
 */
object DynamicPruning {
  def is(in: InSubqueryExec): Boolean = !in.shouldBroadcast
}

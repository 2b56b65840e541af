package planguard.checks

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.streaming.sources.WriteToMicroBatchDataSourceV1

/**
 * A streaming micro-batch written into a DataSource V1 sink (the file sinks, foreachBatch), as
 * Spark plans it: analyzed under a marker, WriteToMicroBatchDataSourceV1, over a projection
 * `a#18 AS a#12` that renames each column the source read (`a#18`) to the stream's (`a#12`); the
 * streaming engine removes the marker before the optimizer runs and runs the batch as a query of
 * its own, prepared outside any SQL execution. The batch's query is then a root like any other
 * (Spark 4.2's optimizer removes those aliases as redundant: query.RedundantAliases).
 */
object MicroBatchV1Write {

  /** The plan the optimizer starts from, given the analyzed (normalised) plan: no marker. */
  def optimizerInput(analyzed: LogicalPlan): LogicalPlan = analyzed match {
    case write: WriteToMicroBatchDataSourceV1 => write.child
    case _ => analyzed
  }
}

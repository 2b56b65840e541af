package planguard.checks

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, ExprId}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.execution.streaming.sources.WriteToMicroBatchDataSourceV1

/**
 * A streaming micro-batch written into a DataSource V1 sink (the file sinks, foreachBatch), as
 * Spark plans it: analyzed under a marker, WriteToMicroBatchDataSourceV1, over a projection
 * `a#18 AS a#12` that renames each column the source read (`a#18`) to the stream's (`a#12`); the
 * streaming engine removes the marker before the optimizer runs and runs the batch as a query of
 * its own, prepared outside any SQL execution. The batch's query is then a root like any other,
 * and Spark 4.2's optimizer removes those aliases as redundant: the optimized root outputs `a#18`
 * where the analyzed root output `a#12`.
 */
object MicroBatchV1Write {

  /** The plan the optimizer starts from, given the analyzed (normalised) plan: no marker. */
  def optimizerInput(analyzed: LogicalPlan): LogicalPlan = analyzed match {
    case write: WriteToMicroBatchDataSourceV1 => write.child
    case _ => analyzed
  }

  /**
   * For a micro-batch into a DataSource V1 sink, the attribute each attribute is an alias of in
   * it, through every alias: the optimized root of the batch outputs what its analyzed root
   * outputs, read so on both sides. None for any other root.
   */
  def unaliasing(root: LogicalPlan): Option[Attribute => Attribute] = root match {
    case write: WriteToMicroBatchDataSourceV1 =>
      val aliases: Map[ExprId, Attribute] = write.collect {
        case p: Project => p.projectList.collect { case a @ Alias(source: Attribute, _) =>
          a.exprId -> source }
      }.flatten.toMap
      def source(a: Attribute): Attribute = aliases.get(a.exprId).fold(a)(source)
      Some(source)
    case _ => None
  }
}

package planguard.shims

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/**
 * The columns a write command writes, where they are not its query's output: Spark 3.5's
 * copy-on-write row-level writes project metadata columns out of their query as they are
 * optimized. Spark 4 keeps a write's query whole and selects what it writes as it writes (a
 * ReplaceData's or WriteDelta's projections): every command writes its query's output.
 */
object WrittenColumns {
  def unapply(command: LogicalPlan): Option[Seq[Attribute]] = None
}

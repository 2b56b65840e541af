package planguard.shims

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, ReplaceData}

/**
 * The columns a write command writes, where they are not its query's output. Spark 3.5's
 * copy-on-write row-level writes (ReplaceData: DELETE, UPDATE and MERGE into a table that
 * rewrites whole files, such as Iceberg's copy-on-write tables) read each row's metadata columns
 * (its file, its position) beside its data, to ask for a distribution and an ordering, and write
 * the data columns alone: the optimizer's V2Writes projects the metadata columns out of the
 * query. Spark 4 keeps them in the query and selects the data columns as it writes.
 */
object WrittenColumns {
  def unapply(command: LogicalPlan): Option[Seq[Attribute]] = command match {
    case write: ReplaceData => Some(write.dataInput)
    case _ => None
  }
}

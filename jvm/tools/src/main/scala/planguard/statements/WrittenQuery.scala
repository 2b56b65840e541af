package planguard.statements

import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, V2WriteCommand}
import org.apache.spark.sql.execution.command.DataWritingCommand

import planguard.checks.PersistedColumns

/**
 * The query an analyzed write command writes: the writes that store the query's own names
 * (PersistedColumns: to a path, CTAS, INSERT OVERWRITE DIRECTORY) and the writes into an existing
 * table, which store the table's names (INSERT into a data source or Hive table, `insertInto`,
 * catalog v2 appends and overwrites).
 */
object WrittenQuery {

  def apply(plan: LogicalPlan): Option[LogicalPlan] =
    PersistedColumns(plan).map(_._1).orElse(plan match {
      case c: DataWritingCommand => Some(c.query)
      case c: V2WriteCommand => Some(c.query)
      case _ => None
    })
}

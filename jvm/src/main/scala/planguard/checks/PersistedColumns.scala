package planguard.checks

import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, V2CreateTableAsSelectPlan}
import org.apache.spark.sql.execution.command.{CreateDataSourceTableAsSelectCommand, InsertIntoDataSourceDirCommand}
import org.apache.spark.sql.execution.datasources.{InsertIntoHadoopFsRelationCommand, SaveIntoDataSourceCommand}

/**
 * The analyzed write commands and the names under which they store their query's columns, in the
 * query's order: `df.write.*` and INSERT into files (including Delta's `save`), CTAS and
 * `saveAsTable` (data source and catalog v2, Delta's too) and INSERT OVERWRITE DIRECTORY. Not
 * catalog v2 appends and overwrites (INSERT into a Delta or Iceberg table, `writeTo`): they
 * store under the existing table's names, whatever the query's columns are named.
 */
object PersistedColumns {

  def apply(plan: LogicalPlan): Option[(LogicalPlan, Seq[String])] = plan match {
    case c: InsertIntoHadoopFsRelationCommand => Some(c.query -> c.outputColumnNames)
    case c: CreateDataSourceTableAsSelectCommand => Some(c.query -> c.outputColumnNames)
    case c: InsertIntoDataSourceDirCommand => Some(c.query -> names(c.query))
    case c: SaveIntoDataSourceCommand => Some(c.query -> names(c.query))
    case c: V2CreateTableAsSelectPlan => Some(c.query -> names(c.query))
    case _ => None
  }

  private def names(query: LogicalPlan): Seq[String] = query.output.map(_.name)
}

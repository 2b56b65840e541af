package planguard.checks

import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, V2CreateTableAsSelectPlan}
import org.apache.spark.sql.execution.command.{CreateDataSourceTableAsSelectCommand,
  InsertIntoDataSourceDirCommand}
import org.apache.spark.sql.execution.datasources.{InsertIntoHadoopFsRelationCommand,
  SaveIntoDataSourceCommand}

/**
 * The analyzed write commands and the names under which they store their query's columns, in the
 * query's order: `df.write.*` to a path (including Delta's `save`), CTAS and `saveAsTable` that
 * creates a table (data source and catalog v2, Delta's too) and INSERT OVERWRITE DIRECTORY. Not
 * writes into an existing catalog table — INSERT into a data source, Hive or catalog v2 table
 * (Delta, Iceberg), `insertInto`, `saveAsTable` appending, `writeTo` — which store under the
 * table's names, whatever the query's columns are named (Spark renames them to the table's).
 */
object PersistedColumns {

  def apply(plan: LogicalPlan): Option[(LogicalPlan, Seq[String])] = plan match {
    case c: InsertIntoHadoopFsRelationCommand if c.catalogTable.isEmpty =>
      Some(c.query -> c.outputColumnNames)
    case c: CreateDataSourceTableAsSelectCommand => Some(c.query -> c.outputColumnNames)
    case c: InsertIntoDataSourceDirCommand => Some(c.query -> names(c.query))
    case c: SaveIntoDataSourceCommand => Some(c.query -> names(c.query))
    case c: V2CreateTableAsSelectPlan => Some(c.query -> names(c.query))
    case _ => None
  }

  private def names(query: LogicalPlan): Seq[String] = query.output.map(_.name)
}

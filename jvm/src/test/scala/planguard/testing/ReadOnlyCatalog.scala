package planguard.testing

import java.util

import org.apache.spark.sql.connector.catalog.{Identifier, Table, TableCatalog, TableChange}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/** A v2 catalog of the test tables it loads: named where Spark configures it, nothing written. */
abstract class ReadOnlyCatalog extends TableCatalog {
  private var catalogName = ""

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit =
    catalogName = name
  override def name(): String = catalogName
  // Spark 3.5's abstract form of createTable (4.x keeps it, deprecated, beside a Column[] form).
  override def createTable(ident: Identifier, schema: StructType, partitions: Array[Transform],
      properties: util.Map[String, String]): Table =
    throw new UnsupportedOperationException("read only")
  override def alterTable(ident: Identifier, changes: TableChange*): Table =
    throw new UnsupportedOperationException("read only")
  override def dropTable(ident: Identifier): Boolean = false
  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit =
    throw new UnsupportedOperationException("read only")
}

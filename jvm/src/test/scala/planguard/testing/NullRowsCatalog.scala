package planguard.testing

import java.util

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.{Identifier, SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReader,
  PartitionReaderFactory, Scan, ScanBuilder}
import org.apache.spark.sql.types.{LongType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * A v2 catalog of row-based tables `k BIGINT NOT NULL, v BIGINT`, whose reader returns each row
 * with one field more than the scan declares, as Apache Iceberg's metadata tables do: `nulls`
 * holds a null in `k` (rows (1, 1), (null, 2), (1, 3), (null, 4): a source that breaks its NOT
 * NULL declaration), `clean` keeps it ((1, 1), (2, 2), (1, 3), (2, 4)).
 */
class NullRowsCatalog extends ReadOnlyCatalog {
  override def listTables(namespace: Array[String]): Array[Identifier] =
    Array(Identifier.of(namespace, "nulls"), Identifier.of(namespace, "clean"))
  override def loadTable(ident: Identifier): Table = new NullRowsTable(ident.name())
}

final class NullRowsTable(tableName: String) extends Table with SupportsRead {
  override def name(): String = tableName
  override def schema(): StructType = NullRowsTable.schema
  override def capabilities(): util.Set[TableCapability] =
    util.EnumSet.of(TableCapability.BATCH_READ)
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    () => NullRowsScan(withNulls = tableName == "nulls")
}

object NullRowsTable {
  val schema: StructType = StructType(Seq(StructField("k", LongType, nullable = false),
    StructField("v", LongType)))
}

final case class NullRowsScan(withNulls: Boolean) extends Scan with Batch with InputPartition
    with PartitionReaderFactory {
  override def readSchema(): StructType = NullRowsTable.schema
  override def toBatch: Batch = this
  override def planInputPartitions(): Array[InputPartition] = Array(this)
  override def createReaderFactory(): PartitionReaderFactory = this

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    new PartitionReader[InternalRow] {
      private var v = 0L
      override def next(): Boolean = { v += 1; v <= 4 }
      override def get(): InternalRow = {
        val k: Any = if (v % 2 == 1) 1L else if (withNulls) null else 2L
        InternalRow(k, v, v * 100)
      }
      override def close(): Unit = ()
    }
}

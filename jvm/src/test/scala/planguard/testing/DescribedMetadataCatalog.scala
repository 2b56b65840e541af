package planguard.testing

import java.util

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.{Identifier, MetadataColumn,
  SupportsMetadataColumns, SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReader,
  PartitionReaderFactory, Scan, ScanBuilder, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.types.{DataType, LongType, MetadataBuilder, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * A v2 catalog whose every table is [[DescribedMetadataTable]]: ten rows `id` 0 to 9, and a
 * metadata column `_row` (`id * 100`) that the table and its scan describe differently, as Apache
 * Iceberg 1.10 does its `_file`, `_pos`, `_spec_id` or `_partition`: the table's `MetadataColumn`
 * carries no comment, the scan's read schema does (Iceberg's TypeToSparkType).
 */
class DescribedMetadataCatalog extends ReadOnlyCatalog {
  override def listTables(namespace: Array[String]): Array[Identifier] =
    Array(Identifier.of(namespace, "t"))
  override def loadTable(ident: Identifier): Table = DescribedMetadataTable
}

object DescribedMetadataTable extends Table with SupportsRead with SupportsMetadataColumns {
  private val data = StructType(Seq(StructField("id", LongType, nullable = false)))

  /** The scan's description of `_row`: Iceberg's, a metadata column with a comment. */
  private val scannedRow = StructField("_row", LongType, nullable = false,
    new MetadataBuilder().putBoolean("__metadata_col", value = true)
      .putString("comment", "the row's number, times 100").build())

  override def name(): String = "t"
  override def schema(): StructType = data
  override def capabilities(): util.Set[TableCapability] =
    util.EnumSet.of(TableCapability.BATCH_READ)

  override def metadataColumns(): Array[MetadataColumn] = Array(new MetadataColumn {
    override def name(): String = "_row"
    override def dataType(): DataType = LongType
    override def isNullable: Boolean = false
  })

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    new ScanBuilder with SupportsPushDownRequiredColumns {
      private var required = data
      override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema
      override def build(): Scan = new RowsScan(StructType(required.fields.map { f =>
        if (f.name == "_row") scannedRow else f
      }))
    }
}

final class RowsScan(schema: StructType) extends Scan with Batch {
  override def readSchema(): StructType = schema
  override def toBatch: Batch = this
  override def planInputPartitions(): Array[InputPartition] = Array(RowsPartition(0, 10))
  override def createReaderFactory(): PartitionReaderFactory =
    RowsReaderFactory(schema.fieldNames.toSeq)
}

final case class RowsPartition(from: Long, until: Long) extends InputPartition

/** Reads `id` and `_row` in the order the scan's schema lists them. */
final case class RowsReaderFactory(columns: Seq[String]) extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val rows = partition.asInstanceOf[RowsPartition]
    new PartitionReader[InternalRow] {
      private var id = rows.from - 1
      override def next(): Boolean = { id += 1; id < rows.until }
      override def get(): InternalRow =
        InternalRow.fromSeq(columns.map(c => if (c == "_row") id * 100 else id))
      override def close(): Unit = ()
    }
  }
}

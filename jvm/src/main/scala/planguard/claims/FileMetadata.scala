package planguard.claims

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference,
  FileSourceGeneratedMetadataAttribute, FileSourceMetadataAttribute}

/**
 * A file source's metadata columns: `_metadata` and the internal columns a scan fills it from
 * (`_tmp_metadata_row_index`, Parquet's row index). The scan makes them for every row it reads,
 * and Spark's FileSourceStrategy declares their fields NOT NULL over the scan's nullable internal
 * columns: what Spark's file scans guarantee, not a claim a plan proves.
 */
private[claims] object FileMetadata {
  def apply(a: Attribute): Boolean = a match {
    case r: AttributeReference => FileSourceMetadataAttribute.isValid(r.metadata) ||
      FileSourceGeneratedMetadataAttribute.unapply(r).isDefined
    case _ => false
  }
}

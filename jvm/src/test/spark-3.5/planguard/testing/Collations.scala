package planguard.testing

import org.apache.spark.sql.types.StringType

/** A string type with a collation other than the default: collations are 4.0's, so none here. */
object Collations {
  def lowercase: Option[StringType] = None
}

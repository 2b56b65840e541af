package planguard.testing

import org.apache.spark.sql.types.StringType

/** A string type with a collation other than the default: Spark 4.0's; 3.5 has no collations. */
object Collations {
  def lowercase: Option[StringType] = Some(StringType("UTF8_LCASE"))
}

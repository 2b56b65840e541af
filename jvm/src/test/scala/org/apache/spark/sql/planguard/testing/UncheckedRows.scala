package org.apache.spark.sql.planguard.testing

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

import planguard.testing.ClassicSparkSession

/**
 * A DataFrame over an RDD of rows its schema is not checked against, as PySpark's
 * `createDataFrame(rows, schema, verifySchema=False)` makes one (`applySchemaToPythonRDD`):
 * Scala's createDataFrame checks each row, through a method private to Spark.
 */
object UncheckedRows {
  def apply(spark: SparkSession, rows: Seq[Row], schema: StructType): DataFrame = {
    val converter = CatalystTypeConverters.createToCatalystConverter(schema)
    val internal = rows.map(converter(_).asInstanceOf[InternalRow])
    spark.asInstanceOf[ClassicSparkSession]
      .internalCreateDataFrame(spark.sparkContext.parallelize(internal, 2), schema)
  }
}

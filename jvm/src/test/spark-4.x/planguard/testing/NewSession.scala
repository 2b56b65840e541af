package planguard.testing

import org.apache.spark.sql.SparkSession

/**
 * A new session from `builder`, with the builder's extensions, on the running SparkContext if
 * there is one. Spark 4.x's builder creates one (`create`); Spark 3.5's only `getOrCreate`s.
 */
object NewSession {
  def apply(builder: SparkSession.Builder): SparkSession = builder.create()
}

package planguard

/**
 * The session type commands run with: Spark 3.5's only SparkSession (4.x's classic one lives in
 * org.apache.spark.sql.classic).
 */
package object testing {
  type ClassicSparkSession = org.apache.spark.sql.SparkSession
}

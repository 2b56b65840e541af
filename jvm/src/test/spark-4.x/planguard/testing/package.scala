package planguard

/**
 * The session type commands run with: Spark 4.x's classic session (org.apache.spark.sql.classic);
 * Spark 3.5 has only org.apache.spark.sql.SparkSession.
 */
package object testing {
  type ClassicSparkSession = org.apache.spark.sql.classic.SparkSession
}

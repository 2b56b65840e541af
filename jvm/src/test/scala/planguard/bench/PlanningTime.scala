package planguard.bench

import org.apache.spark.sql.SparkSession

/** Timing on the JVM side for benchmarks/planning_overhead.py, free of py4j round trips. */
object PlanningTime {

  /** Nanoseconds from SQL text to the executed (prepared) physical plan, nothing executed. */
  def plan(session: SparkSession, sql: String): Long = {
    val start = System.nanoTime()
    session.sql(sql).queryExecution.executedPlan
    System.nanoTime() - start
  }

  /** Nanoseconds to run the query to completion, rows collected on the driver. */
  def run(session: SparkSession, sql: String): Long = {
    val start = System.nanoTime()
    session.sql(sql).collect()
    System.nanoTime() - start
  }
}

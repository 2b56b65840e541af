package planguard.bench

import java.lang.management.ManagementFactory

import org.apache.spark.sql.SparkSession

/** Timing on the JVM side for benchmarks/planning_overhead.py, free of py4j round trips. */
object PlanningTime {
  private val threads = ManagementFactory.getThreadMXBean

  /**
   * From SQL text to the executed (prepared) physical plan, nothing executed: (wall-clock
   * nanoseconds, CPU nanoseconds of this thread, which plans alone and so leaves out what other
   * processes and threads do meanwhile).
   */
  def plan(session: SparkSession, sql: String): Array[Long] = {
    val (wall, cpu) = (System.nanoTime(), threads.getCurrentThreadCpuTime)
    session.sql(sql).queryExecution.executedPlan
    Array(System.nanoTime() - wall, threads.getCurrentThreadCpuTime - cpu)
  }

  /** Wall-clock nanoseconds to run the query to completion, rows collected on the driver. */
  def run(session: SparkSession, sql: String): Array[Long] = {
    val start = System.nanoTime()
    session.sql(sql).collect()
    Array(System.nanoTime() - start)
  }
}

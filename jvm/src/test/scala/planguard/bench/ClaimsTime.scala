package planguard.bench

import org.apache.spark.sql.SparkSession

import planguard.claims.{Baseline, ClaimsCheck}
import planguard.schema.LogicalTypes

/**
 * The NOT NULL claims' walks alone, beside Spark's planning of the same pipeline
 * (benchmarks/claims_walk.py): one pipeline of benchmarks/pipeline_overhead.py's shapes built in
 * a session without planguard; its optimized plan and its physical plan walked `times` times each,
 * as planguard's checks walk them (the optimized plan at planning, each prepared plan or stage
 * before it runs), and the pipeline planned afresh `times` times, taking turns.
 * Returns the mean nanoseconds of each: (optimized plan's walk, physical plan's walk, planning).
 */
object ClaimsTime {
  def apply(spark: SparkSession, shape: String, size: Int, times: Int): Array[Long] = {
    val qe = PipelineTime.build(spark, shape, size).queryExecution
    val types = LogicalTypes.Exact
    val (analyzed, optimized, physical) = (qe.analyzed, qe.optimizedPlan, qe.sparkPlan)
    val total = new Array[Long](3)
    def timed(i: Int)(step: => Unit): Unit = {
      val start = System.nanoTime()
      step
      total(i) += System.nanoTime() - start
    }
    for (_ <- 1 to times) {
      timed(0)(ClaimsCheck(optimized, new Baseline(Seq(analyzed)), types))
      timed(1)(ClaimsCheck(physical, new Baseline(Seq(optimized)), types))
      timed(2)(spark.sessionState.executePlan(analyzed).executedPlan)
    }
    total.map(_ / times)
  }
}

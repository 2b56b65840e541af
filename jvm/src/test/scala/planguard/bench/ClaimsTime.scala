package planguard.bench

import org.apache.spark.sql.SparkSession

import planguard.claims.{Baseline, ClaimsCheck}
import planguard.schema.LogicalTypes

/**
 * The NOT NULL claims' walks alone, for profiling them (benchmarks/claims_walk.py): one pipeline
 * of benchmarks/pipeline_overhead.py's shapes planned in a session without planguard, then its
 * optimized plan and its physical plan walked `times` times each, as planguard's checks walk them.
 * Returns the mean nanoseconds of one walk of each: (optimized, physical).
 */
object ClaimsTime {
  def apply(spark: SparkSession, shape: String, size: Int, times: Int): Array[Long] = {
    val qe = PipelineTime.build(spark, shape, size).queryExecution
    val types = LogicalTypes.Exact
    val (analyzed, optimized, physical) = (qe.analyzed, qe.optimizedPlan, qe.sparkPlan)
    def mean(walk: => Unit): Long = {
      val start = System.nanoTime()
      var i = 0
      while (i < times) { walk; i += 1 }
      (System.nanoTime() - start) / times
    }
    Array(mean(ClaimsCheck(optimized, new Baseline(Seq(analyzed)), types)),
      mean(ClaimsCheck(physical, new Baseline(Seq(optimized)), types)))
  }
}

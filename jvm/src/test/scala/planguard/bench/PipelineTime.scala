package planguard.bench

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SQLExecution
import org.apache.spark.sql.functions.{col, lit, sum}

import planguard.PlanGuardExtensions
import planguard.testing.NewSession

/**
 * Timing on the JVM side for benchmarks/pipeline_overhead.py: the DataFrame pipelines users build
 * step by step, each step analyzed as it is made, in two sessions of one SparkContext, one with
 * planguard and one without it.
 */
object PipelineTime {

  /** (without planguard, with planguard), on the running SparkContext. */
  def sessions(active: SparkSession): Array[SparkSession] = {
    val plain = active.newSession()
    // The builder takes the running SparkContext.
    val guarded = NewSession(SparkSession.builder().withExtensions(new PlanGuardExtensions))
    Array(plain, guarded)
  }

  /**
   * Builds one pipeline of `shape` and `size` in each session, plans it to its executed plan, then
   * reads its result's schema, the sessions taking turns one pipeline at a time, starting at
   * `first`, until each has spent `MinNanos` building and `MinNanos` planning. Returns every
   * repetition's times: the number of repetitions, then per repetition, per session in the order
   * given, the nanoseconds to build it through the DataFrame API, to plan it, and to read the
   * schema of its analyzed plan. Every action reads that schema (collect's and toPandas' encoders,
   * a write's command, show's projection) and Spark derives it once per plan, on first reading:
   * planguard's checks of a query read it while it is planned, and an action then finds it
   * derived. Taking turns at every repetition pairs the arms within milliseconds: a single
   * planning of a few milliseconds varies by more than the difference measured, and the machine
   * drifts between longer runs.
   *
   * @param asAction plan each pipeline as an action does: inside a SQL execution of its own,
   *                 before its first task (see `planAfresh`); otherwise outside any execution, as
   *                 `df.queryExecution.executedPlan` and `explain` do
   */
  def interleaved(arms: java.util.List[SparkSession], shape: String, size: Int,
      first: Int, asAction: Boolean): Array[Long] = {
    val sessions = arms.asScala.toIndexedSeq
    val n = sessions.length
    val order = (0 until n).map(i => (first + i) % n)
    val (built, planned) = (new Array[Long](n), new Array[Long](n))
    val times = Array.newBuilder[Long]
    var repetitions = 0L
    def timed(step: => Unit): Long = {
      val start = System.nanoTime()
      step
      System.nanoTime() - start
    }
    while (repetitions == 0 || built.min < MinNanos || planned.min < MinNanos) {
      val repetition = new Array[Long](Figures * n)
      for (k <- order) {
        var df: DataFrame = null
        repetition(Figures * k) = timed { df = build(sessions(k), shape, size) }
        val analyzed = df.queryExecution.analyzed
        repetition(Figures * k + 1) = timed(planAfresh(sessions(k), analyzed, asAction))
        repetition(Figures * k + 2) = timed(analyzed.schema)
        built(k) += repetition(Figures * k)
        planned(k) += repetition(Figures * k + 1)
      }
      times ++= repetition
      repetitions += 1
    }
    repetitions +: times.result()
  }

  /** Timings per repetition and session: building, planning, reading the result's schema. */
  private val Figures = 3

  /**
   * Builds a pipeline of `shape` and `size` in `spark` and plans it, `times` times, each pipeline
   * built afresh as `interleaved` builds it: a warm-up that runs planguard's rules as often as a
   * long-lived driver's queries do, so that HotSpot compiles them. Afresh, because planning an
   * analyzed plan that was planned before takes another path: what Spark derives of an analyzed
   * plan on first reading (its root's output) is derived, and the tags planguard set are there.
   */
  def plan(spark: SparkSession, shape: String, size: Int, times: Int, asAction: Boolean): Unit =
    for (_ <- 1 to times) {
      planAfresh(spark, build(spark, shape, size).queryExecution.analyzed, asAction)
    }

  /**
   * Plans `analyzed` afresh to its executed plan. Outside any SQL execution, what
   * `df.queryExecution.executedPlan` and `explain` do: planguard then leaves the checks that need
   * the query's execution to the plan's first run. As an action, inside a SQL execution of its
   * own with nothing run in it: what `collect`, `count` or a write pay before their first task —
   * planguard's checks, all of them, and Spark's own per-action work (the plan's description and
   * the events for its UI and listeners).
   */
  private def planAfresh(spark: SparkSession, analyzed: LogicalPlan, asAction: Boolean): Unit = {
    val qe = spark.sessionState.executePlan(analyzed)
    if (asAction) SQLExecution.withNewExecutionId(qe, Some("collect"))(qe.executedPlan)
    else qe.executedPlan
  }

  private val MinNanos = 100L * 1000 * 1000

  def build(spark: SparkSession, shape: String, size: Int): DataFrame = shape match {
    // A fact joined to `size` dimensions on a shared key, USING: a star schema built join by join.
    case "joins" =>
      (1 to size).foldLeft(spark.range(100).selectExpr("id AS k", "id AS v0")) { (df, i) =>
        df.join(spark.range(10).selectExpr("id AS k", s"id * $i AS v$i"), Seq("k"), "left")
      }
    // One derived column after another.
    case "withColumn" =>
      (1 to size).foldLeft(spark.range(100).toDF()) { (df, i) =>
        df.withColumn(s"c$i", col("id") + i)
      }
    // Many sources of one shape appended to each other.
    case "unions" =>
      (1 until size).foldLeft(source(spark, 0)) { (df, i) => df.union(source(spark, i)) }
    // A wide table, then what a job does with it: filter, derive, select all, aggregate.
    case "wide" =>
      val wide = spark.range(10).select((0 until size).map(i => (col("id") + i).as(s"c$i")): _*)
      wide.filter(col("c0") > 1)
        .withColumn("extra", col("c1") * 2)
        .select(wide.columns.map(col) :+ col("extra"): _*)
        .groupBy("c0").agg(sum("extra").as("total"), (1 until 50).map(i => sum(s"c$i")): _*)
    case other => throw new IllegalArgumentException(s"unknown shape $other")
  }

  private def source(spark: SparkSession, i: Int): DataFrame =
    spark.range(10).select(col("id"), lit(i).as("src"), (col("id") * i).as("value"))
}

package planguard

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.col

import planguard.errors.InvariantViolation
import planguard.planner.{PlanGuardPlannerExtensions, PlannerOrigin}
import planguard.report.ViolationLog
import planguard.testing.{PlannerExchanges, ScanRefused, ThrowsWhenReplayedExtension, Watchdog,
  WatchdogExtension}

/**
 * What another extension's code throws on purpose, in work planguard hands it (errors.Foreign),
 * reaches the user as it would without planguard, and is not planguard's INTERNAL_ERROR: Kyuubi's
 * watchdog strategy refuses a scan of too many partitions by throwing, and planguard's planner
 * runs the session's strategies when it plans a join's or an aggregation's inputs. In the
 * production default, spark.planguard.internalErrors=log, where an exception taken for
 * planguard's own is recorded and the query goes on.
 */
class PassThroughSuite extends SparkSessions {

  private val planner: Extension = new PlanGuardPlannerExtensions
  private val watchdog: Extension = new WatchdogExtension
  private val Log = "spark.planguard.internalErrors" -> "log"

  /** An aggregation and a join, each reading a range of `slices` partitions. */
  private def queries(spark: SparkSession, slices: Int): Seq[DataFrame] = {
    val scanned = spark.range(0, 100, 1, slices).selectExpr("id % 5 AS k", "id AS v")
    val small = spark.range(0, 10, 1, 2).selectExpr("id AS k2")
    Seq(scanned.groupBy("k").count(),
      scanned.join(small, col("k") === col("k2")).select("v"))
  }

  /** What running `df` threw. */
  private def thrown(df: DataFrame): Throwable = intercept[Throwable](df.collect())

  for (adaptive <- adaptiveModes;
       (order, extensions) <- Seq("planguard first" -> Seq(planguard, planner, watchdog),
         "planguard last" -> Seq(watchdog, planguard, planner))) {
    test(s"another extension's strategy refusing a scan fails the query with its own exception, " +
      s"recorded nowhere ($order, adaptive=$adaptive)") {
      val without = queries(session(Seq(watchdog), adaptive), Watchdog.MaxSlices + 4)
        .map(thrown)
      without.foreach(e => assert(e.getClass == classOf[ScanRefused], e))
      val spark = session(extensions, adaptive, Log)
      queries(spark, Watchdog.MaxSlices + 4).map(thrown).zip(without).foreach {
        case (e, expected) =>
          assert(e.getClass == expected.getClass, e)
          assert(e.getMessage == expected.getMessage)
      }
      assert(ViolationLog.records(spark).isEmpty, ViolationLog.json(spark))
      // A scan the watchdog lets through: the planner plans the query, its exchanges there.
      queries(spark, Watchdog.MaxSlices).foreach { df =>
        df.collect()
        assert(PlannerExchanges.of(df.queryExecution.sparkPlan).exists(PlannerOrigin.isPlanners),
          df.queryExecution.sparkPlan)
      }
      assert(ViolationLog.records(spark).isEmpty, ViolationLog.json(spark))
    }
  }

  // The throwing rule before the broken one, so that the replay runs it before it finds the
  // culprit.
  for ((order, extensions) <- Seq(
      "planguard first" -> Seq(planguard, new ThrowsWhenReplayedExtension,
        new testing.ReverseRootProjectExecExtension),
      "planguard last" -> Seq(new ThrowsWhenReplayedExtension,
        new testing.ReverseRootProjectExecExtension, planguard))) {
    test(s"a rule that throws in planguard's replay is not named, and no INTERNAL_ERROR ($order)") {
      val spark = session(extensions, adaptive = false, Log)
      projectedQueries(spark).foreach { df =>
        val e = intercept[InvariantViolation](df.collect())
        assert(e.invariant.id == "PHYSICAL_SCHEMA")
        assert(e.rule.orNull ==
          "planguard.testing.ReverseRootProjectExec (columnar rule, before transitions)")
      }
      assert(ViolationLog.records(spark).map(_.id).distinct == Seq("PHYSICAL_SCHEMA"),
        ViolationLog.json(spark))
    }
  }
}

package planguard.testing

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Range}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan, SparkStrategy}

import planguard.attribution.Replaying

// Other extensions' code that throws on purpose, or where only planguard's replay runs it: what
// it throws is not planguard's bug (errors.Foreign).

/**
 * Another extension's refusal, made on purpose: what Kyuubi's watchdog throws
 * (MaxPartitionExceedException, a SQLException) when a scan would read too many partitions.
 */
final class ScanRefused(message: String) extends java.sql.SQLException(message)

/**
 * A planner strategy that refuses a scan of more than `MaxSlices` partitions, as Kyuubi's
 * watchdog strategy (MaxScanStrategy) refuses a scan of too many table partitions: it plans
 * nothing, and throws when Spark's planner, or planguard's on its behalf, asks it about such a
 * scan (a `range` of that many slices).
 */
object Watchdog extends SparkStrategy {
  val MaxSlices = 4

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case r: Range if r.numSlices.exists(_ > MaxSlices) => throw new ScanRefused(
      s"Your SQL job scans a range of ${r.numSlices.get} partitions, exceeding the maximum " +
        s"number of partitions limit $MaxSlices.")
    case _ => Nil
  }
}

class WatchdogExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectPlannerStrategy(_ => Watchdog)
}

/**
 * A columnar rule of another extension that throws where planguard's replay runs it (attribution
 * Replaying) and nowhere else: it stands for a rule that throws on a plan the replay gives it
 * though not on the query's own, as a jar built for another Spark line throws NoSuchMethodError
 * (a LinkageError, which Scala's NonFatal does not cover) on the code path that plan takes.
 */
object ThrowsWhenReplayed extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan =
    if (Replaying.now) throw new NoSuchMethodError("a method of another Spark line")
    else plan
}

class ThrowsWhenReplayedExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectColumnar((_: SparkSession) =>
    new ColumnarRule { override def preColumnarTransitions: Rule[SparkPlan] = ThrowsWhenReplayed })
}

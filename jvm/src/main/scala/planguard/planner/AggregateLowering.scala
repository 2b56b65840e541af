package planguard.planner

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.Aggregate
import org.apache.spark.sql.execution.SparkPlan

import planguard.conf.PlanGuardConf
import planguard.errors.Foreign
import planguard.planner.eager.EagerAggregationReason

/**
 * An aggregation lowered in two phases: partial aggregate, exchange on the grouping keys, final
 * aggregate (one partition for a global aggregate; with a distinct aggregate, the phases Spark
 * plans, an exchange under each that needs one). Spark's Aggregation strategy (AggUtils) chooses
 * the operators (hash, object-hash or sort aggregate), as without planguard; what it throws is a
 * call out's (errors.Foreign).
 *
 * The partial aggregate is adaptive (docs/planner.md) where
 * `spark.planguard.planner.partialAggregation.adaptive` says so, except in an aggregation that
 * eager aggregation's gate (`on`) pushed below a join: statistics told the gate that it reduces
 * its rows, which a probe of each partition's first rows cannot overrule. (Measured: over fact rows
 * whose keys repeat only further apart than the probe, its partial aggregates gave up, the
 * shuffle carried a buffer per row, and the rewrite lost 8 %; aggregating, it won 1.2× to 1.4×.)
 */
object AggregateLowering {

  def apply(session: SparkSession, aggregate: Aggregate): Option[SparkPlan] =
    Foreign(session.sessionState.planner.Aggregation(aggregate)).headOption
      .map(Lowering(session, _, PartitionCount.current, adaptivePartial(session, aggregate)))

  private def adaptivePartial(session: SparkSession, aggregate: Aggregate): Boolean = {
    val conf = session.sessionState.conf
    PlanGuardConf.adaptivePartialAggregation(conf) && !(PlanGuardConf.eagerAggregation(conf) ==
      "on" && EagerAggregationReason.pushed(aggregate))
  }
}

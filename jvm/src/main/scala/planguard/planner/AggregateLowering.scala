package planguard.planner

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.Aggregate
import org.apache.spark.sql.execution.SparkPlan

import planguard.errors.Foreign

/**
 * An aggregation lowered in two phases: partial aggregate, exchange on the grouping keys, final
 * aggregate (one partition for a global aggregate; with a distinct aggregate, the phases Spark
 * plans, an exchange under each that needs one). Spark's Aggregation strategy (AggUtils) chooses
 * the operators (hash, object-hash or sort aggregate), as without planguard; what it throws is a
 * call out's (errors.Foreign).
 */
object AggregateLowering {

  def apply(session: SparkSession, aggregate: Aggregate): Option[SparkPlan] =
    Foreign(session.sessionState.planner.Aggregation(aggregate)).headOption
      .map(Lowering(session, _, PartitionCount.current))
}

package planguard.planner

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.planning.{ExtractEquiJoinKeys,
  ExtractSingleColumnNullAwareAntiJoin}
import org.apache.spark.sql.catalyst.plans.logical.Join
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.LogicalQueryStageStrategy
import org.apache.spark.sql.execution.joins.{BroadcastHashJoinExec, ShuffledHashJoinExec,
  SortMergeJoinExec}

import planguard.errors.Foreign

/**
 * An equi-join by its strategy: broadcast hash join with a broadcast exchange on the build side
 * (`BROADCAST` hint on that side, or small enough), shuffled hash join (`SHUFFLE_HASH`) or sort
 * merge join (`MERGE`, or no hint) with a shuffle on both sides, co-partitioned. Spark's
 * JoinSelection chooses, hints and spark.sql.autoBroadcastJoinThreshold included, as without
 * planguard; what it throws is a call out's (errors.Foreign). Other joins (no equi-join keys:
 * nested loop, cartesian) and joins adaptive execution already broadcasts (a broadcast stage
 * side) are left to Spark's strategies.
 */
object JoinLowering {

  def apply(session: SparkSession, join: Join): Option[SparkPlan] = join match {
    case ExtractEquiJoinKeys(_, _, _, _, _, _, _, _) | ExtractSingleColumnNullAwareAntiJoin(_, _)
        if LogicalQueryStageStrategy(join).isEmpty =>
      Foreign(session.sessionState.planner.JoinSelection(join)).headOption.collect {
        case j @ (_: BroadcastHashJoinExec | _: ShuffledHashJoinExec | _: SortMergeJoinExec) =>
          // The join's inputs are planned on their own: an aggregation among them decides
          // whether its partial aggregate is adaptive (AggregateLowering).
          Lowering(session, j, PartitionCount.current, adaptivePartial = false)
      }
    case _ => None
  }
}

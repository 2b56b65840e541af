package planguard.planner.eager

import org.apache.spark.sql.catalyst.expressions.AttributeSet
import org.apache.spark.sql.catalyst.plans.logical.BROADCAST
import org.apache.spark.sql.internal.SQLConf

import planguard.conf.PlanGuardConf

/**
 * Where eager aggregation pays (docs/planner.md, "Eager aggregation"): measured by hand, it loses
 * where the other side is broadcast (the side pushed is not shuffled: nothing to save) or the join
 * keys are grouping columns (the aggregation above reduces as much), and wins where the side pushed
 * is shuffled and its partial aggregation shrinks it. So it is pushed only where
 *  - the other side will not be broadcast: no BROADCAST hint, and its estimated size above
 *    `spark.sql.autoBroadcastJoinThreshold`;
 *  - some join key of the side pushed is not a grouping column, and every grouping column of
 *    that side is a join key (the partial aggregation is then distributed as the join needs it:
 *    no shuffle of its own);
 *  - statistics (`ANALYZE TABLE ... COMPUTE STATISTICS FOR COLUMNS`, with CBO's or plan
 *    statistics on) estimate the partial aggregation's groups at most
 *    `spark.planguard.planner.eagerAggregation.maxGroupRatio` of the side's rows. Without them,
 *    nothing is pushed.
 */
object EagerAggregationGate {

  /** Why pushing `p` pays, where it does: the figures each condition above was decided on. */
  def why(p: EagerAggregation.Pushed, conf: SQLConf): Option[String] = {
    val joinKeys = p.join.condition.map(_.references).getOrElse(AttributeSet.empty)
      .filter(p.side.outputSet.contains)
    val sideGrouping = AttributeSet(p.grouping.filter(p.side.outputSet.contains))
    val maxRatio = PlanGuardConf.eagerAggregationMaxGroupRatio(conf)
    val notGrouped = joinKeys.filterNot(sideGrouping.contains)
    if (broadcast(p, conf) || notGrouped.isEmpty || !sideGrouping.subsetOf(joinKeys)) None
    else estimate(p).filter { case (groups, rows) => groups.toDouble / rows.toDouble <= maxRatio }
      .map { case (groups, rows) =>
        s"statistics estimate $groups groups in $rows rows (at most $maxRatio of them), the " +
          s"other side is not broadcast (estimated ${p.other.stats.sizeInBytes} bytes), and " +
          s"the join key ${notGrouped.toSeq.map(_.name).mkString(", ")} is not grouped by"
      }
  }

  private def broadcast(p: EagerAggregation.Pushed, conf: SQLConf): Boolean = {
    val hint = if (p.join.left eq p.other) p.join.hint.leftHint else p.join.hint.rightHint
    hint.exists(_.strategy.contains(BROADCAST)) || {
      val threshold = conf.autoBroadcastJoinThreshold
      threshold >= 0 && p.other.stats.sizeInBytes <= threshold
    }
  }

  /** The estimated partial groups and the rows of the side pushed, where statistics tell. */
  private def estimate(p: EagerAggregation.Pushed): Option[(BigInt, BigInt)] = {
    val stats = p.side.stats
    stats.rowCount.filter(_ > 0).flatMap { rows =>
      val distinct = p.keys.map(k => stats.attributeStats.get(k).flatMap(_.distinctCount))
      if (distinct.exists(_.isEmpty)) None else Some((distinct.flatten.product.min(rows), rows))
    }
  }
}

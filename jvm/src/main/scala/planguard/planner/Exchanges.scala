package planguard.planner

import org.apache.spark.sql.catalyst.expressions.SortOrder
import org.apache.spark.sql.catalyst.plans.physical.{BroadcastDistribution, ClusteredDistribution,
  Distribution, Partitioning, PartitioningCollection, ShuffleSpec, SinglePartition}
import org.apache.spark.sql.execution.{RemoveRedundantProjects, SortExec, SparkPlan}
import org.apache.spark.sql.execution.exchange.{BroadcastExchangeExec, Exchange,
  ShuffleExchangeExec, ShuffleExchangeLike}
import org.apache.spark.sql.internal.SQLConf

import planguard.planner.partial.AdaptivePartialAggregation
import planguard.shims.KeyGrouped

/**
 * The exchanges an operator planguard plans needs below it, from the operator's own
 * `requiredChildDistribution`: none where a child already satisfies it; a broadcast exchange for
 * a broadcast distribution; otherwise a shuffle on the distribution's keys (one partition for a
 * global aggregate). Co-partitioned children (a shuffled join's two sides) end up with compatible
 * partitionings: same key order, same partition count. Where an input is freshly shuffled, the
 * local sort the operator needs goes right above the exchange, which destroys any order.
 *
 * A partial aggregate below a shuffle becomes adaptive (`AdaptivePartialAggregation`) where
 * `adaptivePartial` says so.
 *
 * The choices are the ones EnsureRequirements makes, so that it has nothing left to add; the
 * cases where it would rewrite a child in place (a user's repartition or a storage-partitioned
 * scan under a join) are left to it.
 */
object Exchanges {

  def below(planned: SparkPlan, partitions: Int, adaptivePartial: Boolean): SparkPlan = {
    val operator = withBuildSidesAsPrepared(planned)
    val required = operator.requiredChildDistribution
    val orderings = operator.requiredChildOrdering
    val coPartitioning = required.count(_.isInstanceOf[ClusteredDistribution]) > 1
    val children = if (coPartitioning) {
      // Exchanges right below the operator (no sort between: a shuffled hash join) must have at
      // least spark.sql.shuffle.partitions, or EnsureRequirements shuffles both sides again with
      // its own count (its minimum parallelism); above sorts, it keeps theirs.
      val conf = SQLConf.get
      val belowSorts = orderings.exists(_.nonEmpty)
      val count = if (!belowSorts && partitions < conf.defaultNumShufflePartitions) {
        conf.numShufflePartitions
      } else partitions
      coPartitioned(operator.children, required.map(_.asInstanceOf[ClusteredDistribution]), count)
    } else {
      operator.children.zip(required).map { case (child, d) =>
        distributed(child, d, partitions, adaptivePartial)
      }
    }
    // A join that keeps one side's partitioning is left to EnsureRequirements to sort: it first
    // aligns the join keys with that partitioning, which changes the order the join needs.
    val keptOne = coPartitioning && !children.forall(PlannerOrigin.isPlanners)
    operator.withNewChildren(children.zip(orderings).map {
      case (child, ordering) if PlannerOrigin.isPlanners(child) && !keptOne =>
        sorted(child, ordering)
      case (child, _) => child
    })
  }

  /**
   * A broadcast's mode is bound to the build side's output, nullability included, and Spark
   * removes redundant projects (which tightens it) before EnsureRequirements derives the mode: a
   * broadcast exchange built on the build side as planned would not satisfy the join once
   * prepared, and EnsureRequirements would broadcast the broadcast. So the build side gets the
   * same removal first (a later pass finds nothing more to remove there).
   */
  private def withBuildSidesAsPrepared(operator: SparkPlan): SparkPlan =
    operator.withNewChildren(operator.children.zip(operator.requiredChildDistribution).map {
      case (child, _: BroadcastDistribution) => RemoveRedundantProjects(child)
      case (child, _) => child
    })

  private def distributed(child: SparkPlan, required: Distribution, partitions: Int,
      adaptivePartial: Boolean): SparkPlan =
    if (child.outputPartitioning.satisfies(required)) child
    else required match {
      case BroadcastDistribution(mode) => exchange(BroadcastExchangeExec(mode, child), child)
      case d => shuffled(d.createPartitioning(d.requiredNumPartitions.getOrElse(partitions)),
        if (adaptivePartial) AdaptivePartialAggregation.belowShuffle(child, SQLConf.get)
        else child)
    }

  /**
   * A child that satisfies its distribution keeps its partitioning if the others' are compatible
   * with it or can be made so: they are shuffled to match it. Of several, the one with the most
   * partitions is kept; a partitioning that cannot be recreated on the other side's keys (it
   * covers only some of the keys: spark.sql.requireAllClusterKeysForCoPartition) is not kept,
   * even where the sides happen to be compatible. Otherwise every side is shuffled on its join
   * keys, in the same order, into the same number of partitions. Single partitions on every side
   * are kept while they are small (spark.sql.maxSinglePartitionBytes).
   */
  private def coPartitioned(children: Seq[SparkPlan], required: Seq[ClusteredDistribution],
      partitions: Int): Seq[SparkPlan] = {
    if (children.exists(rewrittenByEnsureRequirements)) return children
    val specs: Seq[Option[ShuffleSpec]] = children.zip(required).map { case (child, d) =>
      val partitioning = child.outputPartitioning
      if (partitioning.satisfies(d)) Some(partitioning.createShuffleSpec(d)) else None
    }
    if (children.forall(_.outputPartitioning == SinglePartition) && children.forall(small)) {
      return children
    }
    val creatable = specs.flatten.filter(_.canCreatePartitioning)
    val kept = if (creatable.isEmpty) None else Some(creatable.maxBy(_.numPartitions))
    children.indices.map { i =>
      kept match {
        case Some(spec) if specs(i).exists(spec.isCompatibleWith) => children(i)
        case Some(spec) => shuffled(spec.createPartitioning(required(i).clustering), children(i))
        case None => shuffled(required(i).createPartitioning(partitions), children(i))
      }
    }
  }

  private def small(child: SparkPlan): Boolean = child.logicalLink.forall(
    _.stats.sizeInBytes <= SQLConf.get.getConf(SQLConf.MAX_SINGLE_PARTITION_BYTES))

  private def rewrittenByEnsureRequirements(child: SparkPlan): Boolean =
    child.isInstanceOf[ShuffleExchangeLike] || keyGrouped(child.outputPartitioning)

  private def keyGrouped(partitioning: Partitioning): Boolean = partitioning match {
    case KeyGrouped(_) => true
    case PartitioningCollection(ps) => ps.exists(keyGrouped)
    case _ => false
  }

  private def shuffled(partitioning: Partitioning, child: SparkPlan): SparkPlan =
    exchange(ShuffleExchangeExec(partitioning, child), child)

  /**
   * The exchange takes the logical link of the plan it reads (AdaptiveLinks), as adaptive
   * execution finds it for an exchange EnsureRequirements adds: a stage must stand for its input's
   * logical plan, not for the join above it. An input planned in this same step (a partial
   * aggregate) has no link yet: the exchange inherits the operator's, as the stage over
   * EnsureRequirements' exchange would.
   */
  private def exchange(exchange: Exchange, child: SparkPlan): SparkPlan = {
    child.logicalLink.foreach(AdaptiveLinks.link(exchange, _))
    PlannerOrigin.mark(exchange)
  }

  private def sorted(child: SparkPlan, ordering: Seq[SortOrder]): SparkPlan =
    if (SortOrder.orderingSatisfies(child.outputOrdering, ordering)) child
    else SortExec(ordering, global = false, child)
}

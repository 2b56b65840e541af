package planguard.stages

import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, Expression}
import org.apache.spark.sql.catalyst.plans.physical._
import org.apache.spark.sql.catalyst.util.toPrettySQL
import org.apache.spark.sql.execution.joins.HashedRelationBroadcastMode

import planguard.shims.KeyGrouped

/**
 * How rows are spread at a stage boundary, in the terms of docs/stages.md:
 * `HashKeys{keys, partitions}`, `Single`, `RoundRobin`, `Range{ordering, partitions}`,
 * `Broadcast`, and Spark's others (`KeyGrouped`, `Unknown`, `Collected` for a subquery's result
 * on the driver, `Collection` for an operator partitioned several ways at once, a join's).
 *
 * @param coalescedFrom with adaptive execution, the partition count the shuffle wrote before its
 *                      read coalesced them into `partitions`
 */
final case class BoundaryPartitioning(
    kind: String,
    keys: Seq[String] = Nil,
    partitions: Option[Int] = None,
    ordering: Seq[String] = Nil,
    coalescedFrom: Option[Int] = None,
    members: Seq[BoundaryPartitioning] = Nil) {

  /** `HashKeys{keys=[k], partitions=4}`: what explain prints on an exchange. */
  def text: String = {
    val fields = Seq(
      if (keys.nonEmpty || kind == "HashKeys") Some(keys.mkString("keys=[", ", ", "]")) else None,
      if (ordering.nonEmpty) Some(ordering.mkString("ordering=[", ", ", "]")) else None,
      partitions.map(n => s"partitions=$n" + coalescedFrom.fold("")(m => s" (coalesced from $m)")))
      .flatten
    if (members.nonEmpty) members.map(_.text).mkString(" = ")
    else if (fields.isEmpty || kind == "Single") kind
    else fields.mkString(s"$kind{", ", ", "}")
  }
}

object BoundaryPartitioning {
  val Collected: BoundaryPartitioning = BoundaryPartitioning("Collected")

  def of(p: Partitioning): BoundaryPartitioning = p match {
    case HashPartitioning(exprs, n) => BoundaryPartitioning("HashKeys", exprs.map(sql), Some(n))
    case CoalescedHashPartitioning(HashPartitioning(exprs, n), parts) =>
      BoundaryPartitioning("HashKeys", exprs.map(sql), Some(parts.size), coalescedFrom = Some(n))
    case SinglePartition => BoundaryPartitioning("Single", partitions = Some(1))
    case RoundRobinPartitioning(n) => BoundaryPartitioning("RoundRobin", partitions = Some(n))
    case RangePartitioning(ordering, n) =>
      BoundaryPartitioning("Range", ordering = ordering.map(sql), partitions = Some(n))
    case BroadcastPartitioning(mode) => broadcast(mode, Nil)
    case k @ KeyGrouped(expressions) =>
      BoundaryPartitioning("KeyGrouped", expressions.map(sql), Some(k.numPartitions))
    case PartitioningCollection(all) =>
      BoundaryPartitioning("Collection", members = all.map(of), partitions = all.headOption.map(_.numPartitions))
    case other => BoundaryPartitioning("Unknown", partitions = Some(other.numPartitions))
  }

  /**
   * A broadcast's mode: the hashed relation's keys (bound to the broadcast rows' columns, named
   * here after them) or the rows as they are.
   */
  def broadcast(mode: BroadcastMode, output: Seq[Attribute]): BoundaryPartitioning = mode match {
    case HashedRelationBroadcastMode(keys, _) =>
      BoundaryPartitioning("Broadcast", keys.map(k => sql(k.transform {
        case b: BoundReference if b.ordinal < output.size => output(b.ordinal)
      })))
    case _ => BoundaryPartitioning("Broadcast")
  }

  private def sql(e: Expression): String = toPrettySQL(e)
}

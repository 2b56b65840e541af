package planguard.stages

import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, Expression}
import org.apache.spark.sql.catalyst.plans.physical._
import org.apache.spark.sql.catalyst.util.toPrettySQL
import org.apache.spark.sql.execution.joins.HashedRelationBroadcastMode

import planguard.shims.KeyGrouped
import planguard.stages.{PartitioningKind => Kind}

/**
 * How rows are spread at a stage boundary, in the terms of docs/stages.md:
 * `HashKeys{keys, partitions}`, `Single`, `RoundRobin`, `Range{ordering, partitions}`,
 * `Broadcast`, and the others of `PartitioningKind`.
 *
 * @param coalescedFrom with adaptive execution, the partition count the shuffle wrote before its
 *                      read coalesced them into `partitions`
 */
final case class BoundaryPartitioning(
    kind: Kind.PartitioningKind,
    keys: Seq[String] = Nil,
    partitions: Option[Int] = None,
    ordering: Seq[String] = Nil,
    coalescedFrom: Option[Int] = None,
    members: Seq[BoundaryPartitioning] = Nil) {

  /** `HashKeys{keys=[k], partitions=4}`: what explain prints on an exchange. */
  def text: String = {
    val fields = Seq(
      if (keys.nonEmpty || kind == Kind.HashKeys) Some(keys.mkString("keys=[", ", ", "]"))
      else None,
      if (ordering.nonEmpty) Some(ordering.mkString("ordering=[", ", ", "]")) else None,
      partitions.map(n => s"partitions=$n" + coalescedFrom.fold("")(m => s" (coalesced from $m)")))
      .flatten
    if (members.nonEmpty) members.map(_.text).mkString(" = ")
    else if (fields.isEmpty || kind == Kind.Single) kind.toString
    else fields.mkString(s"$kind{", ", ", "}")
  }
}

object BoundaryPartitioning {
  val CollectedResult: BoundaryPartitioning = BoundaryPartitioning(Kind.Collected)

  def of(p: Partitioning): BoundaryPartitioning = p match {
    case HashPartitioning(exprs, n) =>
      BoundaryPartitioning(Kind.HashKeys, exprs.map(sql), Some(n))
    case CoalescedHashPartitioning(HashPartitioning(exprs, n), parts) =>
      BoundaryPartitioning(Kind.HashKeys, exprs.map(sql), Some(parts.size),
        coalescedFrom = Some(n))
    case SinglePartition => BoundaryPartitioning(Kind.Single, partitions = Some(1))
    case RoundRobinPartitioning(n) =>
      BoundaryPartitioning(Kind.RoundRobin, partitions = Some(n))
    case RangePartitioning(ordering, n) =>
      BoundaryPartitioning(Kind.Range, ordering = ordering.map(sql), partitions = Some(n))
    case BroadcastPartitioning(mode) => broadcast(mode, Nil)
    case k @ KeyGrouped(expressions) =>
      BoundaryPartitioning(Kind.KeyGrouped, expressions.map(sql), Some(k.numPartitions))
    case PartitioningCollection(all) =>
      BoundaryPartitioning(Kind.Collection, members = all.map(of),
        partitions = all.headOption.map(_.numPartitions))
    case other => BoundaryPartitioning(Kind.Unknown, partitions = Some(other.numPartitions))
  }

  /**
   * A broadcast's mode: the hashed relation's keys (bound to the broadcast rows' columns, named
   * here after them) or the rows as they are.
   */
  def broadcast(mode: BroadcastMode, output: Seq[Attribute]): BoundaryPartitioning = mode match {
    case HashedRelationBroadcastMode(keys, _) =>
      BoundaryPartitioning(Kind.Broadcast, keys.map(k => sql(k.transform {
        case b: BoundReference if b.ordinal < output.size => output(b.ordinal)
      })))
    case _ => BoundaryPartitioning(Kind.Broadcast)
  }

  private def sql(e: Expression): String = toPrettySQL(e)
}

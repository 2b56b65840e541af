package planguard.shims

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.physical.{KeyedPartitioning, Partitioning}

/**
 * A storage-partitioned scan's partitioning (by its partition transforms), and its transforms.
 * Spark 4.2 calls it KeyedPartitioning; Spark 3.5 to 4.1 KeyGroupedPartitioning.
 */
object KeyGrouped {
  def unapply(p: Partitioning): Option[Seq[Expression]] = p match {
    case k: KeyedPartitioning => Some(k.expressions)
    case _ => None
  }
}

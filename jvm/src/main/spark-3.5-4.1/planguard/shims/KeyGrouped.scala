package planguard.shims

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.physical.{KeyGroupedPartitioning, Partitioning}

/**
 * A storage-partitioned scan's partitioning (by its partition transforms), and its transforms.
 * Spark 3.5 to 4.1 call it KeyGroupedPartitioning; Spark 4.2 replaced it by KeyedPartitioning.
 */
object KeyGrouped {
  def unapply(p: Partitioning): Option[Seq[Expression]] = p match {
    case k: KeyGroupedPartitioning => Some(k.expressions)
    case _ => None
  }
}

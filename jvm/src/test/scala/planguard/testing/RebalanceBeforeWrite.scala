package planguard.testing

import java.util.concurrent.atomic.AtomicInteger

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.expressions.{Ascending, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, RebalancePartitions, Sort}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand

/**
 * An honest rule that, like Apache Kyuubi's rebalance before writing, copies a file write with a
 * rewritten query: a rebalance of the query's rows, each partition sorted by its first column.
 * It rewrites the insert a CTAS or saveAsTable runs as well, after the CTAS was analyzed.
 */
object RebalanceBeforeWrite extends Rule[LogicalPlan] {
  /** How many writes it rewrote, for a test to see that it did. */
  val rewrites = new AtomicInteger

  override def apply(plan: LogicalPlan): LogicalPlan = plan match {
    case i: InsertIntoHadoopFsRelationCommand if i.query.resolved && !rebalanced(i.query) =>
      rewrites.incrementAndGet()
      val first = SortOrder(i.query.output.head, Ascending)
      i.copy(query = Sort(Seq(first), global = false, RebalancePartitions(Nil, i.query)))
    case other => other
  }

  private def rebalanced(query: LogicalPlan): Boolean = query match {
    case s: Sort => s.child.isInstanceOf[RebalancePartitions]
    case _ => false
  }
}

class RebalanceBeforeWriteExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectPostHocResolutionRule((_: SparkSession) => RebalanceBeforeWrite)
}

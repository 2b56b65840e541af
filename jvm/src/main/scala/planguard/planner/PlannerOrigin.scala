package planguard.planner

import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.exchange.Exchange

/**
 * Marks the exchanges planguard's planner emits. Spark's `ShuffleOrigin` is sealed, and the
 * exchanges keep ENSURE_REQUIREMENTS as their origin so that adaptive execution coalesces them and
 * splits skewed joins over them as it does over EnsureRequirements' own; the tag is what tells
 * them apart. Spark copies tags when it rebuilds a node (adaptive query stages included), so an
 * exchange without it was added by another rule: EnsureRequirements, usually.
 */
object PlannerOrigin {
  private val Tag = TreeNodeTag[String]("planguard.origin")
  val Name = "planguard planner"

  def mark[T <: Exchange](exchange: T): T = {
    exchange.setTagValue(Tag, Name)
    exchange
  }

  def isPlanners(exchange: SparkPlan): Boolean = exchange.getTagValue(Tag).contains(Name)
}

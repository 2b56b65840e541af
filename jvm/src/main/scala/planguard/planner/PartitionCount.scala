package planguard.planner

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.SQLExecution
import org.apache.spark.sql.internal.SQLConf

import planguard.query.AnalyzedPlans

/**
 * How many partitions the exchanges planguard's planner emits have: the query's
 * `PLANGUARD_PARTITIONS(n)` hint, else Spark's own count for a new shuffle
 * (spark.sql.shuffle.partitions, or with adaptive coalescing its initialPartitionNum), the one
 * EnsureRequirements would use.
 *
 * The hint is the query's, not an operator's: the optimizer rebuilds joins and aggregations, and
 * their tags with them, so the count is read from the query's analyzed plan (where the hint rule
 * tagged the root) when a planning run starts (`ReturnAnswer`), and holds for that run, on the
 * thread that plans it: the initial plan, each adaptive re-planning, each subquery of a running
 * query. The analyzed plan is the running SQL execution's, or outside one (explain) the one this
 * thread analyzed whose output the planned root has.
 */
object PartitionCount {
  private val Tag = TreeNodeTag[Int]("planguard.partitions")
  private val hinted = new ThreadLocal[Option[Int]] {
    override def initialValue(): Option[Int] = None
  }

  def current: Int = hinted.get.getOrElse(SQLConf.get.numShufflePartitions)

  /** A planning run of `root` starts on this thread. */
  def startPlanning(session: SparkSession, root: LogicalPlan): Unit =
    hinted.set(analyzedPlan(session, root).flatMap(firstHint))

  /**
   * The first count tagged in `plan`, each node's subqueries right after it (the order of
   * foreachWithSubqueries, which Spark 3.5 lacks).
   */
  private def firstHint(plan: LogicalPlan): Option[Int] = {
    var count = Option.empty[Int]
    plan.foreach { node =>
      count = count.orElse(node.getTagValue(Tag))
      if (count.isEmpty) node.subqueries.foreach(s => count = count.orElse(firstHint(s)))
    }
    count
  }

  private[planner] def hint(query: LogicalPlan, partitions: Int): Unit =
    query.setTagValue(Tag, partitions)

  private def analyzedPlan(session: SparkSession, root: LogicalPlan): Option[LogicalPlan] =
    Option(session.sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)) match {
      case Some(id) => Option(SQLExecution.getQueryExecution(id.toLong)).map(_.analyzed)
      case None => AnalyzedPlans.of(root, root.output).map(_._1)
    }
}

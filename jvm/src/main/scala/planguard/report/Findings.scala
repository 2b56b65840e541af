package planguard.report

import org.apache.spark.sql.catalyst.trees.{TreeNode, TreeNodeTag}

import planguard.contract.ViolationRecord

/**
 * The violations found in one query, kept on the query itself, so that its EXPLAIN can show
 * them (explain.PlanGuardExplain): a tag on the logical root the query's physical planning
 * started from, which every later step of the query reaches — the prepared plan, each adaptive
 * stage and re-planning — and which lives exactly as long as the query. No tag: the query was
 * never checked (planguard disabled, every invariant off); an empty one: checked, nothing found.
 * Written by the Reporter of each hook that checks the query.
 */
object Findings {
  private val Tag = TreeNodeTag[Vector[ViolationRecord]]("planguard.findings")

  /** The query whose root is `query` is checked: its findings exist, if none are kept yet. */
  private[report] def checked(query: TreeNode[_]): Unit = update(query)(identity)

  /**
   * Keeps `record` on the query whose root is `query`, unless it is kept already: adaptive
   * execution checks a query again at each re-planning.
   */
  private[report] def keep(query: TreeNode[_], record: ViolationRecord): Unit =
    update(query) { kept =>
      if (kept.exists(_.copy(plan = record.plan, time = record.time) == record)) kept
      else kept :+ record
    }

  /** What was found in the query whose root is `query`, oldest first; None: never checked. */
  def of(query: TreeNode[_]): Option[Seq[ViolationRecord]] =
    query.synchronized(query.getTagValue(Tag))

  /** One query's checks may run on several threads at once (its subqueries, its stages). */
  private def update(root: TreeNode[_])(
      change: Vector[ViolationRecord] => Vector[ViolationRecord]): Unit = root.synchronized {
    root.setTagValue(Tag, change(root.getTagValue(Tag).getOrElse(Vector.empty)))
  }
}

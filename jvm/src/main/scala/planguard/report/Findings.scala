package planguard.report

import org.apache.spark.sql.catalyst.trees.{TreeNode, TreeNodeTag}

import planguard.conf.Levels
import planguard.contract.{Invariant, Level}

/**
 * The violations found in one query, kept on the query itself, so that its EXPLAIN can show
 * them (explain.PlanGuardExplain): a tag on the logical root the query's physical planning
 * started from, which every later step of the query reaches — the prepared plan, each adaptive
 * stage and re-planning — and which lives exactly as long as the query. No tag: the query was
 * never checked (planguard disabled, every invariant off); an empty one: checked, nothing found.
 */
object Findings {
  private val Tag = TreeNodeTag[Vector[ViolationRecord]]("planguard.findings")

  /** The root whose checks run on this thread now, if they keep their findings. */
  private val current = new ThreadLocal[TreeNode[_]]

  /**
   * Runs one rule's `checks`, keeping on `query` every violation they record (Violations.report,
   * any level). Without a query, or with every invariant off, only runs them.
   */
  def keptOn(query: Option[TreeNode[_]], levels: Levels)(checks: => Unit): Unit = query match {
    case Some(root) if Invariant.all.exists(levels(_) != Level.Off) =>
      update(root)(identity)
      val outer = current.get
      current.set(root)
      try checks finally current.set(outer)
    case _ => checks
  }

  /**
   * Keeps `record` on the query whose checks run on this thread, if any, unless it is kept
   * already: adaptive execution checks a query again at each re-planning.
   */
  private[report] def keep(record: ViolationRecord): Unit =
    Option(current.get).foreach(update(_) { kept =>
      if (kept.exists(_.copy(plan = record.plan, time = record.time) == record)) kept
      else kept :+ record
    })

  /** What was found in the query whose root is `query`, oldest first; None: never checked. */
  def of(query: TreeNode[_]): Option[Seq[ViolationRecord]] =
    query.synchronized(query.getTagValue(Tag))

  /** One query's checks may run on several threads at once (its subqueries, its stages). */
  private def update(root: TreeNode[_])(
      change: Vector[ViolationRecord] => Vector[ViolationRecord]): Unit = root.synchronized {
    root.setTagValue(Tag, change(root.getTagValue(Tag).getOrElse(Vector.empty)))
  }
}

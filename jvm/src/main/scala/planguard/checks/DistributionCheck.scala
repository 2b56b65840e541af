package planguard.checks

import org.apache.spark.sql.catalyst.expressions.SortOrder
import org.apache.spark.sql.catalyst.plans.physical.{AllTuples, BroadcastDistribution,
  ClusteredDistribution, Distribution, OrderedDistribution, Partitioning,
  StatefulOpClusteredDistribution, UnspecifiedDistribution}
import org.apache.spark.sql.execution.SparkPlan

import planguard.contract.{Departure, PlanDeparture}

/**
 * DISTRIBUTION: every operator gets its input as it requires.
 * Each child's partitioning satisfies the operator's required child distribution, each child's
 * ordering its required child ordering, and the children it reads partition by partition (more
 * than one clustered requirement: joins, cogroups) are co-partitioned — the same number of
 * partitions, the same partitioning function, keys in corresponding positions, as Spark's
 * ShuffleSpec decides. EnsureRequirements establishes all three; a rule that runs after it can
 * break them, and the operator then returns wrong results without failing (a final aggregate over
 * unshuffled input returns a group once per partition).
 *
 * Read-only, like DataFusion's SanityCheckPlan: the deepest broken requirement is reported, with
 * the operator, the child, what is required and what the child has. Adaptive stages are leaves
 * that report their exchange's partitioning; skew joins require no distribution of their split
 * reads, and coalesced reads keep their hash partitioning with fewer partitions.
 */
object DistributionCheck {

  def apply(plan: SparkPlan): Departure = DeepestDeparture(plan)(requirements)

  /** One operator's requirements of its children. */
  def requirements(op: SparkPlan): Departure = {
    val operatorClass = OperatorClass.of(op)
    if (operatorClass.requiresNothing) PlanDeparture.None else requirementsOf(op, operatorClass)
  }

  private def requirementsOf(op: SparkPlan, operatorClass: OperatorClass): Departure = {
    val (required, requiredOrdering) = requiredOf(op, operatorClass)
    // Plain loops (see DeepestDeparture): this runs on every operator of every plan, most of
    // which require nothing.
    val children = op.children.iterator
    val distributions = required.iterator
    val orderings = requiredOrdering.iterator
    var i = 0
    var clustered = 0
    while (children.hasNext && distributions.hasNext && orderings.hasNext) {
      val child = children.next()
      val distribution = distributions.next()
      val ordering = orderings.next()
      // Nothing is required of most children: their partitioning is then never computed.
      if (distribution != UnspecifiedDistribution &&
          !child.outputPartitioning.satisfies(distribution)) {
        return unsatisfied(op, i, child, distribution)
      }
      if (ordering.nonEmpty && !SortOrder.orderingSatisfies(child.outputOrdering, ordering)) {
        return unsorted(op, i, child, ordering)
      }
      if (distribution.isInstanceOf[ClusteredDistribution]) clustered += 1
      i += 1
    }
    if (clustered > 1) coPartitioned(op, required) else PlanDeparture.None
  }

  /**
   * What an operator requires of its children: its own requirements, or, when it declares none
   * and stands in for the Spark operator it replaced, that operator's. A plugin that runs Spark's
   * operators natively converts a plan EnsureRequirements has already made right, and its
   * operators often declare no requirement (Comet's keep the operator they replaced as
   * `originalPlan` and declare none); yet each does the replaced operator's work and needs its
   * input as that one does: a native final aggregate over unshuffled input returns a group once
   * per partition, as Spark's does. The replaced operator's requirements name attributes, which
   * the replacement's children output as the replaced children did; they are read against the
   * replacement's own children, and only when it has as many.
   */
  private def requiredOf(op: SparkPlan, operatorClass: OperatorClass)
      : (Seq[Distribution], Seq[Seq[SortOrder]]) = {
    val own = (op.requiredChildDistribution, op.requiredChildOrdering)
    if (requiresAny(own._1, own._2)) own
    else {
      operatorClass.replaced(op).filter(_.children.size == op.children.size)
        .map(o => (o.requiredChildDistribution, o.requiredChildOrdering)).getOrElse(own)
    }
  }

  private def requiresAny(distributions: Seq[Distribution], orderings: Seq[Seq[SortOrder]])
      : Boolean = {
    val d = distributions.iterator
    val o = orderings.iterator
    var any = false
    while (!any && d.hasNext) any = d.next() != UnspecifiedDistribution
    while (!any && o.hasNext) any = o.next().nonEmpty
    any
  }

  /**
   * What an operator class can require of its children, looked up once per class.
   *
   * @param requiresNothing the class keeps SparkPlan's requirements, none of any child, and
   *                        replaces no Spark operator: most operators (scans, projections,
   *                        filters, unions). Their requirements are not built: SparkPlan builds
   *                        two lists as long as the children on every call, and a union of 300
   *                        sources is checked with 300 operators under it.
   * @param original the accessor of the Spark operator a plugin's operator replaced, its
   *                 `originalPlan`, if it keeps one
   */
  private final case class OperatorClass(requiresNothing: Boolean,
      original: Option[java.lang.reflect.Method]) {

    def replaced(op: SparkPlan): Option[SparkPlan] = original.flatMap { m =>
      try {
        m.invoke(op) match {
          case o: SparkPlan if !(o eq op) => Some(o)
          case _ => None
        }
      } catch { case _: java.lang.reflect.InvocationTargetException => None }
    }
  }

  /**
   * Kept in a map of its own, not a ClassValue: a ClassValue of planguard's on Spark's operator
   * classes pushed Scala's ClassTag cache (itself a ClassValue, asked for on every plan copy) off
   * its home slot in those classes' maps, and every later lookup probed the backup slots: 0.5 %
   * of planning time, in Spark's frames.
   */
  private object OperatorClass {
    private val known = new java.util.concurrent.ConcurrentHashMap[Class[_], OperatorClass]()

    private val describing: java.util.function.Function[Class[_], OperatorClass] = describe(_)

    def of(op: SparkPlan): OperatorClass = known.computeIfAbsent(op.getClass, describing)

    private def describe(c: Class[_]): OperatorClass = {
      val original =
        try {
          val m = c.getMethod("originalPlan")
          if (classOf[SparkPlan].isAssignableFrom(m.getReturnType)) Some(m) else None
        } catch { case _: NoSuchMethodException => None }
      def inherited(method: String) = c.getMethod(method).getDeclaringClass == classOf[SparkPlan]
      OperatorClass(original.isEmpty && inherited("requiredChildDistribution") &&
        inherited("requiredChildOrdering"), original)
    }
  }

  /** Children with a clustered requirement must be partitioned alike (Spark's ShuffleSpec). */
  private def coPartitioned(op: SparkPlan, distributions: Seq[Distribution]): Departure = {
    val clustered = op.children.zip(distributions).zipWithIndex.collect {
      case ((child, d: ClusteredDistribution), i) =>
        (i, child, child.outputPartitioning.createShuffleSpec(d))
    }
    val (first, firstChild, firstSpec) = clustered.head
    clustered.tail.collectFirst {
      case (i, child, spec) if !spec.isCompatibleWith(firstSpec) =>
        val (p, q) = (child.outputPartitioning, firstChild.outputPartitioning)
        val why =
          if (p.numPartitions != q.numPartitions) {
            s"child #$i has ${p.numPartitions} partitions, child #$first ${q.numPartitions}"
          } else if (p.getClass != q.getClass) {
            s"child #$i is partitioned by ${p.getClass.getSimpleName}, child #$first by " +
              s"${q.getClass.getSimpleName}: rows with equal keys go to different partitions"
          } else {
            s"the partitioning keys of child #$i and child #$first are not in corresponding " +
              "positions of the operator's keys: rows that match go to different partitions"
          }
        PlanDeparture(
          "children read together partitioned alike: the same number of partitions, the same " +
            "partitioning function, keys in corresponding positions",
          clustered.map { case (j, c, _) => s"child #$j (${c.nodeName}) ${partitioning(c)}" }
            .mkString("; "),
          s"${OperatorString(op)}: its children are read partition by partition",
          Seq(why))
    }.getOrElse(PlanDeparture.None)
  }

  private def unsatisfied(op: SparkPlan, i: Int, child: SparkPlan,
      distribution: Distribution): Departure = {
    val actual = child.outputPartitioning
    val count = distribution.requiredNumPartitions.filter(_ != actual.numPartitions)
      .map(n => s" (${actual.numPartitions} partitions, $n required)").getOrElse("")
    PlanDeparture(required(distribution), partitioning(child),
      s"${OperatorString(op)}: the distribution it requires of child #$i (${child.nodeName})",
      Seq(s"child #$i (${child.nodeName}) is partitioned as $actual, which does not satisfy " +
        s"${distribution.getClass.getSimpleName.stripSuffix("$")}$count"))
  }

  private def unsorted(op: SparkPlan, i: Int, child: SparkPlan,
      ordering: Seq[SortOrder]): Departure =
    PlanDeparture(s"each partition sorted by ${ordering.map(_.sql).mkString(", ")}",
      if (child.outputOrdering.isEmpty) "no ordering"
      else s"each partition sorted by ${child.outputOrdering.map(_.sql).mkString(", ")}",
      s"${OperatorString(op)}: the ordering it requires of child #$i (${child.nodeName})",
      Seq(s"child #$i (${child.nodeName}) is not sorted as ${op.nodeName} requires: a sort " +
        "below it is missing"))

  private def required(d: Distribution): String = d match {
    case AllTuples => "all rows in one partition (AllTuples)"
    case c: ClusteredDistribution =>
      val exact = if (c.requireAllClusterKeys) ", partitioned on exactly these keys" else ""
      val count = c.requiredNumPartitions.map(n => s", $n partitions").getOrElse("")
      s"rows with equal ${keys(c.clustering)} in one partition (ClusteredDistribution$exact$count)"
    case s: StatefulOpClusteredDistribution =>
      s"hash partitioning on ${keys(s.expressions)} into ${s._requiredNumPartitions} partitions " +
        "(StatefulOpClusteredDistribution)"
    case o: OrderedDistribution =>
      s"rows range-partitioned by ${o.ordering.map(_.sql).mkString(", ")} (OrderedDistribution)"
    case b: BroadcastDistribution => s"the rows broadcast (BroadcastDistribution, ${b.mode})"
    case other => other.toString
  }

  private def keys(expressions: Seq[org.apache.spark.sql.catalyst.expressions.Expression]) =
    expressions.mkString("[", ", ", "]")

  private def partitioning(child: SparkPlan): String = {
    val p: Partitioning = child.outputPartitioning
    s"$p (${p.numPartitions} partitions)"
  }
}

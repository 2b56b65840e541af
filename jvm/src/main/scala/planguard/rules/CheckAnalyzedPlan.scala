package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.trees.TreeNodeTag

import planguard.checks.{NamingCheck, PersistedColumns}
import planguard.conf.PlanGuardConf
import planguard.contract.{Invariant, Level, Phase}

/**
 * NAMING on each analyzed write command: at analysis, so that a failing write writes nothing.
 */
final case class CheckAnalyzedPlan(session: SparkSession) extends (LogicalPlan => Unit) {

  override def apply(plan: LogicalPlan): Unit = Guarded(session, "CheckAnalyzedPlan") {
    // Every query is analyzed: the place to reject an unknown spark.planguard.* key once.
    val conf = session.sessionState.conf
    PlanGuardConf.validateAll(conf)
    if (!ApplySpecNames.supported && PlanGuardConf.specNaming(conf)) {
      ApplySpecNames.warnUnsupported()
    }
    val writes = PersistedColumns(plan)
      .filterNot { case (query, names) => CheckAnalyzedPlan.judged(query, names) }
    if (writes.nonEmpty) {
      val reporter = CheckContext(session, None, None).reporter
      writes.foreach { case (query, names) =>
        val found = NamingCheck(plan, query, names)
        // A stored relation qualifier is never what a user meant: it fails at the mode, not at
        // warn.
        reporter.report(Invariant.Naming, Phase.Analysis, plan, ceiling = Some(Level.Fail))(
          found.qualified)(_ => None)
        reporter.report(Invariant.Naming, Phase.Analysis, plan)(found.generated)(_ => None)
        // A write that runs another write of the same query (CTAS and saveAsTable write it
        // through an insert of their own) is checked once; a write that failed, every time.
        query.setTagValue(CheckAnalyzedPlan.Passed, names)
      }
    }
  }
}

object CheckAnalyzedPlan {
  // On the query of a write that passed: the names it stores.
  private val Passed = TreeNodeTag[Seq[String]]("planguard.namingPassed")

  /**
   * True when `query` stores, under `names`, the very columns of a write that passed: its query,
   * or that query under operators that hand its columns on — the insert a CTAS or saveAsTable
   * runs, whose query another extension may have rewritten on the way (Kyuubi's rebalance before
   * writing puts a RebalancePartitions, and a Sort, over it).
   */
  private def judged(query: LogicalPlan, names: Seq[String]): Boolean = {
    val columns = query.output.map(_.exprId)
    query.find(p => p.getTagValue(Passed).contains(names) && p.output.map(_.exprId) == columns)
      .isDefined
  }
}

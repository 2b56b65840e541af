package planguard.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.QueryStageExec

import planguard.attribution.CheckOnly
import planguard.checks.Outputs
import planguard.contract.Phase
import planguard.query.PlannedQuery
import planguard.report.RecordOnly

/**
 * Adaptive execution plans a query again after each stage: every re-optimized logical plan must
 * keep the analyzed one's schema and back what it declares (Checks.ofOptimization), every
 * re-planned physical plan the planned schema (Checks.ofPreparation); every re-planned plan, a
 * subquery's too, must give each operator its input as it requires (DISTRIBUTION) and keep each
 * operator's contract (OPERATOR_CONTRACT). Spark runs query-stage preparation rules on the initial
 * plan and on each whole re-planned plan. Returns the plan unchanged.
 *
 * The initial plan never runs as such: adaptive execution cuts stages from it, each checked as it
 * is created (CheckPreparedPlan), and plans the rest again after each stage (here) up to the
 * final stage (CheckPreparedPlan). So its operators' contracts are checked there, each before it
 * runs, and not here as well, except in a statement that is planned and never run (`planguard
 * check`), whose initial plan is all there is.
 */
final case class CheckAdaptivePlan(session: SparkSession) extends Rule[SparkPlan]
  with CheckOnly {

  override def apply(plan: SparkPlan): SparkPlan = {
    Guarded(session, ruleName) {
      val owner = PlannedQuery.owner(plan, session)
      val outputs = new Outputs
      val query = PlannedQuery.whole(plan, owner, outputs, adaptive = true)
      val contracts = RecordOnly.now || plan.exists(_.isInstanceOf[QueryStageExec])
      // Nothing to check in the initial plan of a query planned outside a SQL execution
      // (explain, df.queryExecution, df.rdd): it is checked when it runs, inside its own.
      if (query.isDefined || contracts) {
        val context = CheckContext(session, owner, PlannedQuery.findingsRoot(plan, owner),
          outputs)
        query.foreach { qe =>
          PlannedQuery.rootLink(plan).filterNot(l => qe.sparkPlan.logicalLink.exists(_ eq l))
            .foreach { reoptimized =>
              val optimization = Optimization.adaptive(qe, reoptimized, context)
              Checks.ofOptimization.foreach(_(optimization, context))
            }
          QueryChecks.ofWholePlan(context, qe, plan, Phase.AdaptiveReoptimization)
        }
        if (contracts) CheckPlanContracts(context, plan, Phase.AdaptiveReoptimization)
      }
    }
    plan
  }
}

package planguard.attribution

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ApplyColumnarRulesAndInsertTransitions, SparkPlan}
import org.apache.spark.sql.execution.planguard.PreparationRules

import planguard.errors.Foreign
import planguard.shims.ExtensionPoints

/**
 * Names the physical rule that broke a contract by replaying preparation rule by rule on the
 * planned plan and checking after each one: Spark's preparation rules with the adaptive
 * post-planner-strategy and query-stage rules and the columnar rules extensions inject in their
 * places. Runs only after a violation was found. A rule that throws in the replay (errors.Foreign:
 * it ran in the query without throwing, or the query would have failed there) leaves the plan as
 * it was and is not named.
 */
object PreparationReplay {

  /** "RuleName (kind)" of the first rule after which `broken` holds, where replay finds it. */
  def firstBreakingRule(session: SparkSession, planned: SparkPlan)(
      broken: SparkPlan => Boolean): Option[String] =
    steps(session, planned).collectFirst { case (plan, Some(rule)) if broken(plan) => rule }

  /**
   * "RuleName (kind)" of the last rule after which `broken` starts to hold: for a contract that
   * preparation itself establishes (EnsureRequirements adds the exchanges and sorts that
   * DISTRIBUTION asks for), the rule that broke it again.
   */
  def lastBreakingRule(session: SparkSession, planned: SparkPlan)(
      broken: SparkPlan => Boolean): Option[String] =
    steps(session, planned).map { case (plan, rule) => (broken(plan), rule) }
      .sliding(2).foldLeft(Option.empty[String]) {
        case (_, Seq((false, _), (true, rule))) => rule
        case (culprit, _) => culprit
      }

  /** Each plan the replay passes through, with the rule that made it. */
  private def steps(session: SparkSession, planned: SparkPlan)
      : Iterator[(SparkPlan, Option[String])] =
    rules(session).scanLeft(planned -> Option.empty[String]) { case ((plan, _), (rule, kind)) =>
      // Preparing subqueries runs planguard's own rules again: they must not check then.
      val next = try Replaying(Foreign(rule(plan))) catch { case Foreign(_) => plan }
      next -> Some(s"${rule.ruleName} ($kind)")
    }

  /**
   * In the order Spark runs them: adaptive execution runs the post-planner-strategy rules, then
   * the query-stage rules, where the non-adaptive path applies the columnar rules, before the
   * transitions and codegen; without adaptive execution, they never run.
   */
  private def rules(session: SparkSession): Iterator[(Rule[SparkPlan], String)] = {
    val columnar =
      session.sessionState.columnarRules.filterNot(_.isInstanceOf[CheckOnly])
    val adaptive = session.sessionState.adaptiveRulesHolder
    val adaptiveRules =
      if (!session.sessionState.conf.adaptiveExecutionEnabled) Nil
      else ExtensionPoints.queryPostPlannerStrategyRules(adaptive)
        .map(_ -> "adaptive post-planner-strategy rule") ++
        adaptive.queryStagePrepRules.filterNot(_.isInstanceOf[CheckOnly])
        .map(_ -> "adaptive query-stage preparation rule") ++
        adaptive.queryStageOptimizerRules.map(_ -> "adaptive query-stage optimizer rule")
    PreparationRules.nonAdaptive(session).iterator.flatMap {
      case _: ApplyColumnarRulesAndInsertTransitions =>
        adaptiveRules ++
          columnar.map(_.preColumnarTransitions -> "columnar rule, before transitions") ++
          Seq(ApplyColumnarRulesAndInsertTransitions(Nil, outputsColumnar = false) ->
            "preparation rule") ++
          // Spark applies the halves after the transitions in reverse order.
          columnar.reverse.map(_.postColumnarTransitions -> "columnar rule, after transitions")
      case rule => Seq(rule -> "preparation rule")
    }
  }
}

package planguard.attribution

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.{Rule, RuleExecutor}
import org.apache.spark.sql.planguard.CachedData

import planguard.checks.MicroBatchV1Write
import planguard.errors.{Foreign, InvariantViolation}

/**
 * Names the rule that broke a contract between the analyzed and the optimized plan by replaying,
 * rule by rule, what Spark runs between them — the plan normalization rules extensions inject,
 * the session's cached queries put in place, then the optimizer's batches — and checking after
 * each one. Runs only after a violation was
 * found, so the happy path pays nothing. What a replayed rule (Spark's, another extension's) or
 * Spark's cache lookup throws is a call out's (errors.Foreign): the replay names no rule then, and
 * the violation is reported without one; what planguard's own steps throw is planguard's bug.
 */
object OptimizerReplay {

  /**
   * "RuleName (plan normalization rule)" or "RuleName (batch Name)" of the first rule after which
   * `broken` holds, replayed from `analyzed`, where replay finds it.
   */
  def firstBreakingRule(session: SparkSession, analyzed: LogicalPlan)(
      broken: LogicalPlan => Boolean): Option[String] =
    try {
      var plan = analyzed.clone()
      val normalization = session.sessionState.planNormalizationRules
        .filterNot(_.isInstanceOf[CheckOnly])
        .find { rule => plan = Foreign(rule(plan)); broken(plan) }
      normalization.map(rule => s"${rule.ruleName} (${InvariantViolation.NormalizationRule})")
        .orElse(replay(session.sessionState.optimizer,
          MicroBatchV1Write.optimizerInput(Foreign(CachedData.use(session, plan))), broken))
    } catch { case Foreign(_) => None }

  /**
   * "RuleName (kind)" of the first of `rules` that breaks the contract when applied alone to
   * `start`: the adaptive runtime rules extensions inject, which re-optimize the optimized plan.
   */
  def firstBreakingOf(rules: Seq[Rule[LogicalPlan]], start: LogicalPlan, kind: String)(
      broken: LogicalPlan => Boolean): Option[String] = rules.collectFirst {
    case rule if (try broken(Foreign(rule(start))) catch { case Foreign(_) => false }) =>
      s"${rule.ruleName} ($kind)"
  }

  private def replay(optimizer: RuleExecutor[LogicalPlan], start: LogicalPlan,
      broken: LogicalPlan => Boolean): Option[String] = {
    // RuleExecutor.batches is protected; its batches are the optimizer's own, in order.
    val batches = call(optimizer, "batches").asInstanceOf[Seq[AnyRef]]
    var plan = start
    var culprit = Option.empty[String]
    val remaining = batches.iterator
    while (culprit.isEmpty && remaining.hasNext) {
      val batch = remaining.next()
      val name = call(batch, "name").asInstanceOf[String]
      val maxIterations = call(call(batch, "strategy"), "maxIterations").asInstanceOf[Int]
      val rules = call(batch, "rules").asInstanceOf[Seq[Rule[LogicalPlan]]]
      var iteration = 0
      var changed = true
      while (culprit.isEmpty && changed && iteration < maxIterations) {
        val before = plan
        val batchRules = rules.iterator
        while (culprit.isEmpty && batchRules.hasNext) {
          val rule = batchRules.next()
          plan = Foreign(rule(plan))
          if (broken(plan)) culprit = Some(s"${rule.ruleName} (batch $name)")
        }
        changed = !before.fastEquals(plan)
        iteration += 1
      }
    }
    culprit
  }

  private def call(target: AnyRef, method: String): AnyRef = {
    val m = target.getClass.getMethod(method)
    m.setAccessible(true)
    m.invoke(target)
  }
}

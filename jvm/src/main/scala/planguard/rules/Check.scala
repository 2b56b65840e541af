package planguard.rules

import org.apache.spark.sql.catalyst.trees.TreeNode

import planguard.contract.{Departure, Invariant}

/**
 * One check of an invariant, declared once (Checks): on what a hook has at hand (`S`, one of the
 * Subjects), the phase it is reported in, the plan it reports, the departure it finds, and, only
 * once one is found, the rule that broke it. Every hook runs its checks through `apply`, with the
 * context it built once (CheckContext).
 */
private[rules] final class Check[S](val invariant: Invariant, phase: S => String,
    plan: S => TreeNode[_], departure: (S, CheckContext) => Departure,
    culprit: (S, CheckContext, Departure) => Option[String]) {

  def apply(subject: S, context: CheckContext): Unit =
    context.reporter.report(invariant, phase(subject), plan(subject))(
      departure(subject, context))(culprit(subject, context, _))
}

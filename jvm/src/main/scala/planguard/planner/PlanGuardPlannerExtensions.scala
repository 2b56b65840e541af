package planguard.planner

import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.slf4j.LoggerFactory

import planguard.AppliedOnce
import planguard.conf.PlanGuardConf
import planguard.install.{BuiltFor, ExtensionClasses}
import planguard.planner.eager.EagerAggregation
import planguard.shims.ExtensionPoints

/**
 * Installs planguard's planner (docs/planner.md), listed beside the checks: `spark.sql.extensions=
 * planguard.PlanGuardExtensions,planguard.planner.PlanGuardPlannerExtensions`.
 * It is opt-in because it changes the physical plans Spark makes; once listed, it plans while
 * spark.planguard.planner.enabled is true (the default), so a session can turn it off.
 */
class PlanGuardPlannerExtensions extends SparkSessionExtensionsProvider {

  override def apply(extensions: SparkSessionExtensions): Unit = {
    // Only on the line the jar was built for, not on a newer one (the second argument): the
    // planner builds Spark's physical operators, whose constructors change between lines (4.3's
    // ShuffleExchangeExec gained a parameter).
    if (PlanGuardPlannerExtensions.once.first(extensions) &&
        BuiltFor.installs(ExtensionClasses.PLANNER, false)) {
      // Its keys (planner.enabled) checked where they are set, as PlanGuardExtensions does.
      PlanGuardConf.register()
      // Spark drops hints it does not know: PLANGUARD_PARTITIONS must be taken before that (the
      // Hints batch; on 3.5, Resolution) and carried on the query's joins and aggregations to the
      // planner.
      ExtensionPoints.injectHintRule(extensions, session => PartitionsHint(session))
      // Eager aggregation rewrites the optimized plan (pre-CBO, where statistics are known and
      // the operator optimizations are done); off unless planner.eagerAggregation says.
      extensions.injectPreCBORule(session => EagerAggregation(session))
      // Injected strategies come before Spark's own, at initial planning and at every adaptive
      // re-planning: where the planner plans aggregations and joins with their exchanges; it
      // returns nothing, leaving Spark's strategies to plan, otherwise. Once adaptive execution
      // has taken a plan, the planner's exchanges must look like EnsureRequirements' to it: no
      // logical link (AdaptiveLinks says why). A Spark without that hook (3.5.0) gets no planner.
      if (ExtensionPoints.injectQueryPostPlannerStrategyRule(extensions, _ => AdaptiveLinks)) {
        extensions.injectPlannerStrategy(session => PlanGuardPlanner(session))
      } else {
        LoggerFactory.getLogger("planguard").warn("planguard's planner needs Spark 3.5.1 or " +
          "later (query post-planner-strategy rules): PlanGuardPlannerExtensions installs " +
          "nothing on this Spark; Spark's own strategies plan every query.")
      }
    }
  }
}

object PlanGuardPlannerExtensions {
  private val once = new AppliedOnce
}

package planguard

import java.util.{Collections, WeakHashMap}

import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.slf4j.LoggerFactory

import planguard.naming.{ApplySpecNames, GeneratedNames}
import planguard.planner.{AdaptiveLinks, PartitionsHint, PlanGuardPlanner}
import planguard.rules.{CheckAdaptivePlan, CheckAnalyzedPlan, PlanGuardColumnarRule, RememberAnalyzedPlan}
import planguard.shims.ExtensionPoints

/**
 * Installs planguard: `spark.sql.extensions=planguard.PlanGuardExtensions`. Applying it more than
 * once to one session's extensions (listed twice, or listed and self-registered through
 * `META-INF/services`) installs it once.
 */
class PlanGuardExtensions extends SparkSessionExtensionsProvider {

  override def apply(extensions: SparkSessionExtensions): Unit = {
    if (PlanGuardExtensions.firstApplication(extensions)) {
      // The Hints batch runs before Resolution: the one place to see every unaliased expression
      // before Spark names it, and so to tell its generated names from the user's (NAMING).
      // Spark 3.5 has no such place: there, only the names Spark marks itself are known as
      // generated (GeneratedNames), and naming=spec is not available (ApplySpecNames.supported).
      if (ExtensionPoints.injectBeforeResolution(extensions, GeneratedNames.Mark(_))) {
        // The Resolution batch sees the resolved aliases before Spark's CleanupAliases drops
        // their tags: remember them; and naming=spec renames them there, before anything copies
        // their names (stars, CTE references, CTAS commands).
        extensions.injectResolutionRule(session => GeneratedNames.Remember(session))
        extensions.injectResolutionRule(session => ApplySpecNames(session))
      }
      // Spark drops hints it does not know: PLANGUARD_PARTITIONS must be taken before that (the
      // Hints batch; on 3.5, Resolution) and carried on the query's joins and aggregations to
      // planguard's planner.
      ExtensionPoints.injectHintRule(extensions, session => PartitionsHint(session))
      // Check rules run once on each query's final analyzed plan (NAMING).
      extensions.injectCheckRule(session => CheckAnalyzedPlan(session))
      // Normalisation sees the analyzed plan of every QueryExecution (queries, the queries of
      // write commands, cached plans) just before it becomes the optimizer's input.
      extensions.injectPlanNormalizationRule { session =>
        PlanGuard.register(session)
        RememberAnalyzedPlan(session)
      }
      // The columnar hook after the transitions runs on both the adaptive and the non-adaptive
      // path, on the prepared plan, before anything executes: the place to check the
      // optimizer's, the planner's and the preparation's contracts and to stop a query. Placed
      // to run after every other extension's columnar rules, whatever the extensions' order.
      ColumnarChecksLast.inject(extensions, session => new PlanGuardColumnarRule(session))
      // Adaptive execution runs query-stage preparation rules on each whole re-planned plan.
      extensions.injectQueryStagePrepRule(session => CheckAdaptivePlan(session))
      // Injected strategies come before Spark's own, at initial planning and at every adaptive
      // re-planning: where planguard's planner (off by default) plans aggregations and joins
      // with their exchanges; it returns nothing, leaving Spark's strategies to plan, otherwise.
      // Once adaptive execution has taken a plan, the planner's exchanges must look like
      // EnsureRequirements' to it: no logical link (AdaptiveLinks says why). A Spark without
      // that hook (3.5.0) gets no planner.
      if (ExtensionPoints.injectQueryPostPlannerStrategyRule(extensions, _ => AdaptiveLinks)) {
        extensions.injectPlannerStrategy(session => PlanGuardPlanner(session))
      } else {
        LoggerFactory.getLogger("planguard").warn("planguard's planner needs Spark 3.5.1 or " +
          "later (query post-planner-strategy rules): spark.planguard.planner.enabled has no " +
          "effect on this Spark.")
      }
    }
  }
}

object PlanGuardExtensions {
  private val applied =
    Collections.synchronizedSet(Collections.newSetFromMap(
      new WeakHashMap[SparkSessionExtensions, java.lang.Boolean]))

  private def firstApplication(extensions: SparkSessionExtensions): Boolean =
    applied.add(extensions)
}

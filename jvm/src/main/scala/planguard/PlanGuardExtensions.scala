package planguard

import java.util.{Collections, WeakHashMap}

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions, SparkSessionExtensionsProvider}

import planguard.naming.{ApplySpecNames, GeneratedNames}
import planguard.planner.{AdaptiveLinks, PartitionsHint, PlanGuardPlanner}
import planguard.rules.{CheckAdaptivePlan, CheckAnalyzedPlan, PlanGuardColumnarRule, RememberAnalyzedPlan}

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
      extensions.injectHintResolutionRule(session => GeneratedNames.Mark(session))
      // Spark drops hints it does not know: PLANGUARD_PARTITIONS must be taken there, in the
      // Hints batch, and carried on the query's joins and aggregations to planguard's planner.
      extensions.injectHintResolutionRule(session => PartitionsHint(session))
      // The Resolution batch sees the resolved aliases before Spark's CleanupAliases drops their
      // tags: remember them; and naming=spec renames them there, before anything copies their
      // names (stars, CTE references, CTAS commands).
      extensions.injectResolutionRule(session => GeneratedNames.Remember(session))
      extensions.injectResolutionRule(session => ApplySpecNames(session))
      // Check rules run once on each query's final analyzed plan (UNIQUE_FIELD, NAMING).
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
      extensions.injectPlannerStrategy(session => PlanGuardPlanner(session))
      // Once adaptive execution has taken a plan, the planner's exchanges must look like
      // EnsureRequirements' to it: no logical link (AdaptiveLinks says why).
      extensions.injectQueryPostPlannerStrategyRule(_ => AdaptiveLinks)
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

package planguard

import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.apache.spark.sql.planguard.ui.LiveUi

import planguard.conf.PlanGuardConf
import planguard.install.{BuiltFor, ExtensionClasses}
import planguard.report.{GuardedSessions, ViolationsFunction}
import planguard.rules.{ApplySpecNames, CheckAdaptivePlan, CheckAnalyzedPlan, MarkGeneratedNames,
  PlanGuardColumnarRule, RememberAnalyzedPlan, RememberGeneratedNames}
import planguard.shims.ExtensionPoints

/**
 * Installs planguard's checks: `spark.sql.extensions=planguard.PlanGuardExtensions`. They read
 * plans and never change what a query computes; SQL's `planguard_violations()` reads their
 * report. planguard's planner, which does change plans, is
 * a separate extension a user lists to get it (planner.PlanGuardPlannerExtensions). Applied more
 * than once to one session's extensions, it installs its rules once (AppliedOnce). On a Spark
 * line the jar was not built for, it installs nothing (BuiltFor); on a line newer than every line
 * planguard builds for, the newest line's checks install, with a warning.
 */
class PlanGuardExtensions extends SparkSessionExtensionsProvider {

  override def apply(extensions: SparkSessionExtensions): Unit = {
    // On a Spark line the jar was not built for, nothing (BuiltFor logs the one line saying so);
    // on a line newer than every line, the newest line's checks (the second argument).
    if (PlanGuardExtensions.once.first(extensions) &&
        BuiltFor.installs(ExtensionClasses.CHECKS, true)) {
      // Before any session of these extensions is built: planguard's keys as Spark conf entries,
      // so that SET, spark.conf.set and the session's initial confs refuse a bad value.
      PlanGuardConf.register()
      // The Hints batch runs before Resolution: the one place to see every unaliased expression
      // before Spark names it, and so to tell its generated names from the user's (NAMING).
      // Spark 3.5 has no such place: there, only the names Spark marks itself are known as
      // generated (GeneratedNames), and naming=spec is not available (ApplySpecNames.supported).
      if (ExtensionPoints.injectBeforeResolution(extensions, MarkGeneratedNames(_))) {
        // The Resolution batch sees the resolved aliases before Spark's CleanupAliases drops
        // their tags: remember them; and naming=spec renames them there, before anything copies
        // their names (stars, CTE references, CTAS commands).
        extensions.injectResolutionRule(session => RememberGeneratedNames(session))
        extensions.injectResolutionRule(session => ApplySpecNames(session))
      }
      // Check rules run once on each query's final analyzed plan (NAMING).
      extensions.injectCheckRule(session => CheckAnalyzedPlan(session))
      // Normalisation sees the analyzed plan of every QueryExecution (queries, the queries of
      // write commands, cached plans) just before it becomes the optimizer's input. Placed to
      // run before every other extension's normalization rules, whatever the extensions' order.
      InjectedFirst.planNormalization(extensions, { session =>
        GuardedSessions.register(session)
        // The UI's planguard tab, once per SparkContext (when its UI is on): the builders run
        // when a session's state is built, before any of its queries can break an invariant.
        LiveUi.attach(session.sparkContext)
        RememberAnalyzedPlan(session)
      })
      // The columnar hook after the transitions runs on both the adaptive and the non-adaptive
      // path, on the prepared plan, before anything executes: the place to check the
      // optimizer's, the planner's and the preparation's contracts and to stop a query. Placed
      // to run after every other extension's columnar rules, whatever the extensions' order.
      InjectedFirst.columnar(extensions, session => new PlanGuardColumnarRule(session))
      // Adaptive execution runs query-stage preparation rules on each whole re-planned plan.
      extensions.injectQueryStagePrepRule(session => CheckAdaptivePlan(session))
      // A table-valued function, SELECT * FROM planguard_violations(): the session's report as
      // rows, for SQL, JDBC, notebooks and Spark Connect clients, which have no py4j to call.
      extensions.injectTableFunction(ViolationsFunction.description)
    }
  }
}

object PlanGuardExtensions {
  private val once = new AppliedOnce
}

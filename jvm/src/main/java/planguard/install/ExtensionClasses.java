package planguard.install;

/**
 * The class names a user lists in spark.sql.extensions, for what reads or logs them without
 * loading the extensions: BuiltFor's warning, the history server's tab (whether an application
 * listed planguard's checks). They never change: sessions, scripts and Python
 * (planguard.EXTENSION_CLASS) name them.
 */
public final class ExtensionClasses {

  /** planguard's checks. */
  public static final String CHECKS = "planguard.PlanGuardExtensions";
  /** planguard's opt-in planner. */
  public static final String PLANNER = "planguard.planner.PlanGuardPlannerExtensions";

  private ExtensionClasses() {}
}

package planguard

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.ColumnarRule
import org.slf4j.LoggerFactory

/**
 * Injects two of planguard's rules ahead of every other extension's, whatever order
 * spark.sql.extensions lists the extensions in, so that they see the plans they must see.
 * SparkSessionExtensions has no public way to inject first, so planguard puts its builder at the
 * head of Spark's list; where that list cannot be reached (another Spark), it injects as usual
 * and says once, when the session starts, how to get the same effect: list planguard first.
 */
private[planguard] object InjectedFirst {
  private val log = LoggerFactory.getLogger("planguard")

  /**
   * The columnar rule whose half after the transitions checks the prepared plan. Spark applies
   * those halves in reverse order of injection (ApplyColumnarRulesAndInsertTransitions): the rule
   * injected first is the last to rewrite the plan. An extension listed before planguard (Comet,
   * Gluten, RAPIDS, Delta) would otherwise rewrite the plan after planguard had checked it.
   */
  def columnar(extensions: SparkSessionExtensions, builder: SparkSession => ColumnarRule): Unit =
    prepend(extensions, "columnarRuleBuilders", builder)(extensions.injectColumnar(builder),
      "after the columnar rules", "that it checks the plan those rules produce")

  /**
   * The normalization rule that remembers each analyzed root: Spark runs normalization rules in
   * order of injection, and one of an extension listed before planguard would otherwise change
   * the analyzed plan before planguard remembered it, so that a plan prepared outside a SQL
   * execution (explain, cache, df.rdd) would be compared with the changed plan.
   */
  def planNormalization(extensions: SparkSessionExtensions,
      builder: SparkSession => Rule[LogicalPlan]): Unit =
    prepend(extensions, "planNormalizationRules", builder)(
      extensions.injectPlanNormalizationRule(builder), "before the plan normalization rules",
      "that it sees the analyzed plan before those rules change it")

  private def prepend[B](extensions: SparkSessionExtensions, field: String, builder: B)(
      inject: => Unit, where: String, why: String): Unit =
    try builders[B](extensions, field).prepend(builder) catch {
      case NonFatal(e) =>
        inject
        log.warn(s"planguard could not place its checks $where of extensions listed before it " +
          s"in spark.sql.extensions (${e.getClass.getSimpleName}): list " +
          s"planguard.PlanGuardExtensions first there, so $why.")
    }

  private def builders[B](extensions: SparkSessionExtensions, name: String): mutable.Buffer[B] = {
    val field = classOf[SparkSessionExtensions].getDeclaredField(name)
    field.setAccessible(true)
    field.get(extensions).asInstanceOf[mutable.Buffer[B]]
  }
}

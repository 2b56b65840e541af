package planguard

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.execution.ColumnarRule
import org.slf4j.LoggerFactory

/**
 * Places planguard's columnar rule so that its checks see the plan that runs, whatever order
 * spark.sql.extensions lists the extensions in. Spark applies the columnar rules' halves after
 * the transitions in reverse order of injection (ApplyColumnarRulesAndInsertTransitions): the
 * rule injected first is the last to rewrite the plan. An extension listed before planguard
 * (Comet, Gluten, RAPIDS, Delta) would otherwise rewrite the plan after planguard had checked it.
 * SparkSessionExtensions has no public way to inject first, so planguard puts its builder at the
 * head of Spark's list; where that list cannot be reached (another Spark), it injects as usual
 * and says once, when the session starts, how to get the same effect.
 */
private[planguard] object ColumnarChecksLast {
  private val log = LoggerFactory.getLogger("planguard")
  private type Builder = SparkSession => ColumnarRule

  def inject(extensions: SparkSessionExtensions, builder: Builder): Unit =
    try builders(extensions).prepend(builder) catch {
      case NonFatal(e) =>
        extensions.injectColumnar(builder)
        log.warn("planguard could not place its checks after the columnar rules of extensions " +
          s"listed before it in spark.sql.extensions (${e.getClass.getSimpleName}): list " +
          "planguard.PlanGuardExtensions first there, so that it checks the plan those rules " +
          "produce.")
    }

  private def builders(extensions: SparkSessionExtensions): mutable.Buffer[Builder] = {
    val field = classOf[SparkSessionExtensions].getDeclaredField("columnarRuleBuilders")
    field.setAccessible(true)
    field.get(extensions).asInstanceOf[mutable.Buffer[Builder]]
  }
}

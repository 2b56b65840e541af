package planguard.demo

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf

/**
 * For `planguard demo` only, in a jar of its own: an optimizer rule that, while the session conf
 * `planguard.demo.breakRootColumns` is true, reverses the columns of the query's root
 * projection — the kind of bug a third-party optimizer rule can ship. Never install it outside
 * the demo.
 */
class BrokenRuleDemoExtension extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit =
    extensions.injectOptimizerRule(_ => ReverseRootColumns)
}

object ReverseRootColumns extends Rule[LogicalPlan] {
  val Switch = "planguard.demo.breakRootColumns"

  override def apply(plan: LogicalPlan): LogicalPlan = plan match {
    case p @ Project(list, _) if SQLConf.get.getConfString(Switch, "false") == "true" &&
        list.size >= 2 && list != list.sortBy(_.name).reverse =>
      p.copy(projectList = list.sortBy(_.name).reverse)
    case other => other
  }
}

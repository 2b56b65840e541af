package planguard.rules

import java.util.Locale
import java.util.concurrent.atomic.AtomicBoolean

import scala.collection.mutable

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference, ExprId}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.slf4j.LoggerFactory

import planguard.conf.PlanGuardConf
import planguard.naming.{GeneratedNames, SpecName}
import planguard.shims.ExtensionPoints

/**
 * `spark.planguard.naming=spec`: gives the columns Spark named after their expressions, and only
 * those (GeneratedNames), the names of naming=spec (SpecName, docs/naming.md). A name already
 * taken in the node's output
 * gets the first free suffix `_2`, `_3`, ..., left to right, so that no two columns a node makes
 * share a name; user-written and inherited names keep theirs. Every exprId and every node stays;
 * references to a renamed column are renamed with it.
 *
 * A Resolution rule, so that it runs as soon as Spark has resolved the aliases, before the names
 * are copied: by a star or a CTE reference above, or by the post-hoc rules that turn a CTAS into
 * a command holding its column names. Analyzed subtrees (a DataFrame's, built on) keep the names
 * they were analyzed with. Idempotent: the Resolution batch runs to a fixed point.
 */
final case class ApplySpecNames(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    var result = plan
    Guarded(session, ruleName) {
      if (PlanGuardConf.specNaming(session.sessionState.conf)) result = rename(plan)
    }
    result
  }

  private def rename(plan: LogicalPlan): LogicalPlan = {
    val renamed = mutable.HashMap.empty[ExprId, String]
    plan.resolveOperatorsUp { case node =>
      val updated = if (renamed.isEmpty) node else node.transformExpressions {
        case a: AttributeReference if renamed.get(a.exprId).exists(_ != a.name) =>
          a.withName(renamed(a.exprId))
      }
      val changed = if (!updated.resolved) Map.empty[ExprId, String] else {
        specNames(updated).collect { case (a, name) if a.name != name => a.exprId -> name }.toMap
      }
      renamed ++= changed
      if (changed.isEmpty) updated else updated.mapExpressions {
        case a: Alias if changed.contains(a.exprId) =>
          GeneratedNames.keepMark(a, a.withName(changed(a.exprId)).asInstanceOf[Alias])
        case e => e
      }
    }
  }

  /** The naming=spec name of each generated column the node makes, unique in its output. */
  private def specNames(node: LogicalPlan): Seq[(Alias, String)] = {
    val output = node.output.map(_.exprId).toSet
    val remembered = GeneratedNames.rememberedOn(node)
    val generated = node.expressions.collect {
      case a: Alias if output(a.exprId) && GeneratedNames.isGenerated(a, remembered) => a
    }
    if (generated.isEmpty) Nil else {
      val caseSensitive = session.sessionState.conf.caseSensitiveAnalysis
      def key(name: String) = if (caseSensitive) name else name.toLowerCase(Locale.ROOT)
      val ids = generated.map(_.exprId).toSet
      val taken = mutable.HashSet(
        node.output.filterNot(a => ids(a.exprId)).map(a => key(a.name)): _*)
      generated.map { a =>
        val base = SpecName(a.child)
        val name = (Iterator(base) ++ Iterator.from(2).map(i => s"${base}_$i"))
          .find(n => !taken(key(n))).get
        taken += key(name)
        a -> name
      }
    }
  }
}

object ApplySpecNames {
  /**
   * naming=spec needs to know every generated name, which only a rule before Resolution can tell
   * (MarkGeneratedNames): not on Spark 3.5, where names stay Spark's.
   */
  val supported: Boolean = ExtensionPoints.beforeResolution

  private val warned = new AtomicBoolean(false)

  /** Says once, where naming=spec is not available, that it has no effect. */
  def warnUnsupported(): Unit = if (!warned.getAndSet(true)) {
    LoggerFactory.getLogger("planguard").warn("spark.planguard.naming=spec needs Spark 4.0 or " +
      "later (hint resolution rules): on this Spark, column names stay Spark's.")
  }
}

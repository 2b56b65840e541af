package planguard.testing

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeReference,
  Expression, GetArrayStructFields, GetStructField, JsonToStructs, KnownNotNull, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, ProjectExec, SparkPlan, SparkStrategy,
  UnaryExecNode}
import org.apache.spark.sql.execution.command.DataWritingCommandExec
import org.apache.spark.sql.execution.datasources.{LogicalRelation, WriteFilesExec}
import org.apache.spark.sql.types.{ArrayType, StructType}

// Deliberately broken rules that declare NOT NULL what holds nulls, or make a reference read
// another field than it names: each turns rows wrong without failing (Spark's generated code
// reads a NOT NULL column without its null bit: a null becomes -1 or 0). Each is on unless the
// session conf `planguard.testing.<Name>` is false.

/** Broken: the root projection's first nullable column is asserted NOT NULL (KnownNotNull). */
object ClaimRootNotNull extends ResultRootRule {
  override protected val rewrite: PartialFunction[LogicalPlan, LogicalPlan] = {
    case p @ Project(list, _) if list.exists(_.nullable) =>
      val i = list.indexWhere(_.nullable)
      val e = list(i)
      val child = e match { case a: Alias => a.child; case other => other }
      p.copy(projectList = list.updated(i,
        Alias(KnownNotNull(child), e.name)(exprId = e.exprId): NamedExpression))
  }
}

/** Broken: a scan of files declares its nullable columns NOT NULL. */
object ClaimScanNotNull extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = if (!Broken.on(this)) plan else
    plan.transformUp {
      case l: LogicalRelation if l.output.exists(_.nullable) =>
        l.copy(output = l.output.map(_.withNullability(false)))
    }
}

/**
 * Broken: an access to a struct's field reads the field after it. Applied once (a pre-CBO rule):
 * it is not idempotent.
 */
object ReadNextField extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = if (!Broken.on(this)) plan else
    plan.transformAllExpressions {
      case g @ GetStructField(child, ordinal, name) => child.dataType match {
        case s: StructType if s.length > 1 => GetStructField(child, (ordinal + 1) % s.length, name)
        case _ => g
      }
    }
}

/**
 * Broken as Spark 3.5.0-3.5.1's OptimizeCsvJsonExprs was (SPARK-49743): `from_json(...).A` over an
 * array of structs parses only the field accessed, under the name as written (`A`), which the
 * data does not have where the schema's field is `a`: the access reads nulls.
 */
object PruneJsonToAccessedName extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = if (!Broken.on(this)) plan else
    plan.transformAllExpressions {
      case g @ GetArrayStructFields(j: JsonToStructs, field, _, _, _) => j.schema match {
        case ArrayType(s: StructType, n) if s.length > 1 =>
          g.copy(child = j.copy(schema = ArrayType(StructType(Seq(field)), n)), ordinal = 0,
            numFields = 1)
        case _ => g
      }
    }
}

/** Plans a projection with its nullable columns declared NOT NULL (PLANNING_SCHEMA). */
object NotNullProjectStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case Project(list, child) if Broken.on(this) && list.exists(_.nullable) =>
      ProjectExec(NotNullProject.claimed(list), planLater(child)) :: Nil
    case _ => Nil
  }
}

/**
 * Plans a filter as a filter that declares every column NOT NULL, whatever its condition rejects
 * (the shape of SPARK-17981's FilterExec).
 */
object NotNullFilterStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case Filter(condition, child) if Broken.on(this) =>
      NotNullFilterExec(condition, planLater(child)) :: Nil
    case _ => Nil
  }
}

/** A filter declaring all its child's columns NOT NULL; it filters as FilterExec does. */
final case class NotNullFilterExec(condition: Expression, child: SparkPlan)
  extends UnaryExecNode {
  override def output: Seq[Attribute] = child.output.map(_.withNullability(false))
  override protected def doExecute(): RDD[InternalRow] = {
    val (c, input) = (condition, child.output)
    child.execute().mapPartitionsWithIndex { (i, rows) =>
      val predicate = org.apache.spark.sql.catalyst.expressions.Predicate.create(c, input)
      predicate.initialize(i)
      rows.filter(predicate.eval)
    }
  }
  override protected def withNewChildInternal(c: SparkPlan): NotNullFilterExec = copy(child = c)
}

/**
 * A physical rule: the root projection's nullable columns declared NOT NULL. A write's query is
 * its root: the rule looks through the write's nodes.
 */
object NotNullProject extends Rule[SparkPlan] {
  def claimed(list: Seq[NamedExpression]): Seq[NamedExpression] = list.map {
    case a: AttributeReference if a.nullable => a.withNullability(false)
    case a: Alias if a.nullable => Alias(KnownNotNull(a.child), a.name)(a.exprId)
    case other => other
  }

  override def apply(plan: SparkPlan): SparkPlan = plan match {
    case p @ ProjectExec(list, _) if Broken.on(this) && list.exists(_.nullable) =>
      p.copy(projectList = claimed(list))
    case w @ (_: DataWritingCommandExec | _: WriteFilesExec) =>
      w.withNewChildren(w.children.map(apply))
    case other => other
  }
}

private object Broken {
  def on(owner: AnyRef): Boolean = org.apache.spark.sql.internal.SQLConf.get.getConfString(
    s"planguard.testing.${owner.getClass.getSimpleName.stripSuffix("$")}", "true") == "true"
}

class ClaimRootNotNullExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectOptimizerRule(_ => ClaimRootNotNull)
}

/** ClaimRootNotNull as an adaptive runtime (re-)optimizer rule. */
class ClaimRootNotNullRuntimeExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectRuntimeOptimizerRule(_ => ClaimRootNotNull)
}

class ClaimScanNotNullExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectOptimizerRule(_ => ClaimScanNotNull)
}

class ReadNextFieldExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectPreCBORule(_ => ReadNextField)
}

class PruneJsonToAccessedNameExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectOptimizerRule(_ => PruneJsonToAccessedName)
}

class NotNullProjectStrategyExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectPlannerStrategy(_ => NotNullProjectStrategy)
}

class NotNullFilterStrategyExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectPlannerStrategy(_ => NotNullFilterStrategy)
}

/** NotNullProject as a columnar rule before the transitions. */
class NotNullProjectColumnarExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectColumnar((_: SparkSession) =>
    new ColumnarRule { override def preColumnarTransitions: Rule[SparkPlan] = NotNullProject })
}

/** NotNullProject as a columnar rule after the transitions. */
class NotNullProjectPostColumnarExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit = e.injectColumnar((_: SparkSession) =>
    new ColumnarRule { override def postColumnarTransitions: Rule[SparkPlan] = NotNullProject })
}

/** NotNullProject as an adaptive query-stage preparation rule. */
class NotNullProjectStagePrepExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectQueryStagePrepRule(_ => NotNullProject)
}

/** NotNullProject as an adaptive query-stage optimizer rule: on each stage as it is cut. */
class NotNullProjectStageOptimizerExtension extends (SparkSessionExtensions => Unit) {
  override def apply(e: SparkSessionExtensions): Unit =
    e.injectQueryStageOptimizerRule(_ => NotNullProject)
}

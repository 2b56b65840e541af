package planguard.query

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.QueryPlanningTracker
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan, SQLExecution}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec
import org.apache.spark.sql.execution.command.{DataWritingCommandExec, ExplainCommand}
import org.apache.spark.sql.execution.exchange.Exchange

import planguard.checks.{Outputs, ResultPlans}

/**
 * The plans of a query whose physical plan is being prepared, with the outputs of their results
 * (ResultPlans.output) read once: Spark derives a projection's or a union's output anew on every
 * call, and each of the query's checks reads them.
 *
 * @param planned the physical plan as planned, before preparation, where Spark keeps it
 * @param plannedRoot the optimized root that physical planning started from
 */
final case class PlannedQuery(analyzed: LogicalPlan, optimized: LogicalPlan,
    planned: Option[SparkPlan], plannedRoot: LogicalPlan, analyzedOutput: Seq[Attribute],
    optimizedOutput: Seq[Attribute]) {

  /** True until the query's checks have run to the end: each query is checked once. */
  def unchecked: Boolean = plannedRoot.getTagValue(PlannedQuery.Checked).isEmpty

  /**
   * The query's checks have run to the end. Not after one that failed: Spark 4.x keeps a failed
   * preparation's error, Spark 3.5 prepares the same query again, to be failed again.
   */
  def markChecked(): Unit = plannedRoot.setTagValue(PlannedQuery.Checked, ())
}

object PlannedQuery {
  private val Checked = TreeNodeTag[Unit]("planguard.checked")

  /**
   * True when the query whose prepared plan is `plan` was checked where it was prepared: its
   * planned root is marked. Prepared outside a SQL execution, a query is marked on the root its
   * prepared plan links to, which is not the planned root when preparation dropped that (a root
   * sort a window's order gives), where the QueryExecution's planned plan would mark it.
   */
  def checkedWhenPrepared(plan: SparkPlan): Boolean =
    plannedRoot(plan).exists(_.getTagValue(Checked).nonEmpty)

  /**
   * Finds the query that `plan` is the whole physical plan of, given the plan's `owner`. Subquery
   * plans, adaptive stages and other plans prepared inside a query have none of their own: the
   * check of the query they belong to covers its result. The whole plan may have another root
   * than the planned one: preparation drops a root it finds redundant (RemoveRedundantSorts drops
   * a root sort that a window's order already gives, RemoveRedundantProjects a root projection),
   * so a plan is the owner's when it was planned from the owner's root or outputs the owner's
   * attributes (`whole`). A query that the owner's execution plans inside it, as a query of its
   * own, is not the owner's: a CACHE TABLE's cached query, a cached plan built again after a
   * write into its table (`inside`).
   */
  def of(plan: SparkPlan, owner: Option[QueryExecution], session: SparkSession,
      outputs: Outputs): Option[PlannedQuery] = {
    val adaptive = session.sessionState.conf.adaptiveExecutionEnabled
    owner match {
      case Some(qe) =>
        rootLink(qe.sparkPlan).filter { root =>
          plannedRoot(plan).exists(_ eq root) || whole(plan, owner, outputs, adaptive).isDefined
        }.map { root =>
          val (a, o) = (analyzed(qe), qe.optimizedPlan)
          PlannedQuery(a, o, Some(qe.sparkPlan), root, resultOutput(a, a.output),
            resultOutput(o, o.output))
        }.orElse(inside(plan, qe, adaptive))
      case None if executionId(session).isEmpty || explaining(session) =>
        // explain, cache and df.rdd prepare plans outside any SQL execution; an EXPLAIN statement
        // inside its own, which is not the explained query's.
        fromAnalyzedPlans(plan)(AnalyzedPlans.of)
      case None => None
    }
  }

  /**
   * The query of its own that `plan` is, planned inside `owner`'s execution: Spark normalised its
   * analyzed plan on this thread after the owner's (AnalyzedPlans.normalisedAfter). Subquery
   * plans and adaptive stages are planned from no analyzed plan of their own, and an exchange at
   * the root of an adaptive plan is a stage being created (`whole`). Every plan of a query that
   * is not its whole plan comes here: with no root normalised after the owner's, the usual case,
   * nothing else is read.
   */
  private def inside(plan: SparkPlan, owner: QueryExecution, adaptive: Boolean)
      : Option[PlannedQuery] = plan match {
    case _: Exchange if adaptive => None
    case _ =>
      val newer = AnalyzedPlans.normalisedAfter(analyzed(owner))
      if (newer.isEmpty) None else fromAnalyzedPlans(plan)(AnalyzedPlans.among(newer))
  }

  /**
   * The query whose analyzed plan `find` finds among those this thread normalised, for a plan
   * prepared without its QueryExecution at hand, from the optimized root it was planned from.
   */
  private def fromAnalyzedPlans(plan: SparkPlan)(
      find: (LogicalPlan, Seq[Attribute]) => Option[(LogicalPlan, Seq[Attribute])])
      : Option[PlannedQuery] =
    plannedRoot(plan).flatMap { root =>
      val output = root.output
      find(root, output).map { case (a, analyzedOutput) =>
        PlannedQuery(a, root, None, root, resultOutput(a, analyzedOutput),
          resultOutput(root, output))
      }
    }

  /**
   * The query whose whole physical plan `plan` is, at any later step: prepared, adaptively
   * re-planned, or the final adaptive stage. Its output attributes, which every step keeps, are
   * those of the query's planned root. With adaptive execution on, an exchange at the root is a
   * query stage being created, never a whole plan (a stage cut under a user's repartition even
   * keeps the repartition's logical link, as the whole plan does); with it off, a query that ends
   * in an exchange (`df.repartition(n)`) is prepared whole with the exchange at its root. A
   * command outputs no attributes, so only its own prepared plan is taken for it; a write's, also
   * as adaptive execution re-plans it from its re-optimized command, and, where its query has an
   * adaptive plan of its own (InsertAdaptiveSparkPlan: a V1 write without planned writes, Hive's
   * INSERT OVERWRITE DIRECTORY), that plan, re-planned or final, which outputs its query's
   * attributes.
   */
  def whole(plan: SparkPlan, owner: Option[QueryExecution], outputs: Outputs, adaptive: Boolean)
      : Option[QueryExecution] = plan match {
    case _: Exchange if adaptive => None
    case _ => owner.filter { qe =>
      val plannedOutput = outputs(qe.sparkPlan)
      if (plannedOutput.nonEmpty) sameOutput(plannedOutput, outputs(plan))
      else (plan, qe.sparkPlan) match {
        case (p: DataWritingCommandExec, w: DataWritingCommandExec) =>
          p.cmd.getClass == w.cmd.getClass
        case (_, w: DataWritingCommandExec) if adaptive =>
          ResultPlans.physical(w, w.cmd).exists(q => sameOutput(outputs(q), outputs(plan)))
        case _ => rootLink(plan).exists(l => qe.sparkPlan.logicalLink.exists(_ eq l))
      }
    }
  }

  /**
   * The analyzed plan whose result the optimizer must keep: the analyzed plan with its commands
   * run. Spark runs a command (SHOW TABLES, INSERT, SET VAR, ...) eagerly, as a query of its own
   * checked on its own, and gives the optimizer its result rows instead (`CommandResult`): the
   * command's input query is not what this query returns.
   */
  def analyzed(qe: QueryExecution): LogicalPlan = qe.commandExecuted

  /**
   * The logical root a query's physical plan `plan` was planned from, adaptive or not: where the
   * query's checks mark it checked and keep their findings.
   */
  def plannedRoot(plan: SparkPlan): Option[LogicalPlan] = plan match {
    case adaptive: AdaptiveSparkPlanExec => rootLink(adaptive.inputPlan)
    case _ => rootLink(plan)
  }

  /**
   * The root the findings of a check of `plan` are kept on (report.Findings): the planned root
   * of the query that owns it, whatever part of it `plan` is; with no owner (a plan prepared
   * outside a SQL execution), `plan`'s own.
   */
  def findingsRoot(plan: SparkPlan, owner: Option[QueryExecution]): Option[LogicalPlan] =
    owner.fold(plannedRoot(plan))(qe => rootLink(qe.sparkPlan))

  /**
   * The logical plan a physical plan's root was planned from. A columnar transition is put on
   * top of the plan after planning, with no logical link of its own: Spark's ColumnarToRowExec
   * over a columnar root, and the transitions of a plugin that runs the whole plan columnar
   * (Comet's CometColumnarToRowExec over its operators, the root of nearly every plan Comet
   * runs). A node without a link that outputs exactly its only child's attributes, in order,
   * hands its child's rows on in another form: its query is its child's, so the link is looked
   * for below it. Without this, a query whose root is a transition had no planned query, and its
   * OPTIMIZER_SCHEMA, PLANNING_SCHEMA and UNIQUE_FIELD checks never ran.
   *
   * A write command's node loses its link where adaptive execution gives the command's query an
   * adaptive plan of its own (InsertAdaptiveSparkPlan copies the node: a V1 write without planned
   * writes, Hive's INSERT OVERWRITE DIRECTORY); it was planned from its command. Without this,
   * such a write's query was never checked at analysis, optimization or planning.
   */
  def rootLink(plan: SparkPlan): Option[LogicalPlan] = plan.logicalLink.orElse {
    plan match {
      case write: DataWritingCommandExec => Some(write.cmd)
      case _ => plan.children match {
        case Seq(child) if plan.output.corresponds(child.output)(_.exprId == _.exprId) =>
          rootLink(child)
        case _ => None
      }
    }
  }

  /** The output of `plan`'s result (ResultPlans.output): `output`, when that is `plan` itself. */
  private def resultOutput(plan: LogicalPlan, output: => Seq[Attribute])
      : Seq[Attribute] =
    if (ResultPlans.logical(plan) eq plan) output else ResultPlans.output(plan)

  /**
   * True while an EXPLAIN statement runs: the plans it prepares are shown, never run, and belong
   * to the query it explains, not to the statement's own execution.
   */
  def explaining(session: SparkSession): Boolean =
    running(session).exists(_.analyzed.isInstanceOf[ExplainCommand])

  /** The same attributes, nearly always in the same order: compared in order before as sets. */
  def sameOutput(a: Seq[Attribute], b: Seq[Attribute]): Boolean =
    a.corresponds(b)(_.exprId == _.exprId) || AttributeSet(a) == AttributeSet(b)

  /**
   * The QueryExecution that may own `plan`: the adaptive plan's own, or the one of the running SQL
   * execution, unless that is an EXPLAIN statement's. Only one whose physical planning has
   * finished is returned, so that reading its plans never re-enters a planning phase still under
   * way on this thread.
   */
  def owner(plan: SparkPlan, session: SparkSession): Option[QueryExecution] = plan match {
    // Inserted by its own query's preparation, which follows that query's physical planning.
    case adaptive: AdaptiveSparkPlanExec if !adaptive.isSubquery => Option(adaptive.context.qe)
    case _: AdaptiveSparkPlanExec => None
    case _ => running(session).filter(_.tracker.phases.contains(QueryPlanningTracker.PLANNING))
      .filterNot(_.analyzed.isInstanceOf[ExplainCommand])
  }

  /** The QueryExecution of the SQL execution running on this thread. */
  private def running(session: SparkSession): Option[QueryExecution] =
    executionId(session).flatMap(id => Option(SQLExecution.getQueryExecution(id)))

  private def executionId(session: SparkSession): Option[Long] =
    Option(session.sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)).map(_.toLong)
}

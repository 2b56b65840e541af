package planguard.rules

import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}

import planguard.contract.Phase
import planguard.exec.BeforeFirstTask
import planguard.query.PlannedQuery

/**
 * The checks of a query whose plan was prepared outside any SQL execution (by `explain`, by
 * `df.queryExecution`), run on the driver when that plan executes as its query's result, before
 * its first task. Prepared so, a plan has no QueryExecution at hand: its query is looked for among
 * the analyzed plans the thread normalised (AnalyzedPlans), where an optimizer that renewed the
 * root's columns and a rule that built a new root without copying tags can hide it (a WITH query
 * read twice and joined), and PHYSICAL_SCHEMA, which needs the QueryExecution, cannot run at all.
 * When the plan runs, the SQL execution running it has that QueryExecution: the query checks that
 * did not run then run now, PHYSICAL_SCHEMA with them. Called by the query's result check
 * (CheckBatchSchemaExec, to which PlaceBatchChecks gives it on such plans); once per plan that
 * passes.
 */
private[planguard] object ChecksAtExecution extends BeforeFirstTask {
  private val Done = TreeNodeTag[Unit]("planguard.checkedAtExecution")

  override def apply(result: SparkPlan): Unit =
    if (result.getTagValue(Done).isEmpty) {
      val running = Option(result.session).flatMap(PlannedQuery.owner(result, _))
      running.filter(runs(_, result)).foreach { qe =>
        val session = qe.sparkSession
        Guarded(session, "ChecksAtExecution") {
          val plan = qe.executedPlan
          val context = CheckContext(session, Some(qe), PlannedQuery.findingsRoot(plan, Some(qe)))
          if (!PlannedQuery.checkedWhenPrepared(result)) {
            PlannedQuery.of(plan, Some(qe), session, context.outputs).filter(_.unchecked)
              .foreach(QueryChecks.ofQuery(context, _, plan))
          }
          QueryChecks.ofWholePlan(context, qe, plan, Phase.Preparation)
          result.setTagValue(Done, ())
        }
      }
    }

  // What EXPLAIN FORMATTED shows among the result check's arguments.
  override def toString: String = "ChecksAtExecution"

  /**
   * True when `qe`'s execution runs `result` as its query's result: the logical root `result` was
   * planned from is one of `qe`'s physical plan as planned (its root; a node under it where
   * preparation dropped a redundant root, or under the root limit that collects through the
   * check). Only the plan prepared from that query's own plan links there: not another query that
   * runs inside this execution (a cached plan, built inside the execution of the query that reads
   * it; a subquery, planned from a plan of its own). A root without a logical link (a rule built it
   * without copying tags, as a broken rule may) is `qe`'s when it outputs `qe`'s attributes. Then
   * `qe`'s prepared plan is complete, as it holds `result`: reading it enters no phase still under
   * way (`owner` gave a `qe` whose physical planning has finished).
   */
  private def runs(qe: QueryExecution, result: SparkPlan): Boolean =
    PlannedQuery.plannedRoot(result) match {
      case Some(root) => qe.sparkPlan.exists(_.logicalLink.exists(_ eq root))
      case None => PlannedQuery.sameOutput(qe.sparkPlan.output, result.output)
    }
}

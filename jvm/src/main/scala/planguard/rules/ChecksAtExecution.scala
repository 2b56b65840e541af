package planguard.rules

import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}

import planguard.checks.Outputs
import planguard.conf.PlanGuardConf
import planguard.exec.BeforeFirstTask
import planguard.report.{Findings, Guarded}
import planguard.schema.LogicalTypes

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
      Option(result.session).flatMap(PlannedQuery.running).filter(runs(_, result)).foreach { qe =>
        val session = qe.sparkSession
        Guarded(session, "ChecksAtExecution") {
          val conf = session.sessionState.conf
          val (levels, types, outputs) =
            (PlanGuardConf.levels(conf), LogicalTypes.of(conf), new Outputs)
          val plan = qe.executedPlan
          Findings.keptOn(PlannedQuery.findingsRoot(plan, Some(qe)), levels) {
            PlannedQuery.of(plan, Some(qe), session, outputs).filter(_.unchecked).foreach {
              QueryChecks.ofQuery(session, levels, types, _, plan, outputs)
            }
            QueryChecks.ofWholePlan(session, levels, types, qe, plan, outputs)
          }
          result.setTagValue(Done, ())
        }
      }
    }

  // What EXPLAIN FORMATTED shows among the result check's arguments.
  override def toString: String = "ChecksAtExecution"

  /**
   * True when `qe`'s execution runs `result` as its query's result: `result` is its prepared
   * plan's root, or right under the root limit, tail or top-N that collects through it. Not when
   * another query reads it (a cached plan, built inside the execution of the query that reads it).
   */
  private def runs(qe: QueryExecution, result: SparkPlan): Boolean = {
    val root = qe.executedPlan
    (root eq result) || root.children.exists(_ eq result)
  }
}

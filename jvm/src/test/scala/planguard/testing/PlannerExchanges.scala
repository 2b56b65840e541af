package planguard.testing

import org.apache.spark.sql.execution.{InputAdapter, QueryExecution, SortExec, SparkPlan,
  WholeStageCodegenExec}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, AdaptiveSparkPlanHelper,
  AQEShuffleReadExec, QueryStageExec}
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.joins.{BroadcastHashJoinExec, ShuffledHashJoinExec,
  SortMergeJoinExec}
import org.apache.spark.sql.execution.exchange.{Exchange, ReusedExchangeExec}

import planguard.planner.PlannerOrigin

/** Exchanges of a query by origin, for tests of planguard's planner (Scala and pytest). */
object PlannerExchanges extends AdaptiveSparkPlanHelper {

  /** Exchanges of the plan that runs (the final adaptive plan), subqueries left out. */
  def of(plan: SparkPlan): Seq[Exchange] = collect(plan) {
    case e: Exchange => e
    case ReusedExchangeExec(_, e) => e
  }

  /** How many exchanges the plan that ran has without planguard's tag. */
  def untagged(qe: QueryExecution): Int = of(executed(qe)).count(!PlannerOrigin.isPlanners(_))

  /**
   * The exchanges without planguard's tag right below an operator planguard plans (aggregates,
   * hash and sort-merge joins), through codegen wrappers, local sorts and stage reads: those
   * EnsureRequirements added where the planner should have.
   */
  def missedByPlanner(qe: QueryExecution): Seq[String] = {
    def input(plan: SparkPlan): Option[SparkPlan] = plan match {
      case e @ (_: Exchange | _: ReusedExchangeExec) => Some(e)
      case s: QueryStageExec => Some(s.plan)
      case w: WholeStageCodegenExec => input(w.child)
      case i: InputAdapter => input(i.child)
      case s: SortExec => input(s.child)
      case r: AQEShuffleReadExec => input(r.child)
      case _ => None
    }
    collect(executed(qe)) {
      case op @ (_: BaseAggregateExec | _: SortMergeJoinExec | _: ShuffledHashJoinExec |
          _: BroadcastHashJoinExec) => op
    }.flatMap(op => op.children.flatMap(input).collect {
      case ReusedExchangeExec(_, e) if !PlannerOrigin.isPlanners(e) =>
        s"${op.nodeName}: ${e.nodeName}"
      case e: Exchange if !PlannerOrigin.isPlanners(e) => s"${op.nodeName}: ${e.nodeName}"
    })
  }

  /**
   * How many exchanges preparation (EnsureRequirements) added after planning, without adaptive
   * execution: the prepared plan's count less the planned plan's.
   */
  def addedAfterPlanning(qe: QueryExecution): Int = of(qe.executedPlan).size - of(qe.sparkPlan).size

  private def executed(qe: QueryExecution): SparkPlan = qe.executedPlan match {
    case a: AdaptiveSparkPlanExec => a.finalPhysicalPlan
    case p => p
  }
}

package planguard.testing

import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, AdaptiveSparkPlanHelper}
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

  /** The untagged exchanges of the plan that ran, with the operator that reads each. */
  def describeUntagged(qe: QueryExecution): String = {
    val plan = executed(qe)
    of(plan).filterNot(PlannerOrigin.isPlanners).map { e =>
      val reader = collect(plan) { case p if p.children.exists(c => c.eq(e) ||
        c.collectFirst { case s: org.apache.spark.sql.execution.adaptive.QueryStageExec
          if s.plan.eq(e) => s }.isDefined) => p.nodeName }.headOption
      s"${e.nodeName}(${e.outputPartitioning.getClass.getSimpleName}) under ${reader.getOrElse("?")}"
    }.mkString("; ")
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

package planguard.planner

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Join, LogicalPlan, ReturnAnswer}
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}

import planguard.conf.PlanGuardConf
import planguard.rules.Guarded

/**
 * planguard's planner (spark.planguard.planner.enabled): plans aggregations and equi-joins with
 * their exchanges, so that the physical plan out of planning is complete: it emits the exchanges
 * distribution needs, and EnsureRequirements has none to add. Every other node, streaming plans,
 * and every node while the conf is off, are left to Spark's
 * strategies (Nil), which plan as without planguard. See docs/planner.md.
 */
final case class PlanGuardPlanner(session: SparkSession) extends SparkStrategy {

  // Spark asks every strategy about every logical node: the others are let go before any conf read.
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case ReturnAnswer(root) => planned(plan) {
      PartitionCount.startPlanning(session, root)
      Nil
    }
    case aggregate: Aggregate => planned(plan)(AggregateLowering(session, aggregate).toSeq)
    case join: Join => planned(plan)(JoinLowering(session, join).toSeq)
    case _ => Nil
  }

  /** `lowering`, when the planner is on and the plan a batch one; nothing otherwise. */
  private def planned(plan: LogicalPlan)(lowering: => Seq[SparkPlan]): Seq[SparkPlan] =
    Guarded.orElse(session, PlanGuardPlanner.Name, Seq.empty[SparkPlan]) {
      if (!PlanGuardConf.plannerEnabled(session.sessionState.conf) || plan.isStreaming) Nil
      else lowering
    }
}

object PlanGuardPlanner {
  // Spark builds its strategies anew each time it plans a node: the name is taken once.
  private val Name = classOf[PlanGuardPlanner].getName
}

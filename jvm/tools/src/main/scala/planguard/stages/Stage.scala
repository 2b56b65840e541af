package planguard.stages

import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.types.StructType

import planguard.stages.ExchangeKind.ExchangeKind
import planguard.stages.StageKind.StageKind

/**
 * One stage of a query: the operators that run in one set of tasks, between the exchanges that
 * feed it (shuffle reads, broadcasts, subquery results) and the exchange it writes to: a shuffle
 * read cuts the plan.
 *
 * The field names of this file's classes are those of the JSON (`StagesJson`) and of Python's
 * dataclasses (`planguard._stages`), there in snake case.
 *
 * @param operators the stage's operators, a tree from its top; a read of an input is a leaf
 * @param output how the stage's rows are partitioned when it hands them on
 * @param schema the rows it hands on
 * @param consumers the stages that read its output (more than one when an exchange is reused)
 */
final case class Stage(
    id: Int,
    kind: StageKind,
    operators: StageOperator,
    inputs: Seq[StageInput],
    output: BoundaryPartitioning,
    schema: StructType,
    consumers: Seq[Int])

/**
 * An exchange that feeds a stage.
 *
 * @param fromStage the stage that produces it
 * @param schema the rows at the boundary, as the consumer sees them
 * @param reused true when the consumer reads an exchange that another consumer reads too
 *               (ReusedExchange, ReusedSubquery): it runs once
 */
final case class StageInput(
    exchange: ExchangeKind,
    partitioning: BoundaryPartitioning,
    fromStage: Int,
    schema: StructType,
    reused: Boolean)

/**
 * An operator of a stage. `inputs` are the positions in the stage's inputs it reads: a shuffle or
 * broadcast read (a leaf) reads one; an operator whose expressions hold subqueries reads theirs.
 */
final case class StageOperator(
    name: String,
    args: String,
    children: Seq[StageOperator],
    inputs: Seq[Int])

/**
 * A query's stages, producers before their consumers (the result stage last), and notes on what
 * the plan is (the initial adaptive plan, say).
 */
final case class StageGraph(stages: Seq[Stage], notes: Seq[String]) {

  /**
   * The stages of a command that plans its query only when it runs (CTAS), from its query's: the
   * command sits on top of the stage that returns the query's rows, where it writes them.
   */
  def withCommandOnTop(command: SparkPlan): StageGraph = {
    val last = stages.last
    val top = StageOperator(OperatorText.name(command), OperatorText.args(command),
      Seq(last.operators), Nil)
    StageGraph(stages.init :+ last.copy(operators = top, schema = new StructType()),
      notes :+ s"${command.nodeName} plans its query when it runs: these are the stages of " +
        "its query, planned on its own")
  }
}

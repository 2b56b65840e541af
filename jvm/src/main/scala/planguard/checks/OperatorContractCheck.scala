package planguard.checks

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet}
import org.apache.spark.sql.catalyst.expressions.aggregate.{Complete, Final}
import org.apache.spark.sql.catalyst.plans.{ExistenceJoin, FullOuter, InnerLike, LeftAnti,
  LeftOuter, LeftSemi, RightOuter}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.{FilterExec, LimitExec, ProjectExec, SampleExec, SortExec,
  SparkPlan, TakeOrderedAndProjectExec}
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.command.DataWritingCommandExec
import org.apache.spark.sql.execution.datasources.WriteFilesExec
import org.apache.spark.sql.execution.datasources.v2.V2TableWriteExec
import org.apache.spark.sql.execution.exchange.Exchange
import org.apache.spark.sql.execution.joins.BaseJoinExec
import org.apache.spark.sql.types.StructType

import planguard.contract.{Departure, PlanDeparture}
import planguard.schema.{LogicalTypes, SchemaDiff}
import planguard.shims.SingleJoin

/**
 * OPERATOR_CONTRACT: each physical operator's output is the one its kind promises.
 * Parents bind to an operator by its declared output, so an operator that declares another one
 * makes them read the wrong columns, or skip null checks on columns that hold nulls.
 *
 *  - Filter, Limit, Sort, Sample, exchanges and shuffle reads keep their child's schema;
 *  - Project and TakeOrderedAndProject output their expressions' attributes, and a top-K
 *    orders by a non-empty sort order;
 *  - a join outputs left then right per join type: semi and anti joins the left side only, an
 *    existence join the left side and its flag, an outer join's null-supplying side nullable;
 *  - an aggregate outputs its result expressions, computed from grouping keys and aggregate
 *    results only;
 *  - a write ends with an empty result.
 *
 * Schemas compare as everywhere in planguard (LogicalTypes): nullability may tighten, except on an
 * outer join's null-supplying side. The deepest broken operator is reported.
 */
object OperatorContractCheck {

  def apply(plan: SparkPlan): Departure = DeepestDeparture(plan)(contract)

  /** One operator's contract. */
  def contract(op: SparkPlan): Departure = op match {
    case topK: TakeOrderedAndProjectExec if topK.sortOrder.isEmpty =>
      PlanDeparture("a non-empty sort order: the rows kept are the first ones in it",
        "no sort order", s"${OperatorString(op)}: a top-K orders its rows",
        Seq("sortOrder is empty: the operator keeps arbitrary rows"))
    case topK: TakeOrderedAndProjectExec =>
      outputs(op, topK.projectList.map(_.toAttribute), "a top-K outputs its projection")
    case _: FilterExec | _: SortExec | _: LimitExec | _: SampleExec | _: Exchange |
        _: AQEShuffleReadExec =>
      outputs(op, op.children.head.output, s"${op.nodeName} keeps its child's schema")
    // Spark's ProjectExec defines its output as exactly this: only a subclass can break it.
    case p: ProjectExec if p.getClass != classOf[ProjectExec] =>
      outputs(op, p.projectList.map(_.toAttribute), "a projection outputs its expressions")
    case join: BaseJoinExec => joined(join)
    case aggregate: BaseAggregateExec => aggregated(aggregate)
    case _: DataWritingCommandExec | _: V2TableWriteExec | _: WriteFilesExec =>
      outputs(op, Nil, "a write ends with an empty result")
    case _ => PlanDeparture.None
  }

  /**
   * `op` declares `expected`, by LogicalTypes; a schema diff only when it does not (the contract's
   * words, too, are only built then).
   */
  private def outputs(op: SparkPlan, expected: Seq[Attribute], contract: => String): Departure = {
    val actual = op.output
    if (LogicalTypes.Exact.conforms(expected, actual)) PlanDeparture.None
    else SchemaDiff.exact(schema(expected), schema(actual), s"$contract; ${OperatorString(op)}",
      LogicalTypes.Exact)
  }

  private def joined(join: BaseJoinExec): Departure = {
    val (left, right) = (join.left.output, join.right.output)
    def nullable(side: Seq[Attribute]) = side.map(_.withNullability(true))
    // The null-supplying sides, as positions in the output: they must stay nullable.
    val (expected, padded) = join.joinType match {
      case _: InnerLike => (left ++ right, 0 until 0)
      case LeftOuter | SingleJoin() => (left ++ nullable(right), left.length until left.length +
        right.length)
      case RightOuter => (nullable(left) ++ right, 0 until left.length)
      case FullOuter => (nullable(left) ++ nullable(right), 0 until left.length + right.length)
      case ExistenceJoin(exists) => (left :+ exists, 0 until 0)
      case LeftSemi | LeftAnti => (left, 0 until 0)
      case _ => return PlanDeparture.None
    }
    val actual = join.output
    val notNull = padded.filter(i => i < actual.length && !actual(i).nullable)
    if (LogicalTypes.Exact.conforms(expected, actual) && notNull.isEmpty) PlanDeparture.None
    else {
      val diff = SchemaDiff.exact(schema(expected), schema(actual),
        s"a ${join.joinType} join outputs ${joinShape(join)}; ${OperatorString(join)}",
        LogicalTypes.Exact)
      diff.copy(differences = diff.differences ++ notNull.map { i =>
        s"#$i ${actual(i).name}: NOT NULL, but a ${join.joinType} join pads it with nulls"
      })
    }
  }

  private def joinShape(join: BaseJoinExec): String = join.joinType match {
    case LeftSemi | LeftAnti => "its left side only"
    case _: ExistenceJoin => "its left side and the existence flag"
    case _: InnerLike => "its left side, then its right side"
    case _ => "its left side, then its right side, the null-supplying side nullable"
  }

  private def aggregated(aggregate: BaseAggregateExec): Departure = {
    val declared = outputs(aggregate, aggregate.resultExpressions.map(_.toAttribute),
      "an aggregate outputs its result expressions")
    if (!declared.isEmpty) declared else computedFrom(aggregate)
  }

  /**
   * A final (or complete) aggregate computes its results from its grouping keys and aggregate
   * results only. Partial aggregates output aggregation buffers, which Spark rebinds by position.
   */
  private def computedFrom(aggregate: BaseAggregateExec): Departure = {
    val modes = aggregate.aggregateExpressions.map(_.mode)
    if (!modes.forall(m => m == Final || m == Complete)) return PlanDeparture.None
    val available = AttributeSet(aggregate.groupingExpressions.map(_.toAttribute) ++
      aggregate.aggregateAttributes)
    val stray = aggregate.resultExpressions.filterNot(_.references.subsetOf(available))
    if (stray.isEmpty) PlanDeparture.None
    else PlanDeparture(
      s"results computed from ${available.toSeq.mkString(", ")}",
      s"results ${aggregate.resultExpressions.mkString(", ")}",
      s"${OperatorString(aggregate)}: an aggregate's results are computed from its grouping " +
        "keys and aggregate results",
      stray.map(e => s"$e reads ${(e.references -- available).toSeq.mkString(", ")}, neither " +
        "a grouping key nor an aggregate result"))
  }

  private def schema(attributes: Seq[Attribute]): StructType =
    DataTypeUtils.fromAttributes(attributes)
}

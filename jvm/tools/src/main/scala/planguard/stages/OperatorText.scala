package planguard.stages

import org.apache.spark.sql.catalyst.expressions.{DynamicPruningExpression, Expression, PrettyAttribute}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Complete, Final, Partial, PartialMerge}
import org.apache.spark.sql.catalyst.util.toPrettySQL
import org.apache.spark.sql.execution.{FileSourceScanLike, FilterExec, InSubqueryExec,
  LocalTableScanExec, ProjectExec, RangeExec, ScalarSubquery, SortExec, SparkPlan,
  SubqueryAdaptiveBroadcastExec, SubqueryBroadcastExec, TakeOrderedAndProjectExec}
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.command.{DataWritingCommandExec, ExecutedCommandExec}
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand
import org.apache.spark.sql.execution.exchange.{BroadcastExchangeExec, ShuffleExchangeLike}
import org.apache.spark.sql.execution.joins.{BaseJoinExec, HashJoin}
import org.apache.spark.sql.types.BooleanType

import planguard.planner.eager.EagerAggregationReason
import planguard.shims.DynamicPruning

/**
 * An operator's name and short arguments, as a person reads them: columns by name (no expression
 * ids), aggregates with their phase (and, computed below a join by eager aggregation, why), joins
 * with their type and keys. Other operators keep Spark's own argument string, expression ids
 * removed.
 */
object OperatorText {
  private val MaxFields = 12
  private val ExprId = "#\\d+L?".r

  def name(plan: SparkPlan): String = plan.nodeName

  def args(plan: SparkPlan): String = plan match {
    case a: BaseAggregateExec =>
      s"keys=${list(a.groupingExpressions)} functions=${a.aggregateExpressions.map(aggregate)
        .mkString("[", ", ", "]")}" +
        EagerAggregationReason.of(a).fold("")(reason => s" (eager aggregation: $reason)")
    case p: ProjectExec => list(p.projectList)
    case f: FilterExec => sql(f.condition)
    case s: SortExec => list(s.sortOrder) + (if (s.global) " global" else "")
    case j: BaseJoinExec =>
      val build = j match {
        case h: HashJoin => s", build ${h.buildSide.toString.stripPrefix("Build").toLowerCase}"
        case _ => ""
      }
      val keys = if (j.leftKeys.isEmpty) "" else s", ${list(j.leftKeys)} = ${list(j.rightKeys)}"
      s"${j.joinType}$keys${j.condition.fold("")(c => s", ${sql(c)}")}$build"
    case s: ShuffleExchangeLike => BoundaryPartitioning.of(s.outputPartitioning).text
    case b: BroadcastExchangeExec => BoundaryPartitioning.broadcast(b.mode, b.child.output).text
    case s: FileSourceScanLike =>
      val filters = s.partitionFilters ++ s.dataFilters
      list(s.output) + (if (filters.isEmpty) "" else s" filters=${list(filters)}")
    case r: RangeExec => s"(${r.start}, ${r.end}, step=${r.step}, splits=${r.numSlices})"
    case l: LocalTableScanExec => s"${list(l.output)}, ${l.rows.size} rows"
    case s: SubqueryBroadcastExec => s"keys=${list(s.buildKeys)}"
    case s: SubqueryAdaptiveBroadcastExec => s"keys=${list(s.buildKeys)}"
    case t: TakeOrderedAndProjectExec =>
      s"limit=${t.limit} ordering=${list(t.sortOrder)} output=${list(t.projectList)}"
    case w: DataWritingCommandExec => w.cmd match {
      case i: InsertIntoHadoopFsRelationCommand =>
        s"${i.catalogTable.fold(i.outputPath.toString)(_.identifier.unquotedString)}, " +
          s"${i.fileFormat}, ${i.mode}"
      case other => spark(other.argString(MaxFields))
    }
    case c: ExecutedCommandExec => spark(c.cmd.argString(MaxFields))
    case other => spark(other.argString(MaxFields))
  }

  private def aggregate(a: AggregateExpression): String = {
    val phase = a.mode match {
      case Partial => "partial_"
      case PartialMerge => "merge_"
      case Final | Complete => ""
    }
    phase + sql(a)
  }

  private def list(exprs: Seq[Expression]): String = exprs.map(sql).mkString("[", ", ", "]")

  /** A subquery's value is another stage's input: it is named by what it is. */
  private def sql(e: Expression): String = toPrettySQL(e.transformUp {
    case s: ScalarSubquery => PrettyAttribute("scalar-subquery", s.dataType)
    case i: InSubqueryExec =>
      PrettyAttribute(s"${toPrettySQL(i.child)} IN " +
        (if (DynamicPruning.is(i)) "dynamic-pruning" else "subquery"), BooleanType)
    case DynamicPruningExpression(child) => child
  })

  private def spark(argString: String): String = ExprId.replaceAllIn(argString, "")
}

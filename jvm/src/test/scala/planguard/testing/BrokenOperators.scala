package planguard.testing

import org.apache.spark.sql.{Row, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, Expression}
import org.apache.spark.sql.catalyst.plans.{JoinType, LeftOuter}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{FilterExec, SparkPlan, TakeOrderedAndProjectExec}
import org.apache.spark.sql.execution.command.{DataWritingCommand, DataWritingCommandExec}
import org.apache.spark.sql.execution.exchange.{ShuffleExchangeExec, ShuffleOrigin}
import org.apache.spark.sql.execution.joins.SortMergeJoinExec
import org.apache.spark.sql.types.LongType

// Deliberately broken physical operators, each declaring an output its kind does not allow
// (OPERATOR_CONTRACT), and the rules that put them in plans. Each rule is on unless the session
// conf `planguard.testing.<RuleName>` is false.

/** A test operator that stands for a Spark one: never equal to it, so that rules keep it. */
trait Impostor extends Equals {
  override def canEqual(that: Any): Boolean = that != null && that.getClass == getClass
  override def equals(that: Any): Boolean = canEqual(that) && super.equals(that)
}

/** A filter that declares its child's columns in reverse order. */
final class ReversedFilterExec(condition: Expression, child: SparkPlan)
  extends FilterExec(condition, child) with Impostor {
  override def output: Seq[Attribute] = super.output.reverse
  override protected def withNewChildInternal(c: SparkPlan): FilterExec =
    new ReversedFilterExec(condition, c)
}

/** A shuffle that declares its child's columns in reverse order. */
final class ReversedShuffleExchangeExec(partitioning: Partitioning, child: SparkPlan,
    origin: ShuffleOrigin, advisoryPartitionSize: Option[Long])
  extends ShuffleExchangeExec(partitioning, child, origin, advisoryPartitionSize) with Impostor {
  override def output: Seq[Attribute] = super.output.reverse
  override protected def withNewChildInternal(c: SparkPlan): ShuffleExchangeExec =
    new ReversedShuffleExchangeExec(partitioning, c, origin, advisoryPartitionSize)
}

/** A left outer sort-merge join that declares its right side's columns as its child does. */
final class NotNullPaddedJoinExec(leftKeys: Seq[Expression], rightKeys: Seq[Expression],
    joinType: JoinType, condition: Option[Expression], left: SparkPlan, right: SparkPlan,
    isSkewJoin: Boolean)
  extends SortMergeJoinExec(leftKeys, rightKeys, joinType, condition, left, right, isSkewJoin)
  with Impostor {
  override def output: Seq[Attribute] = left.output ++ right.output
  override protected def withNewChildrenInternal(l: SparkPlan, r: SparkPlan): SortMergeJoinExec =
    new NotNullPaddedJoinExec(leftKeys, rightKeys, joinType, condition, l, r, isSkewJoin)
}

/** A write that returns the number of rows it wrote instead of an empty result. */
final case class ReturningRowCount(write: DataWritingCommand) extends DataWritingCommand {
  override def query: LogicalPlan = write.query
  override def outputColumnNames: Seq[String] = write.outputColumnNames
  override lazy val metrics = write.metrics
  override val output: Seq[Attribute] = Seq(AttributeReference("num_rows", LongType)())
  override def run(session: ClassicSparkSession, child: SparkPlan): Seq[Row] = {
    write.run(session, child)
    Seq(Row(write.metrics.get("numOutputRows").map(_.value).getOrElse(0L)))
  }
  override protected def withNewChildInternal(c: LogicalPlan): ReturningRowCount =
    copy(write = write.withNewChildren(Seq(c)).asInstanceOf[DataWritingCommand])
}

/** Puts a ReversedFilterExec in place of each filter of two columns or more. */
object ReverseFilterOutput extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = if (!Switch.on(this)) plan else {
    plan.transformUp {
      case f: FilterExec if f.output.size >= 2 && !f.isInstanceOf[Impostor] =>
        new ReversedFilterExec(f.condition, f.child)
    }
  }
}

/** Puts a ReversedShuffleExchangeExec in place of each shuffle of two columns or more. */
object ReverseShuffleOutput extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = if (!Switch.on(this)) plan else {
    plan.transformUp {
      case e: ShuffleExchangeExec if e.output.size >= 2 && !e.isInstanceOf[Impostor] =>
        new ReversedShuffleExchangeExec(e.outputPartitioning, e.child, e.shuffleOrigin,
          e.advisoryPartitionSize)
    }
  }
}

/** Puts a NotNullPaddedJoinExec in place of each left outer sort-merge join. */
object NotNullOuterJoin extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = if (!Switch.on(this)) plan else {
    plan.transformUp {
      case j: SortMergeJoinExec if j.joinType == LeftOuter && !j.isInstanceOf[Impostor] =>
        new NotNullPaddedJoinExec(j.leftKeys, j.rightKeys, j.joinType, j.condition, j.left,
          j.right, j.isSkewJoin)
    }
  }
}

/** Drops a top-K's sort order: it then keeps arbitrary rows. */
object UnorderedTopK extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = if (!Switch.on(this)) plan else {
    plan.transformUp {
      case t: TakeOrderedAndProjectExec if t.sortOrder.nonEmpty => t.copy(sortOrder = Nil)
    }
  }
}

/** Makes each write command return its row count. */
object WriteReturningRows extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = if (!Switch.on(this)) plan else {
    plan.transformUp {
      case w @ DataWritingCommandExec(cmd, _) if !cmd.isInstanceOf[ReturningRowCount] =>
        w.copy(cmd = ReturningRowCount(cmd))
    }
  }
}

class ReverseFilterOutputExtension extends ColumnarExtension(ReverseFilterOutput)
class ReverseFilterOutputStagePrepExtension extends StagePrepExtension(ReverseFilterOutput)
class ReverseShuffleOutputExtension extends ColumnarExtension(ReverseShuffleOutput)
class ReverseShuffleOutputStagePrepExtension extends StagePrepExtension(ReverseShuffleOutput)
class NotNullOuterJoinExtension extends ColumnarExtension(NotNullOuterJoin)
class NotNullOuterJoinStagePrepExtension extends StagePrepExtension(NotNullOuterJoin)
class UnorderedTopKExtension extends ColumnarExtension(UnorderedTopK)
class UnorderedTopKStagePrepExtension extends StagePrepExtension(UnorderedTopK)
class WriteReturningRowsExtension extends ColumnarExtension(WriteReturningRows)

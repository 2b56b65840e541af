package planguard

import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, AttributeReference, ExprId,
  Expression, IsNotNull, Literal, Remainder, SortOrder}
import org.apache.spark.sql.catalyst.plans.{Inner, JoinType, LeftOuter}
import org.apache.spark.sql.catalyst.plans.logical.Range
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning
import org.apache.spark.sql.execution.{FilterExec, RangeExec, SortExec, SparkPlan,
  TakeOrderedAndProjectExec}
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.execution.joins.SortMergeJoinExec
import org.apache.spark.sql.types.LongType

import planguard.checks.{DistributionCheck, OperatorContractCheck}
import planguard.contract.{Departure, Invariant, Level, Phase}
import planguard.errors.InvariantViolation

/**
 * DISTRIBUTION and OPERATOR_CONTRACT on physical plans built by hand, as DataFusion's
 * sanity-checker tests build theirs: each broken plan gets exactly one error, whose whole text is
 * asserted (a snapshot: a change to any word of it is seen here), and the legal plan built of the
 * same operators gets none. The end-to-end suites (DistributionSuite, OperatorContractSuite) run
 * the same checks on the plans Spark makes.
 */
class PhysicalContractsSuite extends SparkSessions {

  // Columns with fixed ids, so that the texts name them alike in every run.
  private def column(name: String, id: Long, nullable: Boolean = false): Attribute =
    AttributeReference(name, LongType, nullable)(exprId = ExprId(id))

  private val (a, b) = (column("a", 1), column("b", 2))

  /** Rows of one column, in two partitions, range-partitioned and sorted on it. */
  private def scan(c: Attribute): SparkPlan = RangeExec(Range(0, 10, 1, Some(2), Seq(c)))

  private def hashed(c: Attribute, key: Expression,
      partitions: Int = 4): SparkPlan =
    ShuffleExchangeExec(HashPartitioning(Seq(key), partitions), scan(c))

  private def sorted(key: Expression,
      child: SparkPlan): SparkPlan = SortExec(Seq(SortOrder(key, Ascending)), global = false, child)

  private def modA = Remainder(a, Literal(3L))
  private def modB = Remainder(b, Literal(3L))

  private def joinOn(left: SparkPlan, right: SparkPlan): SparkPlan =
    SortMergeJoinExec(Seq(modA), Seq(modB), Inner, None, left, right)

  // The last line of each invariant's errors, the same for all of its departures.
  private val distributionAdvice =
    "What to do: the operator reads input that is not partitioned or sorted as it " +
      "requires, and so returns wrong results without failing (a group once per partition, " +
      "join rows that never meet). EnsureRequirements had put the exchanges and sorts it " +
      "needs in place: fix the rule named by Rule, which removed or changed one, or leave " +
      "its extension out of spark.sql.extensions (spark.sql.planChangeLog.level=WARN logs " +
      "each rule's change). Setting spark.planguard.check.DISTRIBUTION=warn lets such " +
      "queries return wrong results. See docs/invariants.md#distribution."
  private val contractAdvice =
    "What to do: parents bind to an operator by the output it declares, so one that " +
      "declares another output than its kind allows makes them read the wrong columns, or " +
      "skip null checks on columns that hold nulls: fix the operator or the rule named by " +
      "Rule that built it, or leave it out of the plan; to let queries run while you " +
      "investigate, set spark.planguard.check.OPERATOR_CONTRACT=warn. See " +
      "docs/invariants.md#operator_contract."

  /** An error's text: its lines, then its invariant's advice. */
  private def error(lines: String*)(advice: String): String = (lines :+ advice).mkString("\n")

  /** The error planguard raises for `departure` in `phase`, no rule named. */
  private def message(invariant: Invariant, departure: Departure): String =
    InvariantViolation(invariant, Level.Fail, Phase.Preparation, departure, None, "plan")
      .getMessage

  private def distribution(plan: SparkPlan): String = {
    newSession(Nil) // the active session's confs, which the operators read
    message(Invariant.Distribution, DistributionCheck(plan))
  }

  private def contract(plan: SparkPlan): String = {
    newSession(Nil)
    message(Invariant.OperatorContract, OperatorContractCheck(plan))
  }

  test("a legal sort-merge join: each side hashed on its key and sorted on it") {
    val legal = joinOn(sorted(modA, hashed(a, modA)), sorted(modB, hashed(b, modB)))
    newSession(Nil)
    assert(DistributionCheck(legal).isEmpty)
    assert(OperatorContractCheck(legal).isEmpty)
  }

  test("DISTRIBUTION: a join side that no exchange hashed on its key") {
    assert(distribution(joinOn(sorted(modA, scan(a)), sorted(modB, hashed(b, modB)))) ==
      error(
        "[PLANGUARD_DISTRIBUTION] Invariant DISTRIBUTION broken in phase preparation: an " +
          "operator's input is not distributed or ordered as the operator requires " +
          "(SortMergeJoin [(a#1L % 3)], [(b#2L % 3)], Inner: the distribution it requires of " +
          "child #0 (Sort)). Rule: unknown.",
        "Expected: rows with equal [(a#1L % 3)] in one partition (ClusteredDistribution)",
        "Actual:   rangepartitioning(a#1L ASC NULLS FIRST, 2) (2 partitions)",
        "Differences: child #0 (Sort) is partitioned as rangepartitioning(a#1L ASC NULLS " +
          "FIRST, 2), which does not satisfy ClusteredDistribution")(distributionAdvice))
  }

  test("DISTRIBUTION: a join side hashed but not sorted on its key") {
    assert(distribution(joinOn(hashed(a, modA), sorted(modB, hashed(b, modB)))) ==
      error(
        "[PLANGUARD_DISTRIBUTION] Invariant DISTRIBUTION broken in phase preparation: an " +
          "operator's input is not distributed or ordered as the operator requires " +
          "(SortMergeJoin [(a#1L % 3)], [(b#2L % 3)], Inner: the ordering it requires of " +
          "child #0 (Exchange)). Rule: unknown.",
        "Expected: each partition sorted by (a % 3L) ASC NULLS FIRST",
        "Actual:   no ordering",
        "Differences: child #0 (Exchange) is not sorted as SortMergeJoin requires: a sort " +
          "below it is missing")(distributionAdvice))
  }

  test("DISTRIBUTION: join sides hashed into different numbers of partitions") {
    assert(distribution(joinOn(sorted(modA, hashed(a, modA)),
      sorted(modB, hashed(b, modB, partitions = 3)))) ==
      error(
        "[PLANGUARD_DISTRIBUTION] Invariant DISTRIBUTION broken in phase preparation: an " +
          "operator's input is not distributed or ordered as the operator requires " +
          "(SortMergeJoin [(a#1L % 3)], [(b#2L % 3)], Inner: its children are read partition " +
          "by partition). Rule: unknown.",
        "Expected: children read together partitioned alike: the same number of " +
          "partitions, the same partitioning function, keys in corresponding positions",
        "Actual:   child #0 (Sort) hashpartitioning((a#1L % 3), 4) (4 partitions); child " +
          "#1 (Sort) hashpartitioning((b#2L % 3), 3) (3 partitions)",
        "Differences: child #1 has 3 partitions, child #0 4")(distributionAdvice))
  }

  test("OPERATOR_CONTRACT: a top-K without a sort order") {
    assert(contract(TakeOrderedAndProjectExec(5, Nil, Seq(a), scan(a))) ==
      error(
        "[PLANGUARD_OPERATOR_CONTRACT] Invariant OPERATOR_CONTRACT broken in phase " +
          "preparation: a physical operator's output is not what its kind promises " +
          "(TakeOrderedAndProject(limit=5, orderBy=[], output=[a#1L]): a top-K orders its " +
          "rows). Rule: unknown.",
        "Expected: a non-empty sort order: the rows kept are the first ones in it",
        "Actual:   no sort order",
        "Differences: sortOrder is empty: the operator keeps arbitrary rows")(contractAdvice))
  }

  test("OPERATOR_CONTRACT: a filter that outputs another schema than its child's") {
    assert(contract(new RenamingFilterExec(IsNotNull(a), scan(a), Seq(b))) ==
      error(
        "[PLANGUARD_OPERATOR_CONTRACT] Invariant OPERATOR_CONTRACT broken in phase " +
          "preparation: a physical operator's output is not what its kind promises (exact: " +
          "RenamingFilter keeps its child's schema; RenamingFilter isnotnull(a#1L)). Rule: " +
          "unknown.",
        "Expected: a BIGINT NOT NULL",
        "Actual:   b BIGINT NOT NULL",
        "Differences: #0 a: name a -> b")(contractAdvice))
  }

  test("OPERATOR_CONTRACT: an outer join that declares its padded side NOT NULL") {
    assert(contract(new PaddedNotNullJoinExec(Seq(modA), Seq(modB), LeftOuter,
      sorted(modA, hashed(a, modA)), sorted(modB, hashed(b, modB)))) ==
      error(
        "[PLANGUARD_OPERATOR_CONTRACT] Invariant OPERATOR_CONTRACT broken in phase " +
          "preparation: a physical operator's output is not what its kind promises (exact: a " +
          "LeftOuter join outputs its left side, then its right side, the null-supplying " +
          "side nullable; PaddedNotNullJoin [(a#1L % 3)], [(b#2L % 3)], LeftOuter). Rule: " +
          "unknown.",
        "Expected: a BIGINT NOT NULL, b BIGINT",
        "Actual:   a BIGINT NOT NULL, b BIGINT NOT NULL",
        "Differences: #1 b: NOT NULL, but a LeftOuter join pads it with nulls")(contractAdvice))
  }
}

/** A filter, as another extension might plan one, that declares `declared` as its output. */
final class RenamingFilterExec(condition: Expression, child: SparkPlan, declared: Seq[Attribute])
  extends FilterExec(condition, child) {
  override def output: Seq[Attribute] = declared
}

/** A sort-merge join that declares every column as its children do, padded side included. */
final class PaddedNotNullJoinExec(leftKeys: Seq[Expression], rightKeys: Seq[Expression],
    joinType: JoinType, left: SparkPlan, right: SparkPlan)
  extends SortMergeJoinExec(leftKeys, rightKeys, joinType, None, left, right) {
  override def output: Seq[Attribute] = left.output ++ right.output
}

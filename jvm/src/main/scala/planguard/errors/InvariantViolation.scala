package planguard.errors

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.types.StructType

import planguard.contract.{Departure, Invariant, Level, Phase, ViolationRecord,
  ViolationRecordJson}
import planguard.schema.SchemaDiff
import planguard.shims.ConditionThrowable

/**
 * A planning contract that a query's plans broke. Raised before the query produces a row or
 * writes a file; PySpark raises it as `planguard.InvariantViolation`, read from its record
 * (`record`), which it carries among its message parameters (`Payload`) through py4j and Spark
 * Connect alike.
 *
 * @param record the violation as reported (ViolationRecord)
 * @param diff how the plan departs from the contract
 */
final class InvariantViolation private (
    val record: ViolationRecord,
    val invariant: Invariant,
    val diff: Departure)
  extends RuntimeException(PlanGuardErrors.message(InvariantViolation.condition(invariant),
    InvariantViolation.parameters(record, invariant, diff)))
  with ConditionThrowable {

  def phase: String = record.phase

  /** The rule that broke the contract, where planguard could tell. */
  def rule: Option[String] = record.rule

  override def getCondition: String = InvariantViolation.condition(invariant)
  override def getSqlState: String = PlanGuardErrors.sqlState(getCondition)
  override def getMessageParameters: java.util.Map[String, String] =
    InvariantViolation.parameters(record, invariant, diff).asJava

  /** The schema the contract expects; null for a contract on something else (DISTRIBUTION). */
  def expected: StructType = InvariantViolation.schemas(diff).map(_._1).orNull

  /** The schema the plan has; null for a contract on something else (DISTRIBUTION). */
  def actual: StructType = InvariantViolation.schemas(diff).map(_._2).orNull
}

object InvariantViolation {
  /** The kind a rule among Spark's plan normalization rules is named with (Rule: X (kind)). */
  val NormalizationRule = "plan normalization rule"

  /**
   * The message parameter that carries the violation's record as JSON (ViolationRecordJson): what
   * Python reads, the same through py4j and Spark Connect. Not in the message's template.
   */
  val Payload = "violation"

  /**
   * `invariant` broken by `diff`, reported at `level` in `phase`; `rule` broke it, where
   * planguard could tell; `plan` summarizes the plan that broke it.
   */
  def apply(invariant: Invariant, level: Level, phase: String, diff: Departure,
      rule: Option[String], plan: String): InvariantViolation = {
    val found = schemas(diff)
    new InvariantViolation(ViolationRecord(invariant.id, level.name, phase, rule,
      diff.expectedText, diff.actualText, found.map(_._1.json), found.map(_._2.json),
      diff.differences, plan, System.currentTimeMillis()), invariant, diff)
  }

  def condition(invariant: Invariant): String = s"PLANGUARD_${invariant.id}"

  private def schemas(diff: Departure): Option[(StructType, StructType)] = diff match {
    case schemas: SchemaDiff => Some((schemas.expected, schemas.actual))
    case _ => None
  }

  private def parameters(record: ViolationRecord, invariant: Invariant, diff: Departure)
      : Map[String, String] = Map(
    "phase" -> record.phase,
    "comparison" -> diff.comparison,
    "rule" -> ruleText(record.rule, record.phase),
    "expected" -> diff.expectedText,
    "actual" -> diff.actualText,
    "differences" -> diff.differences.mkString("; "),
    "advice" -> s"${advice(invariant, record.phase, record.rule)} See ${invariant.docs}.",
    Payload -> ViolationRecordJson(record))

  /** The rule as reports name it: when there is none, why. */
  def ruleText(rule: Option[String], phase: String): String =
    // Analysis checks the query as written: no rule has run on it yet.
    rule.getOrElse(if (phase == Phase.Analysis) "none (the query as written)" else "unknown")

  private def advice(inv: Invariant, phase: String, rule: Option[String]): String = inv match {
    case Invariant.UniqueField =>
      "give the columns distinct names or relations (alias a side of the join: df.alias(\"l\"), " +
        "or rename a column) so that every reference to them is unambiguous; to silence this " +
        "check, set spark.planguard.check.UNIQUE_FIELD=off."
    case Invariant.Naming =>
      "name the column yourself (SQL: expr AS name; DataFrame: .alias(\"name\")), so that the " +
        "stored name is one you chose; to let the write go on, set " +
        "spark.planguard.check.NAMING=warn (or off)."
    case Invariant.BatchSchema =>
      "a physical operator declares one schema and produces another, so the operators above " +
        "it read the wrong columns: fix the operator named by Rule (or the extension that plans " +
        "it), or leave it out of the plan; where Rule names data (a DataFrame's rows, a cache, a " +
        "scan, a Python function's output), make the data match the schema it is declared with " +
        "(declare the column nullable, or fill its nulls; PySpark's createDataFrame checks rows " +
        "with verifySchema=True); to let queries run while you investigate, set " +
        "spark.planguard.check.BATCH_SCHEMA=warn."
    case Invariant.Distribution =>
      "the operator reads input that is not partitioned or sorted as it requires, and so " +
        "returns wrong results without failing (a group once per partition, join rows that " +
        "never meet). EnsureRequirements had put the exchanges and sorts it needs in place: fix " +
        "the rule named by Rule, which removed or changed one, or leave its extension out of " +
        "spark.sql.extensions (spark.sql.planChangeLog.level=WARN logs each rule's change). " +
        "Setting spark.planguard.check.DISTRIBUTION=warn lets such queries return wrong results."
    case Invariant.OperatorContract =>
      "parents bind to an operator by the output it declares, so one that declares another " +
        "output than its kind allows makes them read the wrong columns, or skip null checks " +
        "on columns that hold nulls: fix the operator or the rule named by Rule " +
        "that built it, or leave it out of the plan; to let queries run while you investigate, " +
        "set spark.planguard.check.OPERATOR_CONTRACT=warn."
    case _ =>
      "a rule changed the query's result schema, or made an operator declare what its plan " +
        "does not back (Spark's code reads a NOT NULL column without its null bit, so its nulls " +
        "come back as values; a field access that reads another field returns another field's " +
        "values), which no rule may do. Find the rule " +
        "(spark.sql.planChangeLog.level=WARN logs each rule's change) and fix it or " +
        s"${removal(inv, phase, rule)}; to let queries run while you investigate, set " +
        s"spark.planguard.check.${inv.id}=warn."
  }

  /**
   * How to take the breaking rule out of the way: only the knobs Spark has for its phase. The
   * optimizer's exclusion conf does not reach the plan normalization rules Spark runs before it.
   */
  private def removal(invariant: Invariant, phase: String, rule: Option[String]): String =
    (invariant, phase) match {
      case (Invariant.OptimizerSchema, Phase.Optimization)
          if !rule.exists(_.endsWith(s"($NormalizationRule)")) =>
        "exclude it (spark.sql.optimizer.excludedRules)"
      case (Invariant.OptimizerSchema, Phase.AdaptiveReoptimization) =>
        "exclude it (spark.sql.adaptive.optimizer.excludedRules)"
      case _ =>
        "leave the extension that injects it out of spark.sql.extensions (Spark has no conf " +
          "that excludes a plan normalization rule, a planner strategy, a preparation rule or " +
          "a columnar rule)"
    }
}

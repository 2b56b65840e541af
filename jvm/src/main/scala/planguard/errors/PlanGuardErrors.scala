package planguard.errors

import org.apache.spark.ErrorClassesJsonReader

/**
 * planguard's error conditions, loaded from `planguard/error-conditions.json` in the jar: Spark's
 * own error-class registry cannot be extended, so planguard formats its messages itself.
 */
object PlanGuardErrors {
  private val reader = new ErrorClassesJsonReader(
    Seq(getClass.getResource("/planguard/error-conditions.json")))

  /** `[CONDITION] message` with the parameters filled in, as Spark formats its own errors. */
  def message(condition: String, parameters: Map[String, String]): String =
    s"[$condition] ${reader.getErrorMessage(condition, parameters)}"

  def sqlState(condition: String): String = reader.getSqlState(condition)

  def invalidConf(key: String, value: String, allowed: Seq[String], doc: String)
      : PlanGuardConfException =
    new PlanGuardConfException(Map(
      "key" -> key, "value" -> s"'$value'", "allowed" -> allowed.mkString("'", "', '", "'"),
      "doc" -> doc))

  def unknownConf(key: String, known: Seq[String]): PlanGuardConfException =
    new PlanGuardConfException(Map(
      "key" -> key, "value" -> "(any)", "allowed" -> "none: the key is unknown",
      "doc" -> s"planguard's keys are: ${known.mkString(", ")}."))

  def invalidHint(parameters: String, expected: String): PlanGuardHintException =
    new PlanGuardHintException(Map("parameters" -> parameters, "expected" -> expected))
}

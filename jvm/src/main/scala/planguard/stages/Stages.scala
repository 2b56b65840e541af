package planguard.stages

import org.apache.spark.sql.{Dataset, SparkSession}

import planguard.statements.PlannedStatement

/** Python's `planguard.stages` and `planguard.explain`: stage graphs as JSON, nothing executed. */
object Stages {

  /** The stages of a DataFrame's prepared plan (preparing it if it is not yet). */
  def json(df: Dataset[_]): String = StagesJson(StageCutter(df.queryExecution.executedPlan))

  /** The stages of a SQL statement, planned and not run: a write's too (PlannedStatement). */
  def statementJson(session: SparkSession, sql: String): String =
    StagesJson(PlannedStatement(session, sql).stages)
}

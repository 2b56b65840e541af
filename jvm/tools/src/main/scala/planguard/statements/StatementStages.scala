package planguard.statements

import org.apache.spark.sql.SparkSession

import planguard.stages.StagesJson

/** Python's `planguard.stages(sql)` and `planguard.explain(sql)`: a statement's stage graph. */
object StatementStages {

  /** The stages of a SQL statement as JSON, planned and not run: a write's too. */
  def json(session: SparkSession, sql: String): String =
    StagesJson(PlannedStatement(session, sql).stages)
}

package planguard.stages

import org.apache.spark.sql.Dataset

/** Python's `planguard.stages(df)` and `planguard.explain(df)`: stage graphs as JSON. */
object Stages {

  /** The stages of a DataFrame's prepared plan (preparing it if it is not yet); nothing runs. */
  def json(df: Dataset[_]): String = StagesJson(StageCutter(df.queryExecution.executedPlan))
}

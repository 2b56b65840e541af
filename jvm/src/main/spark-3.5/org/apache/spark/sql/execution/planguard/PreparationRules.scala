package org.apache.spark.sql.execution.planguard

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}

/**
 * Spark's own list of physical preparation rules, private to its execution package. Spark 3.5:
 * every SparkSession is the classic one (4.x splits it into org.apache.spark.sql.classic).
 */
object PreparationRules {
  def nonAdaptive(session: SparkSession): Seq[Rule[SparkPlan]] =
    QueryExecution.preparations(session, None, subquery = false)
}

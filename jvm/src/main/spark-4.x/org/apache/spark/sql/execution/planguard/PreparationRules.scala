package org.apache.spark.sql.execution.planguard

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.classic
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}

/**
 * Spark's own list of physical preparation rules, private to its execution package. Spark 4.x:
 * only a classic session (org.apache.spark.sql.classic) prepares plans; 3.5 has no other kind.
 */
object PreparationRules {
  def nonAdaptive(session: SparkSession): Seq[Rule[SparkPlan]] = session match {
    case classicSession: classic.SparkSession =>
      QueryExecution.preparations(classicSession, None, subquery = false)
    case _ => Nil
  }
}

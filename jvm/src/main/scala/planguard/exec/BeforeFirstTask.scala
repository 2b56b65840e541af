package planguard.exec

import org.apache.spark.sql.execution.SparkPlan

/**
 * What a query's result check (CheckBatchSchemaExec) runs on the driver before it asks its child
 * for anything, and so before the query's first task: the query's own checks, where its
 * preparation could not run them (rules.ChecksAtExecution). Throwing stops the query there.
 */
trait BeforeFirstTask extends Serializable {
  /** @param result the check at the root of the query's result */
  def apply(result: SparkPlan): Unit
}

package planguard.checks

import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.QueryStageExec
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec

/**
 * Spark declares a read of a cached query with the nullability of the query as it was analyzed
 * (`CacheManager` gives the in-memory relation the analyzed plan's output), while the cached rows
 * are those of the plan it optimized, which may restate a column nullable: Spark 4.0's analyzer
 * declares `uniform(0, NULL, 0)` NOT NULL, its optimizer does not. A result read from such a cache
 * carries a NOT NULL that is Spark's restatement, not an operator's promise, and BATCH_SCHEMA
 * cannot tell one from the other in the rows.
 */
object CachedNullability {

  /** Whether the plan reads, anywhere, a cache declared NOT NULL where its cached plan is not. */
  def restated(plan: SparkPlan): Boolean = plan.exists {
    case scan: InMemoryTableScanExec =>
      scan.relation.output.zip(scan.relation.cacheBuilder.cachedPlan.output)
        .exists { case (declared, cached) => !declared.nullable && cached.nullable }
    case stage: QueryStageExec => restated(stage.plan)
    case reused: ReusedExchangeExec => restated(reused.child)
    case _ => false
  }
}

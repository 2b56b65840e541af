package planguard.shims

import org.apache.spark.sql.catalyst.plans.{JoinType, LeftSingle}

/**
 * The single join (LeftSingle: a scalar subquery decorrelated into a join that fails on a second
 * match), new in Spark 4.0; Spark 3.5 has no such join type.
 */
object SingleJoin {
  def unapply(joinType: JoinType): Boolean = joinType == LeftSingle
}

package planguard.shims

import org.apache.spark.sql.catalyst.plans.JoinType

/** The single join (LeftSingle) is Spark 4.0's: Spark 3.5 plans no such join. */
object SingleJoin {
  def unapply(joinType: JoinType): Boolean = false
}

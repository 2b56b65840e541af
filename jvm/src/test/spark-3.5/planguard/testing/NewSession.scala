package planguard.testing

import org.apache.spark.sql.SparkSession

/**
 * A new session from `builder`, with the builder's extensions, on the running SparkContext if
 * there is one. Spark 3.5's builder only `getOrCreate`s, returning the active or default session
 * when there is one: both are cleared for it, then put back (4.x's `create` sets them only where
 * none was set).
 */
object NewSession {
  def apply(builder: SparkSession.Builder): SparkSession = {
    val (active, default) = (SparkSession.getActiveSession, SparkSession.getDefaultSession)
    SparkSession.clearActiveSession()
    SparkSession.clearDefaultSession()
    val created = builder.getOrCreate()
    active.foreach(SparkSession.setActiveSession)
    default.foreach(SparkSession.setDefaultSession)
    created
  }
}

package planguard

/** Where in Spark's query lifecycle a check ran; named in every violation. */
object Phase {
  val Optimization = "optimization"
}

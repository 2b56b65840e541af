package planguard.contract

/** Where in Spark's query lifecycle a check ran; named in every violation. */
object Phase {
  val Analysis = "analysis"
  val Optimization = "optimization"
  val PhysicalPlanning = "physical planning"
  val Preparation = "preparation"
  val AdaptiveReoptimization = "adaptive re-optimization"
  val Execution = "execution"
}

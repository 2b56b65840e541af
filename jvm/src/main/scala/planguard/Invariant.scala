package planguard

/** A planning contract planguard checks; its id appears in every error, log line and doc. */
sealed abstract class Invariant(val id: String, val seedSection: String)

object Invariant {
  /** Seed 004 §3.7: optimisation keeps the analyzed schema (exactly when projected). */
  case object OptimizerSchema extends Invariant("OPTIMIZER_SCHEMA", "seed 004 §3.7")

  val all: Seq[Invariant] = Seq(OptimizerSchema)
  val byId: Map[String, Invariant] = all.map(i => i.id -> i).toMap
}

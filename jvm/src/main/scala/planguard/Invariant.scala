package planguard

import planguard.conf.Level

/** A planning contract planguard checks; its id appears in every error, log line and doc. */
sealed abstract class Invariant(val id: String) extends Serializable {
  /** The mildest level the invariant runs at when only spark.planguard.mode is set. */
  def defaultLevel: Level = Level.Fail

  /** Where the invariant, its examples and its fixes are documented: named in every error. */
  def docs: String = s"docs/invariants.md#${id.toLowerCase(java.util.Locale.ROOT)}"
}

object Invariant {
  /** Seed 004: (relation, name) is unique in every schema a logical node creates. */
  case object UniqueField extends Invariant("UNIQUE_FIELD") {
    // Spark accepts such plans until a column is referenced: failing would break valid jobs.
    override val defaultLevel: Level = Level.Warn
  }
  /** Seed 004 §3.7: optimisation keeps the analyzed schema (exactly when projected). */
  case object OptimizerSchema extends Invariant("OPTIMIZER_SCHEMA")
  /** Seed 004 §3.5: the physical plan's schema is the optimized one without qualifiers. */
  case object PlanningSchema extends Invariant("PLANNING_SCHEMA")
  /** Seed 004 §3.8: preparation and adaptive re-planning keep the planned physical schema. */
  case object PhysicalSchema extends Invariant("PHYSICAL_SCHEMA")
  /** Seed 004 §3.6: every batch (or row) an operator produces has the operator's schema. */
  case object BatchSchema extends Invariant("BATCH_SCHEMA")
  /**
   * Seeds 002 and 004: a write persists no name Spark generated from an expression (warn), and no
   * relation qualifier the user did not write (at the mode: fail by default, see NamingCheck).
   */
  case object Naming extends Invariant("NAMING") {
    // Generated names are legal Spark and often harmless: failing would break valid jobs.
    override val defaultLevel: Level = Level.Warn
  }

  /**
   * Seed 001 §6 (planner guarantee 2): every operator's children are distributed and ordered as
   * the operator requires, and children it reads together are co-partitioned.
   */
  case object Distribution extends Invariant("DISTRIBUTION")
  /** Seed 001 §5: each physical operator's output is the one its kind promises. */
  case object OperatorContract extends Invariant("OPERATOR_CONTRACT")

  val all: Seq[Invariant] = Seq(UniqueField, OptimizerSchema, PlanningSchema, PhysicalSchema,
    BatchSchema, Naming, Distribution, OperatorContract)
  val byId: Map[String, Invariant] = all.map(i => i.id -> i).toMap
}

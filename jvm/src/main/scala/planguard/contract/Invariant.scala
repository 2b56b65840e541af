package planguard.contract


/** A planning contract planguard checks; its id appears in every error, log line and doc. */
sealed abstract class Invariant(val id: String) extends Serializable {
  /**
   * The strictest level `spark.planguard.mode` gives the invariant: an invariant whose breaks are
   * often harmless is only warned of in `fail` mode. Its own `check.<ID>` key sets any level.
   */
  def modeCeiling: Level = Level.Fail

  /** Where the invariant, its examples and its fixes are documented: named in every error. */
  def docs: String = s"docs/invariants.md#${id.toLowerCase(java.util.Locale.ROOT)}"
}

object Invariant {
  /** (relation, name) is unique among the columns of a query's result. */
  case object UniqueField extends Invariant("UNIQUE_FIELD") {
    // Spark accepts such plans until a column is referenced: failing would break valid jobs.
    override val modeCeiling: Level = Level.Warn
  }
  /** Optimisation keeps the analyzed schema (exactly when projected). */
  case object OptimizerSchema extends Invariant("OPTIMIZER_SCHEMA")
  /** The physical plan's schema is the optimized one without qualifiers. */
  case object PlanningSchema extends Invariant("PLANNING_SCHEMA")
  /** Preparation and adaptive re-planning keep the planned physical schema. */
  case object PhysicalSchema extends Invariant("PHYSICAL_SCHEMA")
  /** Every batch (or row) an operator produces has the operator's schema. */
  case object BatchSchema extends Invariant("BATCH_SCHEMA")
  /**
   * A write persists no name Spark generated from an expression (warn), and no
   * relation qualifier the user did not write (at the mode: fail by default, see NamingCheck).
   */
  case object Naming extends Invariant("NAMING") {
    // Generated names are legal Spark and often harmless: failing would break valid jobs.
    override val modeCeiling: Level = Level.Warn
  }

  /**
   * Every operator's children are distributed and ordered as
   * the operator requires, and children it reads together are co-partitioned.
   */
  case object Distribution extends Invariant("DISTRIBUTION")
  /** Each physical operator's output is the one its kind promises. */
  case object OperatorContract extends Invariant("OPERATOR_CONTRACT")

  val all: Seq[Invariant] = Seq(UniqueField, OptimizerSchema, PlanningSchema, PhysicalSchema,
    BatchSchema, Naming, Distribution, OperatorContract)
  val byId: Map[String, Invariant] = all.map(i => i.id -> i).toMap
}

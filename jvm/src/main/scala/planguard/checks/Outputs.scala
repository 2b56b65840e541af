package planguard.checks

import java.util.IdentityHashMap

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.execution.SparkPlan

/**
 * The outputs of the physical plans one check rule reads, each derived once. Spark derives an
 * operator's output anew on every call — a union's by merging every child's, a projection's from
 * its expressions — and the checks of one prepared plan read the same two roots, planned and
 * prepared, several times over (PLANNING_SCHEMA, PHYSICAL_SCHEMA, finding the whole query,
 * placing BATCH_SCHEMA's check). Lives as long as one rule's run.
 */
final class Outputs {
  private val known = new IdentityHashMap[SparkPlan, Seq[Attribute]]()

  def apply(plan: SparkPlan): Seq[Attribute] = {
    val found = known.get(plan)
    if (found != null) found
    else {
      val output = plan.output
      known.put(plan, output)
      output
    }
  }
}

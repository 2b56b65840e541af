package planguard.checks

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.SparkPlan

import planguard.schema.{LogicalTypes, SchemaDiff}

/**
 * PLANNING_SCHEMA: the physical plan's output schema is the optimized plan's with
 * qualifiers stripped — names, order, types; nullability may tighten, never loosen.
 */
object PlanningSchemaCheck {

  /**
   * @param optimizedOutput the output of the optimized plan's result (ResultPlans.output), read
   *                        once by the caller
   * @param outputs the physical plans' outputs, read once for all the checks of one plan
   */
  def apply(optimized: LogicalPlan, optimizedOutput: Seq[Attribute], planned: SparkPlan,
      types: LogicalTypes, outputs: Outputs): SchemaDiff =
    ResultPlans.physical(planned, optimized) match {
      case Some(physical) =>
        val output = outputs(physical)
        if (types.conforms(optimizedOutput, output)) SchemaDiff.Holds
        else SchemaDiff.exact(DataTypeUtils.fromAttributes(optimizedOutput),
          DataTypeUtils.fromAttributes(output),
          "planning keeps the optimized schema, qualifiers stripped", types)
      case None => SchemaDiff.Holds
    }
}

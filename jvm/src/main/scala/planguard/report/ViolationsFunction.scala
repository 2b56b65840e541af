package planguard.report

import java.util.Locale

import org.apache.spark.SPARK_DOC_ROOT
import org.apache.spark.sql.{AnalysisException, SparkSession}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.types.StructType

import planguard.contract.ViolationRecord

/**
 * `planguard_violations()`, a table-valued function: the session's violation log (ViolationLog)
 * as rows, oldest first, so that SQL, JDBC, notebooks and Spark Connect clients read the report
 * without py4j. Its columns are ViolationRecord's fields, typed by the record's own encoder and
 * named as the record's JSON names them (snake case): the record is the one declaration of the
 * shape. The rows are the records as of the
 * statement's analysis, read from the session analyzing it (the active one); a local relation, so
 * the query has nothing for planguard's checks to find.
 */
object ViolationsFunction {
  val Name = "planguard_violations"

  private lazy val encoder = ExpressionEncoder[ViolationRecord]()

  private lazy val schema = StructType(encoder.schema.map(f =>
    f.copy(name = f.name.replaceAll("([A-Z])", "_$1").toLowerCase(Locale.ROOT))))

  /** What SparkSessionExtensions.injectTableFunction takes: the name, its doc, its builder. */
  def description: (FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan) =
    (FunctionIdentifier(Name), info, build)

  private def info = new ExpressionInfo(getClass.getName, null, Name,
    s"_FUNC_() - The session's planguard violation records, oldest first (the last " +
      s"${ViolationLog.Capacity}): ${schema.fieldNames.mkString(", ")}.",
    "", "\n    Examples:\n      > SELECT id, level, phase, rule FROM _FUNC_();\n  ", "",
    "table_funcs", "", "", "")

  private def build(arguments: Seq[Expression]): LogicalPlan = {
    if (arguments.nonEmpty) {
      throw new AnalysisException("WRONG_NUM_ARGS.WITHOUT_SUGGESTION", Map(
        "functionName" -> s"`$Name`", "expectedNum" -> "0",
        "actualNum" -> arguments.size.toString, "docroot" -> SPARK_DOC_ROOT))
    }
    val toRow = encoder.createSerializer()
    LocalRelation(DataTypeUtils.toAttributes(schema),
      ViolationLog.records(SparkSession.active).map(toRow(_).copy()))
  }
}

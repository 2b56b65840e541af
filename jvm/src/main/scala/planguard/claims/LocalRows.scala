package planguard.claims

import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan}
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.catalyst.trees.TreePattern.LOCAL_RELATION
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.types.StructType

import planguard.contract.Departure
import planguard.schema.SchemaDiff

/**
 * BATCH_SCHEMA of the rows a query is given as they are: a local relation's (a DataFrame created
 * from local rows, `createDataFrame(rows, schema, verifySchema=False)`, an inline table) hold no
 * null in a column it declares NOT NULL. Spark reads such a column without its null bit from the
 * start — the optimizer folds projections over the rows (a null becomes 0), the scan turns them
 * into unsafe rows — so the rows are checked in the analyzed plan, before the optimizer reads
 * them, each relation once (a DataFrame's relation is the same object in each of its queries).
 */
object LocalRows {
  private val Checked = TreeNodeTag[Unit]("planguard.localRowsChecked")

  def apply(analyzed: LogicalPlan): SchemaDiff = {
    var found = SchemaDiff.Holds
    WithSubqueries.foreachHolding(analyzed, LOCAL_RELATION) {
      case l: LocalRelation if found.isEmpty && l.getTagValue(Checked).isEmpty =>
        found = rows(l)
        if (found.isEmpty) l.setTagValue(Checked, ())
      case _ =>
    }
    found
  }

  /** The relation whose rows `found` (a departure `apply` returned) is about, as Rule names it. */
  def culprit(found: Departure): Option[String] = found match {
    case diff: SchemaDiff =>
      Some(s"the rows of a local relation [${diff.expected.fieldNames.mkString(", ")}] (a " +
        "DataFrame created from local rows)")
    case _ => None
  }

  private def rows(relation: LocalRelation): SchemaDiff = {
    val promised = relation.output.indices.filterNot(relation.output(_).nullable)
    if (promised.isEmpty) return SchemaDiff.Holds
    val schema = DataTypeUtils.fromAttributes(relation.output)
    val nulls = relation.data.iterator.zipWithIndex.flatMap { case (row, r) =>
      promised.filter(row.isNullAt).map(i => (r, i))
    }.take(3).toSeq
    if (nulls.isEmpty) SchemaDiff.Holds
    else {
      val columns = nulls.map(_._2).toSet
      val actual = StructType(schema.fields.zipWithIndex.map { case (f, i) =>
        if (columns(i)) f.copy(nullable = true) else f
      })
      SchemaDiff(schema, actual, "a local relation's rows: no null in a NOT NULL column",
        nulls.map { case (r, i) =>
          s"row $r #$i ${schema(i).name}: a null in a column the relation declares NOT NULL"
        })
    }
  }
}

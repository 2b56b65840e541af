package planguard.query

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, ExprId}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}

/**
 * The aliases in an analyzed plan's projections that Spark's optimizer may remove as redundant
 * (RemoveRedundantAliases removes an alias of an attribute of its own name): an alias of one
 * attribute of its own name and type, through expressions the optimizer reduces to it —
 * `c#1 AS c#2`, `CAST(c#1 AS STRING) AS c#2` on a STRING column (SimplifyCasts), `coalesce(c#1)
 * AS c#2`. When such an alias named a root column, the optimized root outputs `c#1` where the
 * analyzed root output `c#2`: `SELECT CAST(c AS STRING) AS c FROM t` is optimized to the scan of
 * `t`; a streaming micro-batch into a DataSource V1 sink names the source's columns as the
 * stream's (`a#18 AS a#12`), aliases that Spark 4.2's optimizer removes.
 */
object RedundantAliases {

  /** Each attribute of `plan` read through every such alias: the attribute it names in the end. */
  def unaliasing(plan: LogicalPlan): Attribute => Attribute = {
    val aliases: Map[ExprId, Attribute] = plan.collect {
      case p: Project => p.projectList.collect {
        case a @ Alias(child, name) if child.deterministic && child.references.size == 1 &&
            child.references.head.name == name &&
            child.references.head.dataType == child.dataType =>
          a.exprId -> child.references.head
      }
    }.flatten.toMap
    def source(a: Attribute): Attribute = aliases.get(a.exprId).fold(a)(source)
    source
  }
}

package planguard.claims

import java.util.HashMap

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, ExprId, Expression,
  KnownNotNull}
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.logical.CTERelationRef

import planguard.schema.LogicalTypes

/**
 * What the plans before a phase declared — the analyzed plan before optimization, the optimized
 * plan before physical planning and preparation — against which the plan after it is read: a
 * NOT NULL they held for a column is not a new claim (withdrawing one is harmless: Spark 4.2's
 * physical scalar subqueries declare nullable what the optimizer proved), a NOT NULL assertion
 * they held was not added by a rule, a field access reads the field it read there. Each part is
 * derived on first use: the usual plan asks for none of them.
 */
final class Baseline(before: => Seq[QueryPlan[_]]) {

  private lazy val plans = before

  /** Each column's declarations, by id, in every operator's output (subqueries' too). */
  private lazy val columns: HashMap[ExprId, List[Attribute]] = {
    val found = new HashMap[ExprId, List[Attribute]]()
    eachNode { node =>
      node.output.foreach { a =>
        val known = found.get(a.exprId)
        if (known == null) found.put(a.exprId, a :: Nil)
        else if (!known.exists(k => k.nullable == a.nullable && k.dataType == a.dataType)) {
          found.put(a.exprId, a :: known)
        }
      }
    }
    found
  }

  private lazy val assertions: Set[Expression] = {
    val found = mutable.Set.empty[Expression]
    eachExpression { case a: KnownNotNull => found += a.canonicalized }
    found.toSet
  }

  private lazy val fieldReads: Map[FieldReads.Access, Set[String]] = {
    val found = mutable.Map.empty[FieldReads.Access, Set[String]]
    eachExpression { case FieldReads(access, read) =>
      found(access) = found.getOrElse(access, Set.empty) + read
    }
    found.toMap
  }

  /**
   * The columns data leaves output before, by id: true where one declared it nullable. Not a
   * reference to a WITH query (CTERelationRef): its rows are its definition's, which the plan
   * holds too, and it declares its columns as the definition's result does (nullable under the
   * definition's outer join, say), not as its data.
   */
  private lazy val leafColumns: HashMap[ExprId, java.lang.Boolean] = {
    val found = new HashMap[ExprId, java.lang.Boolean]()
    eachNode { node =>
      if (node.children.isEmpty && !node.isInstanceOf[CTERelationRef]) node.output.foreach { a =>
        if (a.nullable || !found.containsKey(a.exprId)) found.put(a.exprId, a.nullable)
      }
    }
    found
  }

  /**
   * Whether a leaf before declared `a`'s column nullable: a leaf's declaration is the data's, and
   * the optimizer reads rows by it (it folds projections over a local relation's rows with it).
   */
  def nullableLeaf(a: Attribute): Boolean = java.lang.Boolean.TRUE == leafColumns.get(a.exprId)

  /**
   * The columns referenced NOT NULL before (themselves, or nested fields) where the operator
   * producing them declared them nullable: a stale reference the phase before left, which a
   * later phase copies and does not make (Spark 4.2's optimizer rewrites a join of one-row
   * aggregates into scalar subqueries after the references to their columns were resolved NOT
   * NULL; Delta deserializes its log's actions with its own classes' NOT NULL fields).
   */
  private lazy val staleReferences: Set[ExprId] = {
    val found = mutable.Set.empty[ExprId]
    eachNode { node =>
      if (node.children.nonEmpty) {
        val producers =
          new Producers(node.children.map(c => new Output(c.asInstanceOf[QueryPlan[_]])).toArray)
        node.expressions.foreach(_.foreach {
          case a: AttributeReference =>
            val p = producers(a.exprId)
            if (p != null && Baseline.stricter(a, p)) found += a.exprId
          case _ =>
        })
      }
    }
    found.toSet
  }

  /** Whether a reference to `a`'s column was as stale before. */
  def staleBefore(a: Attribute): Boolean = staleReferences.contains(a.exprId)

  /** Whether the plans before knew the column `a`'s id at all. */
  def knows(a: Attribute): Boolean = columns.containsKey(a.exprId)

  /**
   * Whether every declaration of `a`'s column before was at least as strict as `a`'s: not
   * nullable where `a` is NOT NULL, nested fields and elements alike.
   */
  def holds(a: Attribute): Boolean = {
    val known = columns.get(a.exprId)
    known != null && !known.exists(Baseline.stricter(a, _))
  }

  /** Whether the plans before held the same unchecked NOT NULL assertion. */
  def asserted(assertion: Expression): Boolean = assertions.contains(assertion.canonicalized)

  /** The fields that accesses named as `access` read before; None where there was none. */
  def read(access: FieldReads.Access): Option[Set[String]] = fieldReads.get(access)

  private def eachNode(f: QueryPlan[_] => Unit): Unit =
    plans.foreach(WithSubqueries.foreach(_)(f))

  private def eachExpression(f: PartialFunction[Expression, Unit]): Unit =
    eachNode(_.expressions.foreach(_.foreach(e => f.applyOrElse(e, (_: Expression) => ()))))
}

object Baseline {
  /** Whether `a` declares NOT NULL (itself, nested fields or elements) where `than` does not. */
  def stricter(a: Attribute, than: Attribute): Boolean =
    !((a.nullable || !than.nullable) && LogicalTypes.Exact.conforms(a.dataType, than.dataType))

  /** No plan before: every claim is new. */
  val Empty: Baseline = new Baseline(Nil)
}

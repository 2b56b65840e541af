package planguard.claims

import org.apache.spark.sql.catalyst.expressions.{And, Attribute, AttributeReference, CaseWhen,
  Expression, GetArrayStructFields, GetStructField, If, IsNotNull, IsNull, KnownNotNull, Or}
import org.apache.spark.sql.types.{ArrayType, DataType, StructField, StructType}

import planguard.schema.LogicalTypes

/**
 * What the expressions of one operator claim without backing: references that read another type
 * than their producer outputs or declare NOT NULL what it declares nullable, NOT NULL assertions
 * (`KnownNotNull`) that nothing checks, field accesses that read another field than they name.
 * An assertion is backed where a null test guards it — the branch of `If(IsNull(x), ..., e)` or
 * `CASE WHEN x IS NULL ... ELSE e` where `x` is null never runs `e`, and Spark's own rules
 * (OptimizeCsvJsonExprs, the analyzer's null handling of UDF inputs, encoders) assert NOT NULL of
 * `x` or of an expression of `x` only there — or where the plan before held it.
 */
private[claims] final class ExpressionClaims(producers: Producers, baseline: Baseline,
    types: LogicalTypes, claim: Claim => Unit) {

  def apply(e: Expression): Unit = walk(e, Nil)

  private def walk(e: Expression, guarded: List[Expression]): Unit = e match {
    case a: AttributeReference => reference(a)
    case If(condition, whenTrue, whenFalse) =>
      walk(condition, guarded)
      walk(whenTrue, notNullWhenTrue(condition) ::: guarded)
      walk(whenFalse, notNullWhenFalse(condition) ::: guarded)
    case CaseWhen(branches, otherwise) =>
      var passed = guarded
      branches.foreach { case (condition, value) =>
        walk(condition, passed)
        walk(value, notNullWhenTrue(condition) ::: passed)
        passed = notNullWhenFalse(condition) ::: passed
      }
      otherwise.foreach(walk(_, passed))
    case k @ KnownNotNull(child) =>
      if (child.nullable && !guards(guarded, child) && !baseline.asserted(k)) {
        claim(Claim(short(k), StructField(short(child), child.dataType, nullable = true),
          StructField(short(k), child.dataType, nullable = false),
          "an unchecked NOT NULL assertion (KnownNotNull) that no null test guards"))
      }
      walk(child, guarded)
    case g: GetStructField =>
      structField(g)
      g.children.foreach(walk(_, guarded))
    case g: GetArrayStructFields =>
      arrayStructFields(g)
      g.children.foreach(walk(_, guarded))
    case other => other.children.foreach(walk(_, guarded))
  }

  /** A reference reads its producer's column: its type, and no NOT NULL its producer lacks. */
  private def reference(a: AttributeReference): Unit = {
    val p = producers(a.exprId)
    if (p != null && !(a.dataType == p.dataType && (a.nullable || !p.nullable))) {
      val column = s"${a.name}#${a.exprId.id}"
      val (expected, actual) = (field(p), field(a))
      if (!sameButNullability(a.dataType, p.dataType)) {
        claim(Claim(column, expected, actual,
          s"a reference reads type ${a.dataType.sql} where its producer outputs ${p.dataType.sql}"))
      } else if (!(a.nullable || !p.nullable) ||
          !LogicalTypes.Exact.conforms(a.dataType, p.dataType)) {
        if (!baseline.holds(a) && !baseline.staleBefore(a) && !FileMetadata(p)) {
          claim(Claim(column, expected, actual, "a reference declares NOT NULL what the " +
            "operator producing it declares nullable"))
        }
      }
    }
  }

  /** `s.f` reads the field it names, at a position its input has. */
  private def structField(g: GetStructField): Unit = g.child.dataType match {
    case s: StructType =>
      if (g.ordinal >= s.length) {
        claim(access(g, s, s"reads field #${g.ordinal} of a struct of ${s.length} fields"))
      } else {
        g.name.filterNot(types.sameName(_, s(g.ordinal).name)).foreach { name =>
          claim(access(g, s, s"names field $name but reads field #${g.ordinal}, " +
            s"${s(g.ordinal).name}"))
        }
        readsAsBefore(g, s)
      }
    case _ =>
  }

  /** `a.f` over an array of structs: the field it names, its type, the struct's field count. */
  private def arrayStructFields(g: GetArrayStructFields): Unit = g.child.dataType match {
    case ArrayType(s: StructType, containsNull) =>
      val problem =
        if (g.numFields != s.length) {
          Some(s"expects structs of ${g.numFields} fields, its input's have ${s.length}")
        } else if (g.ordinal >= s.length) {
          Some(s"reads field #${g.ordinal} of a struct of ${s.length} fields")
        } else if (!types.sameName(g.field.name, s(g.ordinal).name)) {
          Some(s"names field ${g.field.name} but reads field #${g.ordinal}, " +
            s"${s(g.ordinal).name}")
        } else if (!LogicalTypes.Exact.conforms(g.field.dataType, s(g.ordinal).dataType)) {
          Some(s"reads type ${g.field.dataType.sql} where its input's field has " +
            s"${s(g.ordinal).dataType.sql}")
        } else if (!g.containsNull && (containsNull || s(g.ordinal).nullable)) {
          Some("declares its elements NOT NULL where its input's field or elements are nullable")
        } else None
      problem match {
        case Some(why) => claim(access(g, s, why))
        case None => readsAsBefore(g, s)
      }
    case _ =>
  }

  private def readsAsBefore(g: Expression, s: StructType): Unit = g match {
    case FieldReads(name, read) => baseline.read(name).filterNot(_.contains(read)).foreach {
      before => claim(access(g, s, s"reads field $read of its input, where an access named " +
        s"${name.name} read ${before.toSeq.sorted.mkString(", ")} before"))
    }
    case _ =>
  }

  private def access(g: Expression, input: StructType, why: String): Claim =
    Claim(short(g), StructField(short(g.children.head), input), StructField(short(g),
      g.dataType, g.nullable), why)

  /** The expressions a true `condition` proves non-null: `x` of a conjunct `x IS NOT NULL`. */
  private def notNullWhenTrue(condition: Expression): List[Expression] = condition match {
    case And(l, r) => notNullWhenTrue(l) ::: notNullWhenTrue(r)
    case IsNotNull(x) => x :: Nil
    case _ => Nil
  }

  /** The expressions a false `condition` proves non-null: `x` of a disjunct `x IS NULL`. */
  private def notNullWhenFalse(condition: Expression): List[Expression] = condition match {
    case Or(l, r) => notNullWhenFalse(l) ::: notNullWhenFalse(r)
    case IsNull(x) => x :: Nil
    case _ => Nil
  }

  /** `e` is proved non-null by a null test of `e` or of one of its inputs. */
  private def guards(guarded: List[Expression], e: Expression): Boolean =
    guarded.exists(g => g.semanticEquals(e) || e.children.exists(_.semanticEquals(g)))

  private def sameButNullability(a: DataType, b: DataType): Boolean =
    LogicalTypes.Exact.conforms(LogicalTypes.asNullable(a), LogicalTypes.asNullable(b))

  private def field(a: Attribute): StructField = StructField(a.name, a.dataType, a.nullable)

  private def short(e: Expression): String = {
    val s = e.toString
    if (s.length <= 100) s else s.take(97) + "..."
  }
}

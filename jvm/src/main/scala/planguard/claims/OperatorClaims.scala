package planguard.claims

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeSet, ExplodeBase,
  ExprId, Expression, Generator}
import org.apache.spark.sql.catalyst.expressions.aggregate.{Complete, Final}
import org.apache.spark.sql.catalyst.plans.{InnerLike, JoinType, LeftSemi, QueryPlan}
import org.apache.spark.sql.catalyst.plans.logical.{Expand, Filter, Generate, GlobalLimit,
  Intersect, Join, LocalLimit, LocalRelation, OneRowRelation, Range, Repartition,
  RepartitionByExpression, Sort, SubqueryAlias, Union}
import org.apache.spark.sql.execution.{BaseLimitExec, CollectLimitExec, ColumnarToRowExec,
  ExpandExec, FileSourceScanExec, FilterExec, GenerateExec, InputAdapter, LocalTableScanExec,
  RangeExec, RDDScanExec, RowToColumnarExec, SortExec, SparkPlan, UnionExec,
  WholeStageCodegenExec}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, LogicalQueryStage,
  QueryStageExec}
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.columnar.{InMemoryRelation, InMemoryTableScanExec}
import org.apache.spark.sql.execution.datasources.v2.{DataSourceV2Relation,
  DataSourceV2ScanExecBase, DataSourceV2ScanRelation}
import org.apache.spark.sql.execution.exchange.{Exchange, ReusedExchangeExec}
import org.apache.spark.sql.execution.joins.{BaseJoinExec, HashJoin, SortMergeJoinExec}
import org.apache.spark.sql.execution.LogicalRDD
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.types.{BooleanType, StructField, StructType}

import planguard.exec.CheckBatchSchemaExec
import planguard.schema.LogicalTypes

/**
 * What one operator, logical or physical, declares without backing (docs/invariants.md, "A NOT
 * NULL is proved where it appears"):
 *
 *  - a column it passes on from a child (the same expression id) declared NOT NULL, or with
 *    NOT NULL fields, where the child's is nullable, unless the operator rejects its nulls: a
 *    filter or an inner or semi join whose condition (or equi-join key) is null when it is null
 *    (NullRejection), an INTERSECT whose other side is NOT NULL there, a union all of whose
 *    children are, an expand all of whose projections are;
 *  - a column it makes declared NOT NULL where what makes it is nullable: an expand's projections,
 *    a generator's elements (or an outer generate's padding), an aggregate function's result;
 *  - a leaf's column declared NOT NULL where the plan before declared it nullable, unless the
 *    leaf's own rows show it (a local relation's) or its source's schema declares it (a file
 *    relation's); the columns of cached, RDD and data source scans are the data's, checked on
 *    their rows as they enter row code (BATCH_SCHEMA);
 *  - in its expressions, what ExpressionClaims finds.
 *
 * A NOT NULL the plan before held for the same column is no new claim (Baseline). Spark's own
 * operators derive their output from their children, but for FilterExec (which tightens it: its
 * proof is checked) and those whose output is a constructor argument (checked as above);
 * another extension's operators are held to the pass-through rule, proved through the logical
 * operator they were planned from.
 */
private[claims] object OperatorClaims {

  /**
   * @param inputs each child's output, as the walk reads it
   * @param output the operator's output, as the walk reads it: read here only where the operator
   *               declares its columns itself (a leaf, an operator not derived), or a reference
   *               declares a column otherwise than its producer
   */
  def apply(op: QueryPlan[_], inputs: Array[Output], output: Output,
      baseline: Baseline, types: LogicalTypes): Seq[Claim] = {
    val found = new Found
    val producers = new Producers(inputs)
    if (inputs.isEmpty) leaf(op, output.attributes, baseline, types).foreach(found.add)
    else {
      passedOn(op, output, producers, baseline, found)
      made(op).foreach(found.add)
    }
    // The alias whose expression is being read: its claims name it.
    var alias: Alias = null
    val expressions = new ExpressionClaims(producers, baseline, types,
      c => found.add(if (alias == null) c else c.in(alias)))
    var outputIds: java.util.HashSet[ExprId] = null
    def outputs(a: Attribute): Boolean = {
      if (outputIds == null) {
        outputIds = new java.util.HashSet[ExprId]()
        output.attributes.foreach(o => outputIds.add(o.exprId))
      }
      outputIds.contains(a.exprId)
    }
    op.expressions.foreach {
      // A column the operator outputs, as a constructor argument declares it (CometFilterExec's
      // output) or a projection passes it on: checked against its producer as passed on, above.
      // One declared as its producer declares it claims nothing (a leaf's have no producer).
      case a: Attribute =>
        val p = producers(a.exprId)
        if (p != null && (a.nullable != p.nullable || a.dataType != p.dataType) && !outputs(a)) {
          expressions(a)
        }
      case a: Alias =>
        alias = a
        expressions(a)
        alias = null
      case e => expressions(e)
    }
    found.claims
  }

  /** An operator's claims, one per column, in the order found; nothing allocated for none. */
  private final class Found {
    private var byColumn: mutable.LinkedHashMap[String, Claim] = null

    def add(c: Claim): Unit = {
      if (byColumn == null) byColumn = mutable.LinkedHashMap.empty
      if (!byColumn.contains(c.column)) byColumn(c.column) = c
    }

    def claims: Seq[Claim] = if (byColumn == null) Nil else byColumn.values.toSeq
  }

  /**
   * The columns `op` passes on declared otherwise than its children declare them. A column that is
   * its children's column at the same position, the same object, is passed on as declared (a
   * filter's, a sort's, an exchange's, an inner join's, a projection's leading columns): its
   * producer is not looked up.
   */
  private def passedOn(op: QueryPlan[_], output: Output, producers: Producers,
      baseline: Baseline, found: Found): Unit = if (!derived(op)) {
    val inputs = producers.inputs
    val passed = if (inputs.length == 1) inputs(0).attributes.iterator
      else inputs.iterator.flatMap(_.attributes.iterator)
    val outputs = output.attributes.iterator
    var i = 0
    while (outputs.hasNext) {
      val o = outputs.next()
      if (!(passed.hasNext && (passed.next() eq o))) {
        passedOn(op, o, i, producers(o.exprId), baseline).foreach(found.add)
      }
      i += 1
    }
  }

  private def passedOn(op: QueryPlan[_], o: Attribute, i: Int, p: Attribute, baseline: Baseline)
      : Option[Claim] =
    if (p == null || LogicalTypes.Exact.conforms(o.dataType, p.dataType) &&
        (o.nullable || !p.nullable)) {
      None
    } else if (!LogicalTypes.Exact.conforms(LogicalTypes.asNullable(o.dataType),
        LogicalTypes.asNullable(p.dataType))) {
      Some(Claim(column(o), field(p), field(o),
        s"declares type ${o.dataType.sql} for the column its child outputs as ${p.dataType.sql}"))
    } else if (proved(op, o, i) || baseline.holds(o)) None
    else Some(Claim(column(o), field(p), field(o), "declares NOT NULL a column its child " +
      "declares nullable, and rejects none of its nulls"))

  /** Whether `op` itself makes its `i`th column `o` hold no null. */
  private def proved(op: QueryPlan[_], o: Attribute, i: Int): Boolean = op match {
    case f: Filter => NullRejection.of(f.condition).contains(o)
    case f: FilterExec => NullRejection.of(f.condition).contains(o)
    case j: Join if rejectsUnmatched(j.joinType) =>
      j.condition.exists(NullRejection.of(_).contains(o))
    case j: BaseJoinExec if rejectsUnmatched(j.joinType) =>
      j.condition.exists(NullRejection.of(_).contains(o)) || (j match {
        case _: HashJoin | _: SortMergeJoinExec =>
          NullRejection.ofKeys(j.leftKeys ++ j.rightKeys).contains(o)
        case _ => false
      })
    case s: Intersect => !s.left.output(i).nullable || !s.right.output(i).nullable
    case u: Union => u.children.forall(c => i < c.output.length && !c.output(i).nullable)
    case u: UnionExec => u.children.forall(c => i < c.output.length && !c.output(i).nullable)
    case e: Expand => e.projections.forall(p => i < p.length && !p(i).nullable)
    case e: ExpandExec => e.projections.forall(p => i < p.length && !p(i).nullable)
    // planguard's own check proves what it checks on every row (PlaceBatchChecks' entries).
    case c: CheckBatchSchemaExec => c.sampler.provesNotNull(o)
    case p: SparkPlan if !spark(p) =>
      p.logicalLink.exists(l => l != op && proved(l, o, i)) || filterShaped(p) &&
        p.expressions.exists(NullRejection.of(_).contains(o))
    case _ => false
  }

  /**
   * Another extension's filter without a logical link (Comet's CometFilterExec, placed by a
   * preparation rule): one child whose columns it passes on, nothing computed but conditions.
   */
  private def filterShaped(p: SparkPlan): Boolean = p.children.length == 1 &&
    p.output.map(_.exprId) == p.children.head.output.map(_.exprId) && {
      val computed = p.expressions.filterNot(_.isInstanceOf[Attribute])
      computed.nonEmpty && computed.forall(_.dataType == BooleanType)
    }

  private def rejectsUnmatched(joinType: JoinType) =
    joinType match {
      case _: InnerLike | LeftSemi => true
      case _ => false
    }

  /** The columns an operator makes from what it computes, declared NOT NULL where that is not. */
  private def made(op: QueryPlan[_]): Seq[Claim] = op match {
    case e: Expand => expanded(e.projections, e.output, e.child.outputSet)
    case e: ExpandExec => expanded(e.projections, e.output, e.child.outputSet)
    case g: Generate => generated(g.qualifiedGeneratorOutput, g.generator, outer = false)
    case g: GenerateExec => generated(g.generatorOutput, g.generator, g.outer)
    case a: BaseAggregateExec =>
      a.aggregateExpressions.zip(a.aggregateAttributes).collect {
        case (e, attr) if (e.mode == Final || e.mode == Complete) && !attr.nullable &&
            e.nullable =>
          Claim(column(attr), field(attr).copy(nullable = true), field(attr),
            s"an aggregate result declared NOT NULL where ${e.aggregateFunction.prettyName} " +
              "is nullable")
      }
    case _ => Nil
  }

  private def expanded(projections: Seq[Seq[Expression]],
      output: Seq[Attribute], passed: AttributeSet): Seq[Claim] =
    output.zipWithIndex.collect {
      case (o, i) if !o.nullable && !passed.contains(o) &&
          projections.exists(p => i >= p.length || p(i).nullable) =>
        Claim(column(o), field(o).copy(nullable = true), field(o),
          "an expand declares NOT NULL a column one of its projections makes nullable")
    }

  /**
   * An outer generate's columns are padded with nulls; an explode's are its array's elements,
   * which its element schema describes exactly (other generators' element schemas are not
   * exact: ReplicateRows, which Spark plans for INTERSECT ALL, declares every element nullable).
   */
  private def generated(output: Seq[Attribute], generator: Generator, outer: Boolean)
      : Seq[Claim] = {
    val elements = generator match {
      case e: ExplodeBase => e.elementSchema.fields.toSeq.map(_.nullable)
      case _ => output.map(_ => false)
    }
    output.zip(elements).collect {
      case (o, nullable) if !o.nullable && (outer || nullable) =>
        Claim(column(o), field(o).copy(nullable = true), field(o),
          if (outer) "an outer generate declares NOT NULL a column it pads with nulls"
          else "a generate declares NOT NULL a column its generator makes nullable")
    }
  }

  private def leaf(op: QueryPlan[_], output: Seq[Attribute], baseline: Baseline,
      types: LogicalTypes): Seq[Claim] =
    op match {
      // An adaptive plan below a command (a Hive directory insert's query) outputs its plan's
      // columns, which are checked as its stages and final plan are prepared.
      case _: Range | _: RangeExec | _: OneRowRelation | _: LogicalQueryStage | _: QueryStageExec |
           _: AdaptiveSparkPlanExec | _: ReusedExchangeExec | _: InMemoryRelation | _: InMemoryTableScanExec |
           _: LogicalRDD | _: RDDScanExec | _: DataSourceV2Relation | _: DataSourceV2ScanRelation |
           _: DataSourceV2ScanExecBase => Nil
      case l: LocalRelation => local(l.output, l.data, baseline)
      case l: LocalTableScanExec => local(l.output, l.rows, baseline)
      // A file relation declaring what its source's schema declares (a Delta table's NOT NULL
      // column, which Delta's writes enforce, where Delta reads the table's files again with the
      // table's schema), or its file metadata column (`_metadata`, made by the scan for every
      // row): the data's, checked as it enters row code.
      case l: LogicalRelation =>
        renewed(l, output, baseline, fromSource(l.relation.schema, types))
      case f: FileSourceScanExec =>
        renewed(f, output, baseline, fromSource(f.relation.schema, types))
      case _ => renewed(op, output, baseline, _ => false)
    }

  private def fromSource(source: StructType, types: LogicalTypes)(o: Attribute): Boolean =
    FileMetadata(o) || source.exists(f => !f.nullable && types.sameName(f.name, o.name))

  private def renewed(op: QueryPlan[_], output: Seq[Attribute], baseline: Baseline,
      declared: Attribute => Boolean): Seq[Claim] = output.collect {
    case o if !o.nullable && baseline.knows(o) && !baseline.holds(o) && !declared(o) =>
      Claim(column(o), field(o).copy(nullable = true), field(o),
        s"${op.nodeName} declares NOT NULL a column the plan before declared nullable")
  }

  /**
   * A local relation's NOT NULL columns, new ones checked on its rows: one a leaf declared
   * nullable before cannot be proved so, as the optimizer folds projections over the rows by the
   * new declaration (reading a null as 0) before they are seen here.
   */
  private def local(output: Seq[Attribute], rows: Seq[InternalRow], baseline: Baseline)
      : Seq[Claim] =
    output.zipWithIndex.collect {
      case (o, i) if !o.nullable && !baseline.holds(o) && baseline.nullableLeaf(o) =>
        Claim(column(o), field(o).copy(nullable = true), field(o),
          "a local relation declares NOT NULL a column its rows were declared nullable in")
      case (o, i) if !o.nullable && !baseline.holds(o) && rows.exists(_.isNullAt(i)) =>
        Claim(column(o), field(o).copy(nullable = true), field(o),
          "a local relation declares NOT NULL a column whose rows hold a null")
    }

  /**
   * Spark's operators whose output Spark derives from their children's alone, declaring nothing of
   * their own (a union's nullability is the most nullable child's, an outer join pads its side
   * nullable, an intersection keeps what either side holds): nothing they pass on is a new claim. Not
   * a filter's physical operator, which tightens the columns its condition proves non-null (its
   * proof is checked), nor a projection, which passes its references on as they declare.
   */
  private def derived(op: QueryPlan[_]): Boolean = (op match {
    case _: Union | _: Join | _: Filter | _: Intersect | _: Sort | _: GlobalLimit | _: LocalLimit |
         _: Repartition | _: RepartitionByExpression | _: SubqueryAlias => true
    case _: UnionExec | _: BaseJoinExec | _: SortExec | _: Exchange | _: BaseLimitExec |
         _: CollectLimitExec | _: WholeStageCodegenExec | _: InputAdapter | _: ColumnarToRowExec |
         _: RowToColumnarExec => true
    case _ => false
  }) && spark(op)

  /** Spark's own operators, whose output Spark derives (see the object's comment). */
  private def spark(op: QueryPlan[_]): Boolean = sparks.get(op.getClass)

  /** By class, decided once per class rather than once per operator read. */
  private val sparks = new ClassValue[java.lang.Boolean] {
    override def computeValue(c: Class[_]): java.lang.Boolean = {
      val name = c.getName
      name.startsWith("org.apache.spark.sql.execution.") ||
        name.startsWith("org.apache.spark.sql.catalyst.")
    }
  }

  private def column(a: Attribute): String = s"${a.name}#${a.exprId.id}"

  private def field(a: Attribute): StructField = StructField(a.name, a.dataType, a.nullable)
}

package planguard

import scala.util.Try

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.functions._

import planguard.errors.PlanGuardConfException
import planguard.rules.ApplySpecNames

/** spark.planguard.naming=spec: docs/naming.md's rules, SQL and DataFrame API; user names kept. */
class NamingSuite extends SparkSessions {

  /** docs/naming.md's example tables, as temp views: columns are qualified with t1 and t2. */
  private def namingSession(naming: String, confs: (String, String)*): SparkSession = {
    assume(naming != "spec" || ApplySpecNames.supported, "naming=spec needs Spark 4.0")
    val spark = newSession(Seq(planguard), Seq("spark.planguard.naming" -> naming) ++ confs: _*)
    spark.sql("SELECT * FROM VALUES (1, 'foo'), (2, 'bar') AS t(id, a)")
      .createOrReplaceTempView("t1")
    spark.sql("SELECT * FROM VALUES (1, 'hello'), (2, 'world') AS t(id, b)")
      .createOrReplaceTempView("t2")
    spark
  }

  private lazy val spec = namingSession("spec")

  private def names(df: DataFrame): Seq[String] = df.columns.toSeq
  private def sqlNames(query: String): Seq[String] = names(spec.sql(query))

  // Four example queries of docs/naming.md, with the names its rules give: operator expressions
  // are wrapped in parentheses (`(t1.id + abs(t1.id))`).
  private val documentedExamples = Seq(
    "SELECT t1.id, a, t2.id, b FROM t1 JOIN t2 ON t1.id = t2.id" -> Seq("id", "a", "id", "b"),
    "SELECT ABS(t1.id), abs(-id) FROM t1" -> Seq("abs(t1.id)", "abs((- t1.id))"),
    "SELECT t1.id + ABS(id), ABS(id * t1.id) FROM t1" ->
      Seq("(t1.id + abs(t1.id))", "abs((t1.id * t1.id))"),
    "SELECT 1, 2+5, 'foo_bar'" -> Seq("1", "(2 + 5)", "foo_bar"))

  for ((query, expected) <- documentedExamples) {
    test(s"documented example in SQL: $query") {
      assert(sqlNames(query) == expected)
    }
  }

  test("documented examples through the DataFrame API") {
    val t1 = spec.table("t1")
    val t2 = spec.table("t2")
    assert(names(t1.join(t2, t1("id") === t2("id")).select(t1("id"), col("a"), t2("id"),
      col("b"))) == Seq("id", "a", "id", "b"))
    assert(names(t1.select(abs(t1("id")), abs(-col("id")))) ==
      Seq("abs(t1.id)", "abs((- t1.id))"))
    assert(names(t1.select(t1("id") + abs(col("id")), abs(col("id") * t1("id")))) ==
      Seq("(t1.id + abs(t1.id))", "abs((t1.id * t1.id))"))
    assert(names(spec.range(1).select(lit(1), lit(2) + lit(5), lit("foo_bar"))) ==
      Seq("1", "(2 + 5)", "foo_bar"))
  }

  private val rules = Seq(
    // rule: a bare column has no qualifier
    "bare columns" -> ("SELECT t1.id, t1.a, id FROM t1", Seq("id", "a", "id")),
    // rule: columns inside compound expressions are qualified, at any depth
    "nested functions" -> ("SELECT upper(lower(concat(a, 'x'))), round(abs(id * 2.5), 1) FROM t1",
      Seq("upper(lower(concat(t1.a, x)))", "round(abs((t1.id * 2.5)), 1)")),
    "subquery alias qualifies" -> ("SELECT s.id + 1 FROM (SELECT id FROM t1) AS s",
      Seq("(s.id + 1)")),
    "table alias qualifies" -> ("SELECT x.id * y.id FROM t1 x JOIN t2 y ON x.id = y.id",
      Seq("(x.id * y.id)")),
    // rule: function names are lowercase
    "function names" -> ("SELECT ABS(id), Upper(a), COALESCE(a, 'z'), SUM(id) OVER () FROM t1",
      Seq("abs(t1.id)", "upper(t1.a)", "coalesce(t1.a, z)",
        "sum(t1.id) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)")),
    "window function names" -> ("SELECT RANK() OVER (ORDER BY id) FROM t1",
      Seq("rank() OVER (ORDER BY t1.id ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING " +
        "AND CURRENT ROW)")),
    "casts" -> ("SELECT CAST(id AS STRING), CAST(id + 1 AS BIGINT), TRY_CAST(a AS INT) FROM t1",
      Seq("cast(t1.id AS STRING)", "cast((t1.id + 1) AS BIGINT)", "try_cast(t1.a AS INT)")),
    "implicit casts stay invisible" -> ("SELECT id + 1.5 FROM t1", Seq("(t1.id + 1.5)")),
    "DISTINCT aggregates" -> ("SELECT COUNT(DISTINCT id), sum(DISTINCT id), AVG(id) FROM t1",
      Seq("count(DISTINCT t1.id)", "sum(DISTINCT t1.id)", "avg(t1.id)")),
    // rule: string literals are unquoted; other literals keep Spark's SQL form
    "literals" -> ("SELECT 'foo', 7, 7L, 2.5, 1e3, true, NULL, DATE '2020-01-01', X'01'",
      Seq("foo", "7", "7_2", "2.5", "1000.0", "true", "NULL", "DATE '2020-01-01'", "X'01'")),
    "literals in functions" -> ("SELECT concat(a, '-', 'b'), nvl(a, 'z') FROM t1",
      Seq("concat(t1.a, -, b)", "nvl(t1.a, z)")),
    // rule: operators are parenthesised with spaces around the operator
    "unary minus" -> ("SELECT -2, -id, - (id + 1), negative(id), -2.5 FROM t1",
      Seq("(- 2)", "(- t1.id)", "(- (t1.id + 1))", "(- t1.id)_2", "(- 2.5)")),
    "binary operators" -> ("SELECT 1+2, id % 2, id = 1, id <=> 1, NOT id > 1, a || 'x' FROM t1",
      Seq("(1 + 2)", "(t1.id % 2)", "(t1.id = 1)", "(t1.id <=> 1)", "(NOT (t1.id > 1))",
        "concat(t1.a, x)")),
    "CASE" -> ("SELECT CASE WHEN id > 1 THEN a ELSE 'x' END FROM t1",
      Seq("CASE WHEN (t1.id > 1) THEN t1.a ELSE x END")),
    "IN" -> ("SELECT id IN (1, 2), id NOT IN (3) FROM t1",
      Seq("(t1.id IN (1, 2))", "(NOT (t1.id IN (3)))")),
    "LIKE" -> ("SELECT a LIKE 'f%', a NOT LIKE 'b%' FROM t1",
      Seq("(t1.a LIKE f%)", "(NOT (t1.a LIKE b%))")),
    "BETWEEN" -> ("SELECT id BETWEEN 1 AND 2 FROM t1", Seq("(t1.id BETWEEN 1 AND 2)")),
    // rule: function arguments are separated by ", "
    "arguments" -> ("SELECT greatest(id,2,3), substr(a,1,2) FROM t1",
      Seq("greatest(t1.id, 2, 3)", "substr(t1.a, 1, 2)")),
    // the names travel: stars, subqueries and CTEs see the renamed columns
    "star expansion" -> ("SELECT * FROM (SELECT abs(id), a FROM t1)", Seq("abs(t1.id)", "a")),
    "qualified star" -> ("SELECT s.* FROM (SELECT id + 1 FROM t1) s", Seq("(t1.id + 1)")),
    "CTE" -> ("WITH c AS (SELECT abs(id) FROM t1) SELECT * FROM c JOIN c d ON true",
      Seq("abs(t1.id)", "abs(t1.id)")),
    "aggregates with HAVING and ORDER BY" ->
      ("SELECT a, sum(id) FROM t1 GROUP BY a HAVING sum(id) > 0 ORDER BY sum(id)",
        Seq("a", "sum(t1.id)")),
    // two different expressions never share a name: the later one gets the first free _N
    "disambiguation" -> ("SELECT 1, '1', id, 'id', id + 1, id + 1 FROM t1",
      Seq("1", "1_2", "id", "id_2", "(t1.id + 1)", "(t1.id + 1)_2")),
    "user names are never changed" ->
      ("SELECT id + 1 AS x, abs(id) AS `abs(id)`, id AS `t1.id`, 'q' AS `q`, 'q' FROM t1",
        Seq("x", "abs(id)", "t1.id", "q", "q_2")))

  for ((rule, (query, expected)) <- rules) {
    test(s"spec mode, SQL: $rule") {
      assert(sqlNames(query) == expected)
    }
  }

  test("spec mode, DataFrame API: operators, functions, casts, aggregates") {
    val t1 = spec.table("t1")
    assert(names(t1.select(-col("id"), negate(col("id") + 1), lit(-2), col("id").between(1, 2),
      col("id").isin(1, 2), col("a").like("f%"), col("id").cast("string"), col("id").isNull,
      when(col("id") > 1, "x").otherwise(col("a")), upper(col("a")))) ==
      Seq("(- t1.id)", "(- (t1.id + 1))", "(- 2)", "((t1.id >= 1) AND (t1.id <= 2))",
        "(t1.id IN (1, 2))", "(t1.a LIKE f%)", "cast(t1.id AS STRING)", "(t1.id IS NULL)",
        "CASE WHEN (t1.id > 1) THEN x ELSE t1.a END", "upper(t1.a)"))
    assert(names(t1.groupBy("a").agg(sum("id"), countDistinct("id"), count("*"))) ==
      Seq("a", "sum(t1.id)", "count(DISTINCT t1.id)", "count(1)"))
    assert(names(t1.agg(max("id"))) == Seq("max(t1.id)"))
    assert(names(t1.as("q").select(col("q.id") + 1)) == Seq("(q.id + 1)"))
    assert(names(t1.selectExpr("id + 1", "abs(id)")) == Seq("(t1.id + 1)", "abs(t1.id)"))
    spec.udf.register("MyUdf", (x: Int) => x + 1)
    assert(names(t1.select(call_function("MyUdf", col("id")))) == Seq("myudf(t1.id)"))
  }

  test("spec mode, DataFrame API: names the user wrote are never changed") {
    val t1 = spec.table("t1")
    assert(names(t1.select((col("id") + 1).alias("y"), col("id").as("(id + 1)"),
      expr("abs(id) AS `abs(id)`"))) == Seq("y", "(id + 1)", "abs(id)"))
    assert(names(t1.withColumn("c", col("id") * 2)) == Seq("id", "a", "c"))
    assert(names(t1.groupBy("a").count()) == Seq("a", "count"))
    assert(names(t1.groupBy("a").agg(expr("sum(id) AS s"))) == Seq("a", "s"))
    assert(names(t1.select(col("id") + 1).toDF("z")) == Seq("z"))
  }

  test("spec mode keeps every exprId and node: only names change") {
    val spark = namingSession("spark")
    val df = spark.sql("SELECT abs(-id), id + 1, 'x', a FROM t1 WHERE id > 0 ORDER BY 1")
    val before = df.queryExecution.analyzed
    spark.conf.set("spark.planguard.naming", "spec")
    SparkSession.setActiveSession(spark) // the rule reads the active session's conf
    val after = ApplySpecNames(spark)(unanalyzed(before))
    assert(after.output.map(_.name) == Seq("abs((- t1.id))", "(t1.id + 1)", "x", "a"))
    assert(after.output.map(_.exprId) == before.output.map(_.exprId))
    assert(withoutNames(after) == withoutNames(before))
    assert(ApplySpecNames(spark)(unanalyzed(after)) == after, "renaming is idempotent")
  }

  /** A copy of every node: the rule, like every analyzer rule, leaves analyzed plans alone. */
  private def unanalyzed(plan: LogicalPlan): LogicalPlan = {
    val children = plan.children.map(unanalyzed)
    plan.makeCopy(plan.productIterator.map {
      case child: LogicalPlan => children(plan.children.indexWhere(_ eq child))
      case arg => arg.asInstanceOf[AnyRef]
    }.toArray)
  }

  private def withoutNames(plan: LogicalPlan): LogicalPlan = plan.transformAllExpressions {
    case a: Alias => Alias(a.child, "")(a.exprId, a.qualifier, a.explicitMetadata,
      a.nonInheritableMetadataKeys)
    case a: AttributeReference => a.withName("")
  }

  test("naming=spark, the default, leaves every name as Spark makes it; so does the kill switch") {
    val plain = newSession(Nil)
    val queries = documentedExamples.map(_._1) ++ rules.map(_._2._1)
    def allNames(spark: SparkSession) = {
      Seq("t1" -> "SELECT * FROM VALUES (1, 'foo'), (2, 'bar') AS t(id, a)",
        "t2" -> "SELECT * FROM VALUES (1, 'hello'), (2, 'world') AS t(id, b)")
        .foreach { case (v, q) => spark.sql(q).createOrReplaceTempView(v) }
      // The same outcome: on a Spark that rejects a query (3.5, HAVING with ORDER BY an
      // aggregate), the same error.
      queries.map(q => Try(names(spark.sql(q))).toEither.left.map(_.getClass.getName))
    }
    val expected = allNames(plain)
    assert(expected.head == Right(Seq("id", "a", "id", "b")))
    // Sessions share the SparkContext's conf, which an earlier test may have set to spec.
    assert(allNames(newSession(Seq(planguard), "spark.planguard.naming" -> "spark")) == expected)
    assert(allNames(newSession(Seq(planguard), "spark.planguard.naming" -> "spec",
      "spark.planguard.enabled" -> "false")) == expected)
  }

  test("a DataFrame keeps the names it was analyzed with") {
    val spark = namingSession("spark")
    val df = spark.table("t1").select(abs(col("id")))
    spark.conf.set("spark.planguard.naming", "spec")
    assert(names(df.select(col("abs(id)") + 1)) == Seq("(abs(id) + 1)"))
  }

  test("an invalid naming value is refused where it is set, and the old value stays") {
    val spark = namingSession("spec")
    val e = intercept[PlanGuardConfException](spark.sql("SET spark.planguard.naming = datafusion"))
    assert(e.getMessage.contains("[PLANGUARD_INVALID_CONF]"))
    assert(e.getMessage.contains("'spark', 'spec'"))
    assert(spark.conf.get("spark.planguard.naming") == "spec")
    assert(spark.sql("SELECT 1").collect().length == 1)
  }

}

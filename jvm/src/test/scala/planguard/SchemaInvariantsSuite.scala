package planguard

import org.apache.spark.sql.catalyst.expressions.NamedExpression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.functions.col

import planguard.checks.UniqueFieldCheck
import planguard.errors.InvariantViolation
import planguard.report.ViolationLog
import planguard.testing._

/** PLANNING_SCHEMA, PHYSICAL_SCHEMA, UNIQUE_FIELD, the report and rule attribution. */
class SchemaInvariantsSuite extends SparkSessions {

  private val ColumnarCulprit =
    "planguard.testing.ReverseRootProjectExec (columnar rule, before transitions)"

  private def orders(other: Extension): Seq[(String, Seq[Extension])] =
    Seq("planguard first" -> Seq(planguard, other), "planguard last" -> Seq(other, planguard))


  for ((order, extensions) <- orders(new ReversingProjectStrategyExtension);
       adaptive <- adaptiveModes) {
    test(s"PLANNING_SCHEMA catches a planner strategy that reorders a projection " +
      s"($order, adaptive=$adaptive)") {
      val spark = session(extensions, adaptive)
      projectedQueries(spark).foreach { df =>
        val e = intercept[InvariantViolation](df.collect())
        assert(e.invariantId == "PLANNING_SCHEMA")
        assert(e.phase == "physical planning")
        assert(e.actual.fieldNames.toSeq == Seq("b", "a"))
        assert(e.ruleName ==
          "planguard.testing.ReversingProjectStrategy (planner strategy, planning Project)")
      }
    }
  }

  for ((order, extensions) <- orders(new ReverseRootProjectExecExtension)) {
    test(s"PHYSICAL_SCHEMA catches a preparation rule that reorders the root ($order)") {
      val spark = session(extensions, adaptive = false)
      projectedQueries(spark).foreach { df =>
        val e = intercept[InvariantViolation](df.collect())
        assert(e.invariantId == "PHYSICAL_SCHEMA")
        assert(e.phase == "preparation")
        assert(e.ruleName == ColumnarCulprit)
      }
    }

    test(s"PHYSICAL_SCHEMA catches it in the final adaptive stage ($order)") {
      val spark = session(extensions, adaptive = true)
      val e = intercept[InvariantViolation](projectedQueries(spark)(1).collect())
      assert(e.invariantId == "PHYSICAL_SCHEMA")
      assert(e.ruleName == ColumnarCulprit)
    }
  }

  for ((order, extensions) <- orders(new SwapRootColumnsRuntimeExtension)) {
    test(s"OPTIMIZER_SCHEMA catches an adaptive runtime rule that reorders the root ($order)") {
      val spark = session(extensions, adaptive = true)
      val e = intercept[InvariantViolation](projectedQueries(spark)(1).collect())
      assert(e.invariantId == "OPTIMIZER_SCHEMA")
      assert(e.phase == "adaptive re-optimization")
      assert(e.ruleName == "planguard.testing.SwapRootColumns (adaptive runtime optimizer rule)")
    }
  }

  for ((order, extensions) <- orders(new ReverseRootProjectExecStagePrepExtension)) {
    test(s"PHYSICAL_SCHEMA catches a query-stage preparation rule that reorders the root ($order)") {
      val spark = session(extensions, adaptive = true)
      val e = intercept[InvariantViolation](projectedQueries(spark)(1).collect())
      assert(e.invariantId == "PHYSICAL_SCHEMA")
      assert(e.ruleName ==
        "planguard.testing.ReverseRootProjectExec (adaptive query-stage preparation rule)")
    }
  }

  for (adaptive <- adaptiveModes) {
    test(s"the rule that broke OPTIMIZER_SCHEMA is named (adaptive=$adaptive)") {
      val spark = session(Seq(planguard, new SwapRootColumnsExtension), adaptive)
      val e = intercept[InvariantViolation](projectedQueries(spark).head.collect())
      assert(e.ruleName ==
        "planguard.testing.SwapRootColumns (batch Operator Optimization before Inferring Filters)")
      assert(e.getMessage.contains("Rule: planguard.testing.SwapRootColumns"))
    }

    test(s"UNIQUE_FIELD warns on an ambiguous join, not on legal duplicates (adaptive=$adaptive)") {
      val spark = session(Seq(planguard), adaptive)
      val t = spark.range(5).selectExpr("id", "id * 2 as v")
      val legal = warningsDuring {
        t.selectExpr("id", "id").collect()
        t.as("a").join(t.as("b"), col("a.id") === col("b.v")).collect()
        spark.sql("SELECT 1 AS x, 2 AS X").collect() // two columns, one name case-insensitively
        // USING joins, step by step: the join under each USING projection outputs both sides'
        // keys, Spark's plumbing; the projection keeps one.
        (1 to 5).foldLeft(t) { (df, i) =>
          df.join(spark.range(3).selectExpr("id", s"id * $i AS w$i"), Seq("id"), "left")
        }.collect()
      }
      assert(legal.count(_.contains("UNIQUE_FIELD")) == 1, legal) // only x and X
      val other = spark.range(5).selectExpr("id", "id * 3 as w")
      val ambiguous = warningsDuring(t.join(other, t("id") === other("id")).collect())
      assert(ambiguous.size == 1, ambiguous)
      assert(ambiguous.head.contains("[PLANGUARD_UNIQUE_FIELD]") && ambiguous.head.contains("id"))
      // Wide outputs (more than 32 columns) are checked another way: the same answers.
      val wide = (0 until 40).map(i => s"id AS c$i")
      val widely = warningsDuring {
        spark.range(3).selectExpr(wide :+ "c0": _*).collect()
        spark.range(3).selectExpr(wide :+ "id AS C39": _*).collect()
      }
      assert(widely.size == 1 && widely.head.contains("C39"), widely)
    }

    test(s"UNIQUE_FIELD looks into subqueries (adaptive=$adaptive)") {
      val spark = session(Seq(planguard), adaptive)
      spark.range(5).selectExpr("id", "id * 2 AS v").createOrReplaceTempView("u")
      val legal = warningsDuring {
        spark.sql("SELECT id FROM u WHERE id IN (SELECT a.id FROM u a JOIN u b ON a.id = b.v)")
          .collect()
        spark.sql("SELECT (SELECT max(v) FROM u) AS m").collect()
      }
      assert(legal.isEmpty, legal)
      // Self joins without aliases: two different columns are both u.id.
      for (sql <- Seq("SELECT id FROM u x WHERE EXISTS (SELECT * FROM u JOIN u WHERE x.id > 0)",
          "SELECT (SELECT count(*) FROM (SELECT * FROM u JOIN u USING (v))) AS c")) {
        val clashes = warningsDuring(spark.sql(sql).collect())
        assert(clashes.nonEmpty && clashes.forall(_.contains("[PLANGUARD_UNIQUE_FIELD]")), clashes)
        assert(clashes.exists(_.contains("u.id names different columns")), clashes)
      }
    }

    test(s"UNIQUE_FIELD at fail fails every query with the clash, not only the first " +
      s"(adaptive=$adaptive)") {
      val spark = session(Seq(planguard), adaptive, "spark.planguard.check.UNIQUE_FIELD" -> "warn")
      val t = spark.range(5).selectExpr("id", "id * 2 as v")
      val other = spark.range(5).selectExpr("id", "id * 3 as w")
      val joined = t.join(other, t("id") === other("id"))
      spark.conf.set("spark.planguard.check.UNIQUE_FIELD", "fail")
      for (_ <- 1 to 2) {
        val e = intercept[InvariantViolation](joined.select(t("id")).collect())
        assert(e.invariantId == "UNIQUE_FIELD" && e.phase == Phase.Analysis)
      }
    }
  }

  test("UNIQUE_FIELD derives each node's columns as Spark's output: relation, name and id") {
    val spark = session(Seq(planguard), adaptive = false)
    spark.range(6).selectExpr("id", "id % 3 AS k", "array(id, id) AS xs").createOrReplaceTempView("a")
    spark.range(4).selectExpr("id", "id * 2 AS v").createOrReplaceTempView("b")
    val queries = Seq(
      "SELECT * FROM a JOIN b ON a.id = b.id",
      "SELECT * FROM a x LEFT JOIN b y ON x.id = y.id RIGHT JOIN b z ON z.v = x.k",
      "SELECT * FROM a FULL OUTER JOIN b USING (id) CROSS JOIN b c",
      "SELECT * FROM a LEFT SEMI JOIN b ON a.id = b.id LEFT ANTI JOIN b c ON a.k = c.v",
      "SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.id = a.id) OR a.k > 1",
      "SELECT * FROM (SELECT * FROM a, b WHERE a.id = b.v ORDER BY a.k LIMIT 3) t",
      "SELECT DISTINCT k FROM a UNION ALL SELECT v FROM b UNION SELECT id FROM a",
      "WITH c AS (SELECT k, count(*) AS n FROM a GROUP BY k) SELECT * FROM c c1 JOIN c c2 USING (k)",
      "SELECT k, sum(id) OVER (PARTITION BY k ORDER BY id) AS s FROM a",
      "SELECT k, x FROM a LATERAL VIEW explode(xs) e AS x",
      "SELECT k, count(*) FROM a GROUP BY CUBE (k, id)",
      "SELECT (SELECT max(v) FROM b WHERE b.id = a.id) AS m, * FROM a")
    for (sql <- queries) {
      val columns = new java.util.IdentityHashMap[LogicalPlan, Seq[NamedExpression]]()
      def walk(node: LogicalPlan): Unit = {
        node.children.foreach(walk)
        node.subqueries.foreach(walk)
        columns.put(node, UniqueFieldCheck.columnsOf(node)(columns.get))
        def keys(output: Seq[NamedExpression]) = output.map(a => (a.qualifier, a.name, a.exprId))
        assert(keys(columns.get(node)) == keys(node.output), s"${node.nodeName} in $sql")
      }
      walk(spark.sql(sql).queryExecution.analyzed)
    }
  }

  test("violations are kept in the session's report, fail and warn alike") {
    val spark = session(Seq(planguard, new SwapRootColumnsExtension), adaptive = false)
    intercept[InvariantViolation](projectedQueries(spark).head.collect())
    spark.conf.set("spark.planguard.mode", "warn")
    projectedQueries(spark).head.collect()
    val records = ViolationLog.records(spark)
    assert(records.map(r => (r.id, r.level, r.phase)) == Seq(
      ("OPTIMIZER_SCHEMA", "fail", "optimization"), ("OPTIMIZER_SCHEMA", "warn", "optimization")))
    assert(records.head.rule.exists(_.startsWith("planguard.testing.SwapRootColumns (batch ")))
    assert(records.head.expected == "a INT NOT NULL, b BIGINT NOT NULL")
    assert(ViolationLog.json(spark).contains("\"id\":\"OPTIMIZER_SCHEMA\""))
    assert(ViolationLog.records(session(Seq(planguard), adaptive = false)).isEmpty)
  }
}

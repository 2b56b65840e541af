package planguard

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions.{col, count, max}
import org.apache.spark.sql.types.{LongType, StructField, StructType}

import org.apache.spark.sql.planguard.testing.UncheckedRows

import planguard.errors.InvariantViolation
import planguard.report.ViolationLog
import planguard.testing._

/**
 * "A NOT NULL is proved where it appears, and every reference reads what it names": broken rules
 * at every phase that declare NOT NULL what holds nulls, or make an access read another field,
 * each turning rows wrong without planguard (asserted), each caught with planguard listed before
 * and after it, adaptive execution on and off, naming the invariant, phase, rule and column.
 */
class NotNullSuite extends SparkSessions {

  /** A query whose `v` holds nulls: a projection over a scan, and over a shuffled join. */
  private def queries(spark: SparkSession): Seq[DataFrame] = {
    val left = spark.range(12).selectExpr("id AS k", "IF(id % 3 = 0, NULL, id) AS v")
    val right = spark.range(12).selectExpr("id AS k2", "id * 2 AS b")
    Seq(spark.range(6).selectExpr("id", "IF(id % 2 = 0, NULL, id * 10) AS v"),
      left.join(right, col("k") === col("k2")).selectExpr("v", "b"))
  }

  private def violation(e: Throwable): Option[InvariantViolation] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst {
      case v: InvariantViolation => v
    }

  private def nulls(rows: Seq[Row], column: String): Int =
    rows.count(r => r.isNullAt(r.fieldIndex(column)))

  /**
   * A broken rule, the phases it runs at (`adaptive` modes), and what planguard must report: its
   * invariant, phase and the rule's name as reported.
   */
  private final case class Broken(extension: Extension, adaptive: Seq[Boolean],
      invariant: String, phases: Set[String], rule: String)

  private val broken = Seq(
    Broken(new ClaimRootNotNullExtension, adaptiveModes, "OPTIMIZER_SCHEMA",
      Set("optimization"), "planguard.testing.ClaimRootNotNull (batch Operator Optimization"),
    Broken(new ClaimRootNotNullRuntimeExtension, Seq(true), "OPTIMIZER_SCHEMA",
      Set("adaptive re-optimization"),
      "planguard.testing.ClaimRootNotNull (adaptive runtime optimizer rule)"),
    Broken(new NotNullProjectStrategyExtension, adaptiveModes, "PLANNING_SCHEMA",
      Set("physical planning"),
      "planguard.testing.NotNullProjectStrategy (planner strategy, planning Project)"),
    Broken(new NotNullProjectColumnarExtension, adaptiveModes, "OPERATOR_CONTRACT",
      Set("preparation"),
      "planguard.testing.NotNullProject (columnar rule, before transitions)"),
    Broken(new NotNullProjectPostColumnarExtension, adaptiveModes, "OPERATOR_CONTRACT",
      Set("preparation"), "planguard.testing.NotNullProject (columnar rule, after transitions)"),
    // Planguard's query-stage preparation rule runs before one listed after it, and the final
    // stage's check (preparation) sees what that one did.
    Broken(new NotNullProjectStagePrepExtension, Seq(true), "OPERATOR_CONTRACT",
      Set("preparation", "adaptive re-optimization"),
      "planguard.testing.NotNullProject (adaptive query-stage preparation rule)"),
    Broken(new NotNullProjectStageOptimizerExtension, Seq(true), "OPERATOR_CONTRACT",
      Set("preparation"),
      "planguard.testing.NotNullProject (adaptive query-stage optimizer rule)"))

  for (b <- broken; adaptive <- b.adaptive) {
    val name = b.extension.getClass.getSimpleName
    test(s"$name turns nulls into values without planguard (adaptive=$adaptive)") {
      val correct = queries(session(Nil, adaptive)).map(_.collect().toSeq)
      val wrong = queries(session(Seq(b.extension), adaptive)).map(_.collect().toSeq)
      assert(correct.map(nulls(_, "v")).forall(_ > 0))
      assert(correct.zip(wrong).exists { case (c, w) => nulls(w, "v") < nulls(c, "v") },
        s"$correct\n$wrong")
    }
    for ((order, extensions) <- Seq("planguard first" -> Seq(planguard, b.extension),
        "planguard last" -> Seq(b.extension, planguard))) {
      // Each query the rule makes wrong is caught (an adaptive rule acts only on a query with an
      // exchange); none returns wrong rows.
      test(s"$name is caught before any row ($order, adaptive=$adaptive)") {
        val correct = queries(session(Nil, adaptive)).map(_.collect().toSeq)
        val spark = session(extensions, adaptive)
        val caught = queries(spark).zip(correct).flatMap { case (df, rows) =>
          scala.util.Try(df.collect().toSeq) match {
            case scala.util.Success(returned) => assert(returned == rows); None
            case scala.util.Failure(e) => Some(violation(e).getOrElse(throw e))
          }
        }
        assert(caught.nonEmpty)
        caught.foreach { e =>
          assert(e.invariant.id == b.invariant, e.getMessage)
          assert(b.phases.contains(e.phase), e.getMessage)
          assert(e.rule.exists(_.startsWith(b.rule)), e.getMessage)
          assert(e.getMessage.contains("v#"), e.getMessage)
        }
      }
    }
  }

  // Physical plans' claims are read in the prepared plans and stages, which run; adaptive execution
  // re-plans the rest of a query after each stage and finds planning's claim again: reported once.
  test("a strategy's claim is reported once per query, in warn mode, as its stages run") {
    val spark = session(Seq(planguard, new NotNullProjectStrategyExtension), adaptive = true,
      "spark.planguard.mode" -> "warn")
    val rows = queries(spark)(1).collect()
    assert(rows.nonEmpty)
    val found = ViolationLog.records(spark).map(r => (r.id, r.phase))
    assert(found == Seq("PLANNING_SCHEMA" -> "physical planning"), ViolationLog.json(spark))
  }

  // A written query is checked as a collected one, and nothing is written. Without planned
  // writes a V1 write's query is an adaptive plan of its own below the command (as Hive's
  // INSERT OVERWRITE DIRECTORY's always is): its stages and final plan are checked as they are
  // prepared, although the command's plan shows it as a leaf. (The smoke tier writes without
  // planned writes alone: with them, the query is planned inside the command, as collected.)
  for (b <- broken; adaptive <- b.adaptive;
       plannedWrite <- if (smokeTier) Seq(false) else Seq(true, false)) {
    val name = b.extension.getClass.getSimpleName
    val confs = Seq("spark.sql.optimizer.plannedWrite.enabled" -> plannedWrite.toString)
    def written(s: SparkSession): String = {
      val dir = temporaryDirectory("planguard-write").resolve("t").toString
      queries(s)(1).write.parquet(dir)
      dir
    }
    def files(dir: String): Seq[String] = Option(new java.io.File(dir).list()).toSeq.flatten
      .filter(_.startsWith("part-"))
    test(s"$name in a written query is caught before a file is written (adaptive=$adaptive, " +
      s"plannedWrite=$plannedWrite)") {
      val plain = session(Nil, adaptive, confs: _*)
      val rows = plain.read.parquet(written(plain)).collect().toSeq
      val wrong = plain.read.parquet(written(session(Seq(b.extension), adaptive, confs: _*)))
        .collect().toSeq
      assert(nulls(wrong, "v") < nulls(rows, "v"), s"$rows\n$wrong")
      for (extensions <- Seq(Seq(planguard, b.extension), Seq(b.extension, planguard))) {
        val spark = session(extensions, adaptive, confs: _*)
        val dir = temporaryDirectory("planguard-write").resolve("t")
        val e = violation(intercept[Exception](queries(spark)(1).write.parquet(dir.toString)))
          .getOrElse(fail(s"no violation ($extensions)"))
        assert(e.invariant.id == b.invariant, e.getMessage)
        assert(b.phases.contains(e.phase), e.getMessage)
        assert(e.rule.exists(_.startsWith(b.rule)), e.getMessage)
        assert(files(dir.toString).isEmpty, files(dir.toString))
      }
    }
  }

  // The shape of SPARK-17981: a filter that declares NOT NULL a column its condition does not
  // test, so that the projection over it reads each null as a value.
  for ((order, extensions) <- Seq("planguard first" -> Seq(planguard, filterStrategy),
      "planguard last" -> Seq(filterStrategy, planguard)); adaptive <- adaptiveModes) {
    test(s"a filter declaring NOT NULL what it does not reject is caught ($order, " +
      s"adaptive=$adaptive)") {
      // The filter over an aggregate's result, which the optimizer cannot push below it.
      def run(s: SparkSession) = s.range(10)
        .selectExpr("id % 3 AS k", "IF(id % 3 = 0, NULL, id) AS v").groupBy("k")
        .agg(max("v").as("m"), count("*").as("c")).where("c > 0").selectExpr("m + 1 AS w")
        .collect().toSeq
      assert(nulls(run(session(Nil, adaptive)), "w") == 1)
      assert(nulls(run(session(Seq(filterStrategy), adaptive)), "w") == 0)
      val e = violation(intercept[Exception](run(session(extensions, adaptive)))).get
      assert(e.invariant.id == "PLANNING_SCHEMA", e.getMessage)
      assert(e.rule.orNull.startsWith("planguard.testing.NotNullFilterStrategy"), e.getMessage)
      assert(e.getMessage.contains("m#") && e.getMessage.contains("rejects none of its nulls"),
        e.getMessage)
    }
  }

  private def filterStrategy: Extension = new NotNullFilterStrategyExtension

  for ((order, extensions) <- Seq("planguard first" -> Seq(planguard, scanClaim),
      "planguard last" -> Seq(scanClaim, planguard)); adaptive <- adaptiveModes) {
    test(s"a scan declaring NOT NULL the nullable columns of its files is caught ($order, " +
      s"adaptive=$adaptive)") {
      val dir = temporaryDirectory("planguard-scan").resolve("t").toString
      session(Nil, adaptive).range(6).selectExpr("id % 2 AS k", "IF(id < 2, NULL, id) AS v")
        .write.parquet(dir)
      def run(s: SparkSession) = s.read.parquet(dir).groupBy("v").count().collect().toSeq
      assert(nulls(run(session(Nil, adaptive)), "v") == 1)
      assert(nulls(run(session(Seq(scanClaim), adaptive)), "v") == 0)
      val e = violation(intercept[Exception](run(session(extensions, adaptive)))).get
      assert(e.invariant.id == "OPTIMIZER_SCHEMA" && e.phase == "optimization", e.getMessage)
      assert(e.rule.orNull.startsWith("planguard.testing.ClaimScanNotNull"), e.getMessage)
      assert(e.getMessage.contains("Relation declares NOT NULL a column the plan before " +
        "declared nullable"), e.getMessage)
    }
  }

  private def scanClaim: Extension = new ClaimScanNotNullExtension

  for (adaptive <- adaptiveModes) {
    test(s"an access reading the field after the one it names is caught (adaptive=$adaptive)") {
      val next: Extension = new ReadNextFieldExtension
      def run(s: SparkSession) = {
        val cached = s.range(3).selectExpr("struct(id AS a, id * 10 AS b) AS s").cache()
        try cached.selectExpr("s.a AS a").collect().toSeq.map(_.getLong(0))
        finally cached.unpersist()
      }
      assert(run(session(Nil, adaptive)) == Seq(0L, 1L, 2L))
      assert(run(session(Seq(next), adaptive)) == Seq(0L, 10L, 20L))
      for (extensions <- Seq(Seq(planguard, next), Seq(next, planguard))) {
        val e = violation(intercept[Exception](run(session(extensions, adaptive)))).get
        assert(e.invariant.id == "OPTIMIZER_SCHEMA" && e.phase == "optimization", e.getMessage)
        assert(e.rule.orNull.startsWith("planguard.testing.ReadNextField (batch Pre CBO Rules"),
          e.getMessage)
        assert(e.getMessage.contains("names field a but reads field #1, b"), e.getMessage)
      }
    }

    // SPARK-49743, as Spark 3.5.0-3.5.1 shipped it, made again by a test rule on every line.
    test(s"a from_json pruned to a field its data does not have is caught (adaptive=$adaptive)") {
      val prune: Extension = new PruneJsonToAccessedNameExtension
      val sql = """SELECT from_json('[{"a": ' || id || ', "b": ' || (2 * id) || '}]',
        'array<struct<a: INT, b: INT>>').A AS x FROM range(3)"""
      def run(s: SparkSession) = {
        s.conf.set("spark.sql.optimizer.enableJsonExpressionOptimization", "false")
        s.sql(sql).collect().toSeq.map(_.getSeq[Any](0))
      }
      assert(run(session(Nil, adaptive)) == Seq(Seq(0), Seq(1), Seq(2)))
      assert(run(session(Seq(prune), adaptive)) == Seq(Seq(null), Seq(null), Seq(null)))
      for (extensions <- Seq(Seq(planguard, prune), Seq(prune, planguard))) {
        val e = violation(intercept[Exception](run(session(extensions, adaptive)))).get
        assert(e.invariant.id == "OPTIMIZER_SCHEMA" && e.phase == "optimization", e.getMessage)
        assert(e.rule.orNull.startsWith("planguard.testing.PruneJsonToAccessedName"), e.getMessage)
        assert(e.getMessage.contains("reads field A of its input, where an access named A " +
          "read a before"), e.getMessage)
      }
    }
  }

  // Legal plans that tighten nullability, each proved where it appears: no violation in fail
  // mode, the same rows as without planguard.
  private val legal = Seq(
    "SELECT l.v, r.v FROM n l JOIN n r ON l.v = r.v",
    "SELECT v FROM n WHERE v IS NOT NULL",
    "SELECT v + 1 FROM n WHERE v > 0",
    "SELECT coalesce(v, 0) AS c FROM n",
    "SELECT count(v), count(*), sum(v) FROM n",
    "SELECT k, count(v) FROM n GROUP BY k",
    "SELECT l.k, coalesce(r.v, -5) FROM n l LEFT JOIN n r ON l.k = r.k + 1",
    "SELECT l.k, r.v FROM n l FULL JOIN n r ON l.k = r.v WHERE r.v IS NOT NULL",
    "SELECT k, (SELECT max(v) FROM n m WHERE m.k = n.k) FROM n",
    "SELECT k, (SELECT count(*) FROM n m WHERE m.v = n.k) FROM n",
    "SELECT (SELECT count(*) FROM n) AS a, (SELECT sum(v) FROM n) AS b",
    "SELECT v FROM n INTERSECT SELECT k FROM n",
    "SELECT v FROM n WHERE v IS NOT NULL UNION ALL SELECT k FROM n",
    "SELECT k, v, rank() OVER (PARTITION BY k ORDER BY v) FROM n WHERE v IS NOT NULL",
    "SELECT explode(array(v, k)) FROM n WHERE v IS NOT NULL",
    "SELECT k, sum(v) FROM n GROUP BY ROLLUP (k)",
    "SELECT count(DISTINCT v), sum(DISTINCT k) FROM n",
    "SELECT from_json('{\"a\": 1, \"b\": 2}', 'a INT, b INT').b, " +
      "from_json('[{\"a\": 1, \"b\": 2}]', 'array<struct<a: INT, b: INT>>').b FROM n",
    "SELECT s.b FROM (SELECT named_struct('a', k, 'b', v) AS s FROM n) WHERE s.b IS NOT NULL",
    "SELECT uniform(0, NULL, 0) AS r",
    // A WITH query's reference declares its columns as the query's result does (nullable under
    // its outer join): the local relation the optimizer folds the joined side into declares its
    // own NOT NULL columns (exists-cte.sql#6 of Spark's SQL tests).
    "WITH d AS (SELECT e.a, f.b FROM VALUES (1), (2) AS e(a) LEFT JOIN VALUES (1, 10) AS " +
      "f(a2, b) ON e.a = f.a2) SELECT y FROM VALUES (1) AS x(y) WHERE EXISTS " +
      "(SELECT b, count(*) FROM d GROUP BY b HAVING count(*) > 0)",
    // A SQL function's NOT NULL result over a view of VALUES, through a WITH query's reference
    // that declares it nullable, folded into a local relation (sql-udf.sql#275).
    "WITH c AS (SELECT times(c1, c2) FROM tv) SELECT * FROM c")

  for (adaptive <- adaptiveModes) {
    test(s"legal plans that tighten nullability stay clean (adaptive=$adaptive)") {
      val (plain, guarded) = (session(Nil, adaptive), session(Seq(planguard), adaptive))
      Seq(plain, guarded).foreach { s =>
        s.range(8).selectExpr("id AS k", "IF(id % 3 = 0, NULL, id) AS v")
          .createOrReplaceTempView("n")
        s.sql("CREATE OR REPLACE TEMP VIEW tv(c1, c2) AS VALUES (0, 1), (0, 2), (1, 2)")
        if (sparkAtLeast("4.0")) {
          s.sql("CREATE OR REPLACE TEMPORARY FUNCTION times(a DOUBLE, b DOUBLE) RETURNS DOUBLE " +
            "RETURN a * b")
        }
      }
      // uniform and SQL functions are Spark 4's.
      legal.filter(q => !q.contains("uniform") && !q.contains("times(") || sparkAtLeast("4.0"))
          .foreach { q =>
        val expected = plain.sql(q).collect().map(_.toString).sorted.toSeq
        assert(guarded.sql(q).collect().map(_.toString).sorted.toSeq == expected, q)
      }
      assert(ViolationLog.records(guarded).isEmpty, ViolationLog.records(guarded))
    }
  }

  // Where NOT NULL enters row code from data that cannot prove it: a DataFrame created from rows
  // with nulls in a NOT NULL column, read as is, grouped, cached. Without planguard the nulls
  // come back as 0.
  private val strictSchema = StructType(Seq(StructField("k", LongType, nullable = false),
    StructField("v", LongType)))
  private val rows = Seq(Row(1L, 1L), Row(null, 2L), Row(1L, 3L), Row(null, 4L))

  private def fromRdd(spark: SparkSession): DataFrame = UncheckedRows(spark, rows, strictSchema)

  private def fromLocalRows(spark: SparkSession): DataFrame =
    spark.createDataFrame(java.util.Arrays.asList(rows: _*), strictSchema)

  for (adaptive <- adaptiveModes; scope <- Seq("root", "stages")) {
    test(s"rows with a null in a NOT NULL column are stopped where they enter (adaptive=" +
      s"$adaptive, scope=$scope)") {
      def plain = session(Nil, adaptive)
      assert(fromRdd(plain).groupBy("k").count().collect().map(_.getLong(0)).toSet == Set(0, 1))
      val spark = session(Seq(planguard), adaptive, "spark.planguard.batchSchema.scope" -> scope)
      def queries(df: DataFrame) = Seq(df, df.groupBy("k").count(), df.selectExpr("k + 1"))
      queries(fromRdd(spark)).foreach { df =>
        val e = violation(intercept[Exception](df.collect())).get
        assert(e.invariant.id == "BATCH_SCHEMA" && e.phase == "execution", e.getMessage)
        assert(e.rule.orNull.contains("RDDScan"), e.getMessage)
        assert(e.getMessage.contains("#0 k: a null in a column the operator declares NOT NULL"),
          e.getMessage)
      }
      // The rows read in a subquery only are checked too.
      val local = fromLocalRows(spark)
      local.createOrReplaceTempView("strict_rows")
      val inSubqueries = Seq("SELECT id FROM range(3) WHERE id IN (SELECT k FROM strict_rows)",
        "SELECT (SELECT max(k) FROM strict_rows) AS m").map(spark.sql)
      (queries(local) ++ inSubqueries).foreach { df =>
        val e = violation(intercept[Exception](df.collect())).get
        assert(e.invariant.id == "BATCH_SCHEMA" && e.phase == "analysis", e.getMessage)
        assert(e.getMessage.contains("row 1 #0 k: a null in a column the relation declares " +
          "NOT NULL"), e.getMessage)
      }
    }

    test(s"a cached DataFrame's nulls in a NOT NULL column are stopped (adaptive=$adaptive, " +
      s"scope=$scope)") {
      val spark = session(Seq(planguard), adaptive, "spark.planguard.batchSchema.scope" -> scope)
      val cached = fromRdd(spark).cache()
      val e = violation(intercept[Exception](cached.groupBy("k").count().collect())).get
      assert(e.invariant.id == "BATCH_SCHEMA" && e.phase == "execution", e.getMessage)
      assert(e.rule.orNull.contains("RDDScan"), e.getMessage)
      cached.unpersist()
      // Spark 4's analyzer declares uniform(0, NULL, 0) NOT NULL, its optimizer computes a
      // null: cached, the null is grouped as 0.0 without planguard.
      if (sparkAtLeast("4.0")) {
        def grouped(s: SparkSession) = {
          s.sql("CACHE TABLE u AS SELECT uniform(0, NULL, 0) AS r, id FROM range(3)")
          try s.sql("SELECT r, count(*) FROM u GROUP BY r").collect().toSeq
          finally s.sql("UNCACHE TABLE u")
        }
        assert(grouped(session(Nil, adaptive)).map(_.get(0)) == Seq(0.0))
        val e = violation(intercept[Exception](grouped(spark))).get
        assert(e.invariant.id == "BATCH_SCHEMA" && e.phase == "execution", e.getMessage)
        assert(e.rule.orNull.contains("InMemoryTableScan"), e.getMessage)
      }
    }

    test(s"a row-based data source's null in a NOT NULL column is stopped where it enters " +
      s"(adaptive=$adaptive, scope=$scope)") {
      val catalog = "spark.sql.catalog.nullrows" -> classOf[NullRowsCatalog].getName
      def keys(s: SparkSession, table: String) =
        s.sql(s"SELECT k, count(*) FROM nullrows.$table GROUP BY k").collect()
          .map(r => r.getLong(0) -> r.getLong(1)).toSet
      assert(keys(session(Nil, adaptive, catalog), "nulls") == Set(0L -> 2L, 1L -> 2L))
      val spark = session(Seq(planguard), adaptive, catalog,
        "spark.planguard.batchSchema.scope" -> scope)
      Seq("SELECT * FROM nullrows.nulls", "SELECT k, count(*) FROM nullrows.nulls GROUP BY k",
          "SELECT k + 1 FROM nullrows.nulls").foreach { q =>
        val e = violation(intercept[Exception](spark.sql(q).collect())).get
        assert(e.invariant.id == "BATCH_SCHEMA" && e.phase == "execution", e.getMessage)
        assert(e.rule.orNull.contains("BatchScan"), e.getMessage)
        assert(e.getMessage.contains("#0 k: a null in a column the operator declares NOT NULL"),
          e.getMessage)
      }
      // Its rows carry a field more than the scan declares, as Iceberg's metadata tables' do.
      val clean = session(Seq(planguard), adaptive, catalog,
        "spark.planguard.batchSchema.scope" -> scope)
      assert(keys(clean, "clean") == Set(1L -> 2L, 2L -> 2L))
      assert(clean.sql("SELECT * FROM nullrows.clean").collect().length == 4)
      assert(ViolationLog.records(clean).isEmpty, ViolationLog.records(clean))
    }
  }
}

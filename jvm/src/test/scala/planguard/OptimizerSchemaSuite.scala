package planguard

import java.nio.file.{Files, Path}

import scala.util.Try

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.streaming.Trigger

import planguard.errors.{InvariantViolation, PlanGuardConfException}
import planguard.report.ViolationLog
import planguard.testing._

class OptimizerSchemaSuite extends SparkSessions {

  private val swapColumns: Extension = new SwapRootColumnsExtension
  private val castColumn: Extension = new CastRootColumnExtension
  private val loosenNullability: Extension = new LoosenRootNullabilityExtension
  private val swapJoinSides: Extension = new SwapRootJoinSidesExtension

  /** planguard listed before and after the other extension, adaptive execution on and off. */
  private def variants(other: Extension): Seq[(String, Seq[Extension], Boolean)] = for {
    (order, extensions) <- Seq("planguard first" -> Seq(planguard, other),
      "planguard last" -> Seq(other, planguard))
    adaptive <- adaptiveModes
  } yield (s"$order, adaptive=$adaptive", extensions, adaptive)

  for ((name, extensions, adaptive) <- variants(swapColumns)) {
    test(s"fail mode stops a query whose root columns a rule swapped ($name)") {
      val spark = session(extensions, adaptive)
      projectedQueries(spark).foreach { df =>
        val e = intercept[InvariantViolation](df.collect())
        assert(e.getCondition == "PLANGUARD_OPTIMIZER_SCHEMA")
        assert(e.invariant.id == "OPTIMIZER_SCHEMA")
        assert(e.phase == "optimization")
        assert(e.expected.fieldNames.toSeq == Seq("a", "b"))
        assert(e.actual.fieldNames.toSeq == Seq("b", "a"))
        assert(e.getMessage.startsWith("[PLANGUARD_OPTIMIZER_SCHEMA] Invariant OPTIMIZER_SCHEMA"))
        assert(e.getMessage.contains("#0 a: name a -> b"))
        assert(e.getSqlState == "XXKPG")
      }
    }

    test(s"a projection under a sort keeps its exact order ($name)") {
      val spark = session(extensions, adaptive)
      spark.range(5).selectExpr("id AS k", "id * 2 AS v").createOrReplaceTempView("t")
      Seq("SELECT v AS b, k FROM t ORDER BY k",
        // The window's order is the root sort's: without adaptive execution, preparation drops
        // the sort, and the prepared root is the projection the rule broke.
        "SELECT v AS b, k, first_value(v) OVER w AS f FROM t WINDOW w AS (ORDER BY k) ORDER BY k"
      ).foreach { sql =>
        val e = intercept[InvariantViolation](spark.sql(sql).collect())
        assert(e.invariant.id == "OPTIMIZER_SCHEMA" && e.phase == "optimization")
        assert(e.getMessage.contains("(exact: the analyzed root is a projection)"))
        assert(e.expected.fieldNames.toSeq.sorted.reverse == e.actual.fieldNames.toSeq)
      }
    }

    test(s"warn mode logs one warning and returns rows ($name)") {
      val spark = session(extensions, adaptive, "spark.planguard.mode" -> "warn")
      projectedQueries(spark).foreach { df =>
        var rows = 0
        val warnings = warningsDuring { rows = df.collect().length }
        assert(rows > 0)
        assert(warnings.size == 1, warnings)
        assert(warnings.head.contains("[PLANGUARD_OPTIMIZER_SCHEMA]"))
      }
    }

    test(s"off mode, a per-invariant off and the kill switch pass silently ($name)") {
      for (conf <- Seq("spark.planguard.mode" -> "off",
          "spark.planguard.check.OPTIMIZER_SCHEMA" -> "off",
          "spark.planguard.enabled" -> "false")) {
        val spark = session(extensions, adaptive, conf)
        projectedQueries(spark).foreach { df =>
          assert(warningsDuring(assert(df.collect().nonEmpty)).isEmpty)
        }
      }
    }

    test(s"a failing check stops a write before it creates any file ($name)") {
      val spark = session(extensions, adaptive)
      projectedQueries(spark).foreach { df =>
        val dir = temporaryDirectory("planguard").resolve("out")
        intercept[InvariantViolation](df.write.parquet(dir.toString))
        assert(!Files.exists(dir))
      }
    }

    test(s"a plan prepared by explain is checked before a later collect runs it ($name)") {
      val spark = session(extensions, adaptive)
      projectedQueries(spark).foreach { df =>
        intercept[InvariantViolation](df.queryExecution.executedPlan)
        intercept[InvariantViolation](df.collect())
      }
    }

    // Preparation outside a SQL execution has no QueryExecution to read the analyzed plan from
    // (AnalyzedPlans): the frame's, analyzed long before, or on another thread, must be found.
    test(s"a frame analyzed long before explain or cache prepares it is checked ($name)") {
      val spark = session(extensions, adaptive)
      val frames = projectedQueries(spark)
      (1 to 50).foreach(i => spark.range(i).selectExpr(s"id + $i AS x$i"))
      frames.foreach { df =>
        val e = intercept[InvariantViolation](df.queryExecution.executedPlan)
        assert(e.invariant.id == "OPTIMIZER_SCHEMA")
      }
      val elsewhere = new java.util.concurrent.atomic.AtomicReference[Seq[DataFrame]]
      val thread = new Thread(() => elsewhere.set(projectedQueries(spark)))
      thread.start()
      thread.join()
      elsewhere.get.foreach { df =>
        assert(intercept[InvariantViolation](df.cache()).invariant.id == "OPTIMIZER_SCHEMA")
        df.unpersist()
      }
    }

    // The optimizer removes an alias of a column of its own name (`CAST(s AS STRING) AS s` on a
    // string column): the optimized root outputs the column, not the alias. Prepared outside an
    // execution, the query is found through those aliases (RedundantAliases); it went unchecked.
    test(s"a query whose root alias the optimizer removed is checked by explain and cache " +
        s"($name)") {
      val spark = session(extensions, adaptive)
      val dir = temporaryDirectory("planguard-aliases").resolve("t").toString
      // Its columns in the order the broken rule puts them: it leaves this write alone.
      spark.range(5).selectExpr("id AS v", "CAST(id AS STRING) AS s", "id AS k")
        .write.parquet(dir)
      spark.read.parquet(dir).createOrReplaceTempView("aliased")
      Seq("SELECT k, CAST(s AS STRING) AS s FROM aliased",
        "SELECT k, coalesce(s) AS s FROM aliased WHERE v > 1").foreach { sql =>
        val e = intercept[InvariantViolation](spark.sql(sql).queryExecution.executedPlan)
        assert(e.invariant.id == "OPTIMIZER_SCHEMA", e.getMessage)
        assert(e.getMessage.contains("#0 k: name k -> s"), e.getMessage)
        val cached = spark.sql(sql)
        assert(intercept[InvariantViolation](cached.cache()).invariant.id == "OPTIMIZER_SCHEMA")
        cached.unpersist()
      }
    }

    // Spark plans a CACHE TABLE's query, and a cached query again after a write into its table,
    // inside the statement's own SQL execution, as a query of its own: unchecked, it cached its
    // columns swapped, and later reads returned garbage.
    test(s"a query cached inside another statement's execution is checked ($name)") {
      val spark = session(extensions, adaptive)
      val table = s"cached_source_${name.hashCode.abs}"
      def cachedQuery = spark.conf.set("planguard.testing.SwapRootColumns", _: String)
      cachedQuery("false")
      spark.sql(s"CREATE TABLE $table (a INT, b BIGINT) USING parquet")
      spark.sql(s"INSERT INTO $table VALUES (1, 2)")
      spark.sql(s"CACHE TABLE kept AS SELECT a AS x, b AS y FROM $table")
      cachedQuery("true")
      try {
        // Other queries than `kept`'s: an equal one is cached already, and not planned again.
        Seq(s"CACHE TABLE eager AS SELECT a AS x, b AS y FROM $table WHERE a > 0",
          s"CACHE LAZY TABLE deferred AS SELECT a AS x, b AS y FROM $table WHERE a > 1",
          // Its VALUES need no projection: what breaks is `kept`, cached again by the write.
          s"INSERT INTO $table VALUES (3, 4)").foreach { sql =>
          val e = intercept[InvariantViolation](spark.sql(sql).collect())
          assert(e.invariant.id == "OPTIMIZER_SCHEMA", sql)
          assert(e.expected.fieldNames.toSeq == Seq("x", "y"), sql)
          assert(e.actual.fieldNames.toSeq == Seq("y", "x"), sql)
        }
      } finally {
        cachedQuery("false")
        spark.catalog.clearCache()
        spark.sql(s"DROP TABLE $table")
      }
    }

    // A WITH query read twice and joined, over a relation's own columns: the optimizer gives the
    // second read's columns new attributes and builds the join anew, without the analyzed root's
    // tag (InlineCTE's aliases, dropped by RemoveRedundantAliases), and the broken rule builds a
    // new root. Prepared outside a SQL execution (explain, df.queryExecution), the plan is not
    // found as its query: it ran unchecked, its columns swapped. Now its checks run when it
    // executes as its query's result, before its first task (ChecksAtExecution).
    test(s"a WITH query read twice, prepared by explain, is checked when it runs ($name)") {
      def readTwice(spark: SparkSession): DataFrame = {
        val dir = temporaryDirectory("planguard-cte").resolve("t").toString
        // Its columns in the order the broken rule puts them: it leaves this write alone.
        spark.range(5).selectExpr("id * 2 AS b", "id AS a").write.parquet(dir)
        spark.read.parquet(dir).createOrReplaceTempView("read_twice")
        val df = spark.sql("WITH c AS (SELECT a, b FROM read_twice) " +
          "SELECT c.a, c2.b FROM c JOIN c c2 ON c.a = c2.a")
        // With adaptive execution the prepared plan carries its QueryExecution: checked here.
        Try(df.queryExecution.executedPlan)
        df
      }
      val df = readTwice(session(extensions, adaptive))
      // Each way of running the prepared plan itself; a failed check fails it again.
      Seq[(String, DataFrame => Any)]("collect" -> (_.collect()),
        "toLocalIterator" -> (_.toLocalIterator().hasNext), "collect again" -> (_.collect()))
        .foreach { case (action, run) =>
          val e = intercept[InvariantViolation](run(df))
          assert(e.invariant.id == "OPTIMIZER_SCHEMA", action)
          assert(e.actual.fieldNames.toSeq == Seq("b", "a"), action)
        }
      val warned = readTwice(session(extensions, adaptive, "spark.planguard.mode" -> "warn"))
      val warnings = warningsDuring { warned.collect(); warned.collect() }
      assert(warnings.count(_.contains("[PLANGUARD_OPTIMIZER_SCHEMA]")) == (if (adaptive) 0 else 1),
        warnings)
    }

    // A WITH's main query is the projection that fixes the order (found by this suite: a WITH
    // query was compared as a multiset, and a reorder went unseen).
    test(s"a WITH query keeps its exact order, also prepared by explain ($name)") {
      val spark = session(extensions, adaptive)
      val df = spark.sql("WITH q AS (SELECT id AS k, cast(id AS int) AS a, id * 2 AS b " +
        "FROM range(5)) SELECT a, b FROM q")
      assert(intercept[InvariantViolation](df.queryExecution.executedPlan).invariant.id ==
        "OPTIMIZER_SCHEMA")
      val e = intercept[InvariantViolation](spark.sql("WITH q AS (SELECT id AS k, id * 2 AS v " +
        "FROM range(5)) SELECT v AS b, k FROM q ORDER BY k").collect())
      assert(e.invariant.id == "OPTIMIZER_SCHEMA" && e.actual.fieldNames.toSeq == Seq("k", "b"))
    }

    // A streaming query writes each micro-batch into a DataSource V2 sink (memory, console,
    // Kafka) through nodes that are no commands and output nothing: its query was compared as
    // nothing with nothing, and a broken rule went unseen. Into a file sink (DataSource V1) the
    // batch runs as a query of its own, which Spark 4.2's optimizer gives other attributes than
    // its analyzed plan's (MicroBatchOutput): it went unseen there. Either way the batch must stop
    // before the sink has a row.
    test(s"a streaming query's micro-batch into a DataSource V2 sink is checked ($name)") {
      val spark = session(extensions, adaptive)
      val rows = swappedStream(spark, "memory", s"swapped_${name.hashCode.abs}")
      assert(rows.isEmpty)
    }

    test(s"a streaming query's micro-batch into a file sink is checked ($name)") {
      val spark = session(extensions, adaptive)
      val rows = swappedStream(spark, "parquet", "out")
      assert(rows.isEmpty)
    }
  }

  // Spark runs each stream in a clone of the session that started it: a micro-batch's violation
  // is found in the clone, and must be listed where the user reads them, in warn mode too.
  test("a streaming query's violations are listed in the session that started it") {
    val spark = session(Seq(planguard, swapColumns), adaptive = false,
      "spark.planguard.check.OPTIMIZER_SCHEMA" -> "warn")
    val dir = temporaryDirectory("planguard-stream-owner")
    spark.conf.set("planguard.testing.SwapRootColumns", "false")
    spark.range(3).selectExpr("id AS a", "id * 2 AS b").write.parquet(s"$dir/in")
    spark.conf.set("planguard.testing.SwapRootColumns", "true")
    for (sink <- Seq("memory", "parquet")) {
      val before = PlanGuard.violationCount(spark)
      val writer = spark.readStream.schema("a BIGINT, b BIGINT").parquet(s"$dir/in")
        .selectExpr("a", "b + 1 AS c").writeStream.format(sink).trigger(Trigger.AvailableNow())
        .option("checkpointLocation", s"$dir/checkpoint-$sink")
      val query = (if (sink == "memory") writer.queryName("warned")
        else writer.option("path", s"$dir/out")).start()
      query.awaitTermination()
      assert(query.exception.isEmpty, query.exception)
      val found = ViolationLog.records(spark)
        .takeRight((PlanGuard.violationCount(spark) - before).toInt)
      assert(found.nonEmpty && found.forall(_.id == "OPTIMIZER_SCHEMA"), sink)
    }
  }

  // A plugin that runs whole plans as batches (Comet) leaves a columnar transition at the root,
  // which has no logical link: the query must still be found, and checked (found with Comet
  // 1.2.0, where no query's OPTIMIZER_SCHEMA, PLANNING_SCHEMA or UNIQUE_FIELD was checked).
  private val columnarRoot: Extension = new ColumnarRootExtension

  for (adaptive <- adaptiveModes; (order, extensions) <- Seq(
      "planguard first" -> Seq(planguard, swapColumns, columnarRoot),
      "planguard last" -> Seq(swapColumns, columnarRoot, planguard))) {
    test(s"a root run as batches, under a transition with no logical link, is checked " +
      s"($order, adaptive=$adaptive)") {
      val spark = session(extensions, adaptive)
      def query = spark.range(5).selectExpr("cast(id as int) as a", "id * 2 as b")
      spark.conf.set("planguard.testing.SwapRootColumns", "false")
      val before = PlanGuard.violationCount(spark)
      val df = query
      assert(df.collect().toSeq.map(r => (r.getInt(0), r.getLong(1))) ==
        (0 until 5).map(i => (i, i * 2L)))
      assert(PlanGuard.violationCount(spark) == before)
      val plan = df.queryExecution.executedPlan
      assert(plan.exists(_.isInstanceOf[PassBatchesExec]) &&
        plan.exists(_.isInstanceOf[org.apache.spark.sql.execution.ColumnarToRowExec]), plan)
      spark.conf.set("planguard.testing.SwapRootColumns", "true")
      val e = intercept[InvariantViolation](query.collect())
      assert(e.invariant.id == "OPTIMIZER_SCHEMA")
      assert(e.actual.fieldNames.toSeq == Seq("b", "a"))
    }
  }

  for ((name, extensions, adaptive) <- variants(castColumn)) {
    test(s"a query whose root preparation drops is checked as that query ($name)") {
      val spark = session(extensions, adaptive)
      spark.range(5).selectExpr("id AS k", "id * 2 AS v").createOrReplaceTempView("t")
      // The window's order is the root sort's: preparation drops the sort (without adaptive
      // execution), and the prepared root is the projection the rule broke.
      val df = spark.sql("SELECT CAST(v AS INT) AS b, k, first_value(v) OVER w AS f FROM t " +
        "WINDOW w AS (ORDER BY k) ORDER BY k")
      val e = intercept[InvariantViolation](df.collect())
      assert(e.invariant.id == "OPTIMIZER_SCHEMA" && e.phase == "optimization")
      assert(e.getMessage.contains("b: type INT -> STRING"), e.getMessage)
    }


    test(s"a type change in the root projection fails ($name)") {
      val spark = session(extensions, adaptive)
      val df = spark.range(5).selectExpr("cast(id as int) as a", "id * 2 as b")
      val e = intercept[InvariantViolation](df.collect())
      assert(e.getMessage.contains("#0 a:"))
    }
  }

  for ((name, extensions, adaptive) <- variants(loosenNullability)) {
    test(s"nullability the optimizer restates, values unchanged, is legal ($name)") {
      val spark = session(extensions, adaptive)
      val df = spark.range(5).selectExpr("cast(id as int) as a", "id * 2 as b")
      assert(!df.schema("a").nullable && df.queryExecution.optimizedPlan.output.head.nullable)
      assert(df.collect().map(_.getInt(0)).toSeq == (0 until 5))
    }
  }


  for ((name, extensions, adaptive) <- variants(swapJoinSides)) {
    test(s"swapped inner-join sides under a DataFrame join are legal ($name)") {
      val spark = session(extensions, adaptive)
      val left = spark.range(10).selectExpr("id as a", "id * 2 as b")
      val right = spark.range(10).selectExpr("id as x", "id * 3 as y")
      val joined = left.join(right, col("a") === col("x"))
      assert(joined.collect().length == 10)
      assert(joined.queryExecution.optimizedPlan.output.map(_.name) == Seq("x", "y", "a", "b"))
    }
  }

  for (adaptive <- adaptiveModes) {
    test(s"Spark's own rewrites are legal (adaptive=$adaptive)") {
      val spark = session(Seq(planguard), adaptive)
      spark.range(10).selectExpr("id as k", "id % 3 as v").createOrReplaceTempView("t")
      spark.range(5).selectExpr("id as k", "id as w").createOrReplaceTempView("u")
      Seq(
        "SELECT if(true, 1, null) AS folded, k FROM t", // nullability tightens
        "SELECT t.k, u.w FROM t LEFT JOIN u ON t.k = u.k WHERE u.w IS NOT NULL", // outer -> inner
        "SELECT k FROM t UNION ALL SELECT k FROM u WHERE false", // empty branch pruned
        "SELECT k, k FROM t", // the same attribute twice
        "SELECT a.k, b.k FROM t a JOIN t b ON a.k = b.v", // self join with aliases
        "SELECT v, count(*) AS n FROM t GROUP BY v ORDER BY v",
        "SELECT * FROM t WHERE k IN (SELECT k FROM u)",
        "SELECT k, (SELECT max(w) FROM u) AS m FROM t",
        "SELECT * FROM t JOIN u USING (k)",
        "SELECT k, sum(v) OVER (PARTITION BY v ORDER BY k) AS s FROM t",
        "SELECT v, count(*) AS n FROM t GROUP BY GROUPING SETS ((v), ())", // Expand plumbing
        "SELECT k, v, count(*) AS n FROM t GROUP BY CUBE (k, v)",
        // empty at runtime: adaptive execution puts an empty relation in place of the join
        "SELECT t.k, sum(u.w) AS s FROM t JOIN u ON t.k = u.k WHERE t.v > 100 GROUP BY t.k " +
          "HAVING sum(u.w) > 0").foreach { sql =>
        val df = spark.sql(sql)
        assert(warningsDuring(df.collect()).isEmpty, sql)
        df.explain("extended")
      }
    }

    test(s"a write of a legal query and a cached frame pass (adaptive=$adaptive)") {
      val spark = session(Seq(planguard), adaptive)
      val dir: Path = temporaryDirectory("planguard").resolve("out")
      val df = spark.range(10).selectExpr("id as a", "cast(id % 2 as string) as p")
      df.write.partitionBy("p").parquet(dir.toString)
      assert(spark.read.parquet(dir.toString).count() == 10)
      val cached = df.groupBy("p").count().cache()
      assert(cached.collect().length == 2)
      cached.unpersist()
    }
  }

  test("planguard applied twice to one session installs once") {
    val spark = newSession(Seq(planguard, planguard, swapColumns),
      "spark.planguard.mode" -> "warn")
    val warnings = warningsDuring(spark.range(3).selectExpr("id as a", "id as b").collect())
    assert(warnings.size == 1, warnings)
    assert(PlanGuard.installed(spark))
    assert(!PlanGuard.installed(newSession(Seq(swapColumns))))
  }

  test("an invalid value is refused where it is set, naming the key and the allowed values") {
    val spark = newSession(Seq(planguard, swapColumns), "spark.planguard.mode" -> "warn")
    def refused(set: => Unit): PlanGuardConfException = intercept[Throwable](set) match {
      case e: PlanGuardConfException => e
      case e => fail(s"refused with ${e.getClass.getName}: ${e.getMessage}", e)
    }
    val bySql = refused(spark.sql("SET spark.planguard.mode = fial"))
    assert(bySql.getMessage.contains("spark.planguard.mode"))
    assert(bySql.getMessage.contains("'fail', 'warn', 'off'"))
    refused(spark.conf.set("spark.planguard.check.OPTIMIZER_SCHEMA", "strict"))
    refused(spark.conf.set("spark.planguard.batchSchema.every", "0"))
    // The old values stay, and queries run under them: the swap is reported at warn.
    assert(spark.conf.get("spark.planguard.mode") == "warn")
    assert(spark.conf.get("spark.planguard.batchSchema.every") == "1000")
    val warnings = warningsDuring(spark.range(3).selectExpr("id as a", "id as b").collect())
    assert(warnings.size == 1, warnings)
    // SET -v lists the keys with their docs, as it does Spark's.
    val listed = spark.sql("SET -v").collect().map(r => r.getString(0) -> r.getString(2)).toMap
    assert(listed("spark.planguard.mode").startsWith("What a broken invariant does"))
    // As a session's initial conf: the session's state is not built (Spark wraps the cause, as
    // it does for its own keys).
    val initial = newSession(Seq(planguard), "spark.planguard.naming" -> "datafusion")
    val unbuilt = intercept[IllegalArgumentException](initial.range(1).collect())
    assert(refused(throw unbuilt.getCause).getMessage.contains("'spark', 'spec'"))
  }

  test("an unknown key fails the queries planguard checks, naming the key and the known ones") {
    val spark = newSession(Seq(planguard), "spark.planguard.mdoe" -> "warn")
    val unknown = intercept[PlanGuardConfException](spark.range(1).collect())
    assert(unknown.getMessage.contains("spark.planguard.mdoe"))
    assert(unknown.getMessage.contains("spark.planguard.mode"))
    spark.conf.set("spark.planguard.enabled", "false")
    assert(spark.range(1).collect().length == 1)
  }

  test("each key is read as its value is now, in its normal form") {
    val spark = newSession(Seq(planguard, swapColumns),
      "spark.planguard.check.OPTIMIZER_SCHEMA" -> " WARN ")
    def query() = spark.range(3).selectExpr("id as a", "id as b").collect()
    assert(warningsDuring(query()).size == 1)
    spark.conf.set("spark.planguard.check.OPTIMIZER_SCHEMA", "fail")
    intercept[InvariantViolation](query())
    spark.conf.set("spark.planguard.check.OPTIMIZER_SCHEMA", "off")
    assert(warningsDuring(query()).isEmpty)
    spark.conf.set("spark.planguard.batchSchema.every", "7")
    spark.conf.set("spark.planguard.check.NOT_AN_INVARIANT", "off")
    val unknown = intercept[PlanGuardConfException](spark.range(1).collect())
    assert(unknown.getMessage.contains("spark.planguard.check.NOT_AN_INVARIANT"))
  }

  /**
   * Streams two rows' `a, b + 1 AS c` into `sink` (`memory`, or a file format) with the broken
   * rule that swaps them on: asserts the micro-batch fails with OPTIMIZER_SCHEMA, returns the
   * rows the sink then holds (named `name`: the memory table, or the directory's name).
   */
  private def swappedStream(spark: SparkSession, sink: String, name: String): Seq[Row] = {
    val dir = temporaryDirectory("planguard-stream")
    spark.conf.set("planguard.testing.SwapRootColumns", "false")
    spark.range(3).selectExpr("id AS a", "id * 2 AS b").write.parquet(s"$dir/in")
    spark.conf.set("planguard.testing.SwapRootColumns", "true")
    val writer = spark.readStream.schema("a BIGINT, b BIGINT").parquet(s"$dir/in")
      .selectExpr("a", "b + 1 AS c").writeStream.format(sink).trigger(Trigger.AvailableNow())
      .option("checkpointLocation", s"$dir/checkpoint")
    val query =
      (if (sink == "memory") writer.queryName(name) else writer.option("path", s"$dir/$name"))
        .start()
    // Spark 4.2's awaitTermination does not throw the query's error here: it is read instead.
    Try(query.awaitTermination())
    val e = query.exception.getOrElse(fail(s"the $sink sink's micro-batch ran unchecked"))
    assert(e.getCause.isInstanceOf[InvariantViolation], e)
    val violation = e.getCause.asInstanceOf[InvariantViolation]
    assert(violation.invariant.id == "OPTIMIZER_SCHEMA")
    assert(violation.actual.fieldNames.toSeq == Seq("c", "a"))
    assert(violation.rule
      .exists(_.startsWith("planguard.testing.SwapRootColumns (batch ")), violation.rule.orNull)
    spark.conf.set("planguard.testing.SwapRootColumns", "false")
    if (sink == "memory") spark.table(name).collect().toSeq
    else if (!Files.exists(dir.resolve(name))) Nil
    else spark.read.schema("c BIGINT, a BIGINT").format(sink).load(s"$dir/$name").collect().toSeq
  }
}

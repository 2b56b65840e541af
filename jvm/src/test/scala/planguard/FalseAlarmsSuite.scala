package planguard

import java.nio.file.Files
import java.util.concurrent.ConcurrentLinkedQueue

import scala.util.Try

import org.apache.spark.api.java.function.VoidFunction2
import org.apache.spark.sql.{DataFrame, Dataset, Row, SparkSession}
import org.apache.spark.sql.functions.{col, count, max, sum, window}
import org.apache.spark.sql.streaming.{DataStreamWriter, Trigger}

import planguard.report.ViolationLog

/**
 * Valid SQL that planguard once stopped, one class of false alarm each, as found in Spark's own
 * SQL test inputs and with Apache Iceberg: every statement runs in fail mode, its result
 * collected, adaptive execution on and off, and the rows equal those of a session without
 * planguard; planguard records nothing.
 */
class FalseAlarmsSuite extends SparkSessions {

  private val setup = Seq(
    "CREATE TEMP VIEW t1(c1, c2) AS VALUES (0, 1), (1, 2)",
    "CREATE TEMP VIEW t2(c1, c2) AS VALUES (0, 2), (0, 3)",
    "CREATE TABLE p(col1 INT, col2 INT) USING parquet",
    "CREATE TABLE vc(v VARCHAR(5), c CHAR(3)) USING parquet",
    "INSERT INTO vc VALUES ('ab', 'x')",
    "CREATE TABLE cm(id INT, c STRING COMMENT 'the code', n INT COMMENT 'a count') " +
      "USING parquet",
    "INSERT INTO cm VALUES (1, 'a', 10), (2, NULL, 20)")

  /**
   * Statements of Spark 4.0's SQL (session variables, DESCRIBE AS JSON, uniform) or that Spark 3.5
   * fails without planguard: not run on 3.5.
   */
  private def since40(statements: String*): Seq[String] =
    if (sparkAtLeast("4.0")) statements else Nil

  private val classes: Seq[(String, Seq[String])] = Seq(
    "a command's result, collected" -> (Seq(
      "SHOW TABLES",
      "INSERT INTO p VALUES (6, 12)",
      "SHOW CREATE TABLE p",
      "SHOW TBLPROPERTIES p") ++ since40(
      "DECLARE VARIABLE v1 INT DEFAULT 1",
      "SET VAR v1 = 2",
      "DESCRIBE TABLE EXTENDED p AS JSON") ++ Seq(
      "DESCRIBE SCHEMA default",
      "COMMENT ON TABLE p IS 'hello'") ++ since40(
      "EXECUTE IMMEDIATE 'INSERT INTO p VALUES (7, 14)'",
      "DROP TEMPORARY VARIABLE v1") ++ Seq(
      // The plan Spark made, as Spark shows it: an explained plan never runs, so it has no check.
      "EXPLAIN SELECT c1, count(*) FROM t1 GROUP BY c1",
      "EXPLAIN FORMATTED SELECT * FROM t1 JOIN t2 ON t1.c1 = t2.c1",
      "EXPLAIN EXTENDED SELECT c1 FROM t1 ORDER BY c2")),
    "names resolved case-insensitively" -> Seq(
      "SELECT c1 FROM t1 GROUP BY C1",
      "SELECT COL1, COL2 FROM p ORDER BY COL2",
      "SELECT C1, count(*) FROM t1 GROUP BY c1 ORDER BY C1"),
    "Spark's bookkeeping metadata" -> Seq(
      "SELECT (SELECT max(c2) FROM t2 WHERE t2.c1 = t1.c1) AS m FROM t1",
      "SELECT t1.c1, t2.c1 FROM t1 JOIN t2 USING (c1)",
      "SELECT * FROM t1 NATURAL JOIN t2",
      "SELECT CAST(v AS CHAR(10)), CAST(c AS VARCHAR(10)) FROM vc",
      "SELECT CAST(v AS CHAR(10)) AS a, CAST(v AS VARCHAR(3)) AS b FROM vc"),
    // An expression's result declares no metadata; once the optimizer proves it is the column
    // itself (a cast to the column's own type, a one-argument coalesce), it is the column, with
    // the column's comment. Delta's MERGE into a table with a commented column does the same.
    // (And Spark drops comments: see "a DataFrame's dropDuplicates on commented columns".)
    "metadata Spark's optimizer fills in" -> Seq(
      "SELECT id, CAST(c AS STRING) AS c FROM cm",
      "SELECT CAST(c AS STRING), coalesce(n) FROM cm ORDER BY 1",
      "SELECT c FROM (SELECT CAST(c AS STRING) AS c FROM cm) GROUP BY c",
      "SELECT CAST(n AS INT) AS n, count(*) FROM cm GROUP BY 1"),
    "nullability the optimizer restates" -> (Seq(
      "SELECT * FROM t1, LATERAL (SELECT COUNT(*) cnt FROM t2 WHERE t2.c1 = t1.c1)",
      "SELECT c1 FROM t1 INTERSECT SELECT c1 FROM (SELECT c1 FROM t2 UNION ALL SELECT NULL)",
      "SELECT c1 FROM t1 INTERSECT ALL SELECT c1 FROM (SELECT c1 FROM t2 UNION ALL SELECT NULL)") ++
      since40(
      // Spark 3.5 fails it without planguard (IllegalStateException: Couldn't find exists#).
      "SELECT c1, c1 IN (SELECT c1 FROM t2) FROM t1 GROUP BY c1",
      "SELECT uniform(0, 10, 0)",
      // Spark's analyzer declares NOT NULL what it returns null for: Spark's to fix, not a plan's.
      "SELECT uniform(0, NULL, 0) AS result") ++ Seq(
      // Spark 4.2 turns the join of two one-row aggregates into scalar subqueries, NOT NULL as
      // the optimizer proves them; prepared, they are physical subqueries, declared nullable.
      "WITH a AS (SELECT count(*) s FROM range(10)), " +
        "b AS (SELECT count(id) s2 FROM range(10) WHERE id > 100) " +
        "SELECT /*+ BROADCAST(b) */ s + s2 FROM a, b")),
    // A metadata column whose table and scan describe it differently (Iceberg's `_pos`, ...):
    // once the projection over the scan is dropped, the result has the scan's description.
    "a v2 table's metadata column, described twice" -> Seq(
      "SELECT id, _row FROM described.db.t WHERE id < 5",
      "SELECT _row, id FROM described.db.t",
      "SELECT * FROM (SELECT id, _row FROM described.db.t) WHERE _row > 300"))

  // What differs between two sessions: a table's creation time, expression and plan ids.
  private def run(spark: SparkSession, sql: String): Seq[String] = rows(spark.sql(sql))

  private def rows(df: DataFrame): Seq[String] =
    df.collect().map(_.toString.replaceAll("\"created_time\":\"[^\"]*\"", "")
      .replaceAll("#\\d+L?", "#").replaceAll("plan_id=\\d+", "plan_id=")).toSeq.sorted

  private def prepared(spark: SparkSession): SparkSession = {
    setup.foreach(spark.sql)
    spark
  }

  for (adaptive <- legalAdaptiveModes) {
    test(s"valid statements pass, rows as without planguard (adaptive=$adaptive)") {
      val warehouse = temporaryDirectory("planguard-false-alarms")
      val confs = Seq("spark.sql.warehouse.dir" -> warehouse.toString,
        "spark.sql.catalog.described" -> "planguard.testing.DescribedMetadataCatalog")
      val expected = {
        val plain = prepared(session(Nil, adaptive, confs: _*))
        val rows = classes.flatMap(_._2).map(sql => sql -> run(plain, sql)).toMap
        plain.sql("DROP TABLE p")
        plain.sql("DROP TABLE vc")
        plain.sql("DROP TABLE cm")
        rows
      }
      val spark = prepared(session(Seq(planguard), adaptive, confs: _*))
      for ((kind, statements) <- classes; sql <- statements) {
        assert(run(spark, sql) == expected(sql), s"$kind: $sql")
      }
      assert(ViolationLog.records(spark).isEmpty, ViolationLog.json(spark))
      spark.sql("DROP TABLE p")
      spark.sql("DROP TABLE vc")
      spark.sql("DROP TABLE cm")
    }

    // The same queries where planguard finds them without their QueryExecution: prepared outside
    // a SQL execution (as explain, df.rdd and df.cache prepare them), then run, and cached inside
    // a statement's execution (CACHE TABLE ... AS SELECT).
    test(s"valid queries pass prepared outside an execution, then run, and cached inside one " +
        s"(adaptive=$adaptive)") {
      val warehouse = temporaryDirectory("planguard-false-alarms")
      val confs = Seq("spark.sql.warehouse.dir" -> warehouse.toString,
        "spark.sql.catalog.described" -> "planguard.testing.DescribedMetadataCatalog")
      // But `uniform(0, NULL, 0)`: the read of its cache declares the analyzed plan's NOT NULL,
      // the cached rows are the optimized plan's, with a null, which Spark turns into 0.0 as
      // soon as an operator reads it: caught where the cache is read (NotNullSuite).
      val queries = classes.flatMap(_._2)
        .filter(s => s.startsWith("SELECT") || s.startsWith("WITH"))
        .filterNot(_.contains("uniform(0, NULL, 0)"))
      // A query's rows, collected from the plan prepared before (the query's checks completed
      // as it runs: ChecksAtExecution), and its cached rows; None where Spark refuses to cache
      // it (two columns of one name).
      def cached(spark: SparkSession): Seq[(Seq[String], Option[Seq[String]])] =
        queries.zipWithIndex.map { case (sql, i) =>
          val df = spark.sql(sql)
          df.queryExecution.executedPlan
          val ran = rows(df)
          val cachedRows = Try(spark.sql(s"CACHE TABLE cached_$i AS $sql")).toOption
            .map(_ => run(spark, s"SELECT * FROM cached_$i"))
          spark.sql(s"UNCACHE TABLE IF EXISTS cached_$i")
          spark.sql(s"DROP VIEW IF EXISTS cached_$i")
          (ran, cachedRows)
        }
      val plain = prepared(session(Nil, adaptive, confs: _*))
      val expected = cached(plain)
      plain.sql("DROP TABLE p")
      plain.sql("DROP TABLE vc")
      plain.sql("DROP TABLE cm")
      val spark = prepared(session(Seq(planguard), adaptive, confs: _*))
      assert(cached(spark) == expected)
      assert(ViolationLog.records(spark).isEmpty, ViolationLog.json(spark))
      spark.sql("DROP TABLE p")
      spark.sql("DROP TABLE vc")
      spark.sql("DROP TABLE cm")
    }

    // Row-level writes into a v2 table that rewrites whole files (copy-on-write: ReplaceData), as
    // Iceberg's copy-on-write tables do: Spark 3.5 reads each row's metadata columns beside its
    // data and projects them out before the write (WrittenColumns); the table of Spark's tests.
    test(s"row-level DELETE, UPDATE and MERGE into a copy-on-write table pass, rows as without " +
        s"planguard (adaptive=$adaptive)") {
      val confs = Seq("spark.sql.catalog.rowlevel" ->
        "org.apache.spark.sql.connector.catalog.InMemoryRowLevelOperationTableCatalog")
      def written(spark: SparkSession): Seq[String] = {
        Seq("CREATE TABLE rowlevel.t (pk INT NOT NULL, salary INT, dep STRING) " +
            "PARTITIONED BY (dep)",
          "INSERT INTO rowlevel.t VALUES (1, 100, 'hr'), (2, 200, 'software'), (3, 300, 'hr')",
          // An untranslatable predicate: a rewrite, not a delete by filters.
          "DELETE FROM rowlevel.t WHERE pk % 10 = 1",
          "UPDATE rowlevel.t SET salary = salary + 1 WHERE dep = 'hr'",
          "MERGE INTO rowlevel.t t USING (SELECT 2 AS pk, 5 AS salary UNION ALL SELECT 4, 7) s " +
            "ON t.pk = s.pk WHEN MATCHED THEN UPDATE SET salary = s.salary " +
            "WHEN NOT MATCHED THEN INSERT (pk, salary, dep) VALUES (s.pk, s.salary, 'new')",
          "DELETE FROM rowlevel.t WHERE pk IN (SELECT pk FROM rowlevel.t WHERE salary < 6)"
        ).foreach(sql => spark.sql(sql).collect())
        run(spark, "SELECT * FROM rowlevel.t")
      }
      val expected = written(session(Nil, adaptive, confs: _*))
      val spark = session(Seq(planguard), adaptive, confs: _*)
      assert(written(spark) == expected)
      assert(expected == Seq("[3,301,hr]", "[4,7,new]"))
      assert(ViolationLog.records(spark).isEmpty, ViolationLog.json(spark))
    }

    // Spark's ReplaceDeduplicateWithAggregate rebuilds each column that is not a key as
    // `first(c) AS c`, without the column's comment: metadata is no part of a schema contract.
    test(s"a DataFrame's dropDuplicates on commented columns passes (adaptive=$adaptive)") {
      val warehouse = temporaryDirectory("planguard-false-alarms")
      def deduplicated(spark: SparkSession): Seq[Seq[String]] = {
        prepared(spark)
        val table = spark.table("cm")
        val result = Seq(table.dropDuplicates("c"), table.dropDuplicates("id", "n"),
          table.select("c", "n").dropDuplicates("n").orderBy("n"))
          .map(_.collect().map(_.toString).toSeq.sorted)
        Seq("p", "vc", "cm").foreach(t => spark.sql(s"DROP TABLE $t"))
        result
      }
      val confs = Seq("spark.sql.warehouse.dir" -> warehouse.toString)
      val expected = deduplicated(session(Nil, adaptive, confs: _*))
      val spark = session(Seq(planguard), adaptive, confs: _*)
      assert(deduplicated(spark) == expected)
      assert(ViolationLog.records(spark).isEmpty, ViolationLog.json(spark))
    }

    // Streaming queries write each micro-batch into their sink through plans Spark's streaming
    // engine rewrites (state stores, watermarks, the batch's timestamp): into a DataSource V2 sink
    // (memory here) the written query is compared as any write's is (ResultPlans.writes); into a
    // file sink or foreachBatch (DataSource V1), as a query of its own (MicroBatchV1Write).
    test(s"valid streaming queries pass, rows as without planguard (adaptive=$adaptive)") {
      val dir = temporaryDirectory("planguard-streams")
      def streamed(spark: SparkSession): Seq[Seq[String]] = {
        val source = dir.resolve("source").toString
        if (!Files.exists(dir.resolve("source"))) {
          spark.range(40).selectExpr("id", "id % 7 AS k", "CAST(id AS TIMESTAMP) AS ts")
            .write.parquet(source)
        }
        val stream = spark.readStream.schema("id BIGINT, k BIGINT, ts TIMESTAMP").parquet(source)
        val dimensions = spark.range(7).selectExpr("id AS k", "concat('d', id) AS name")
        Seq(
          "complete" -> stream.groupBy("k").agg(count("*").as("n"), sum("id").as("total")),
          "append" -> stream.withWatermark("ts", "5 seconds")
            .groupBy(window(col("ts"), "10 seconds"), col("k")).count(),
          "append" -> stream.join(dimensions, "k").select("id", "name"),
          "append" -> stream.withWatermark("ts", "5 seconds").dropDuplicates("k", "ts"),
          "append" -> stream.selectExpr("ID AS Id", "K", "current_timestamp() IS NOT NULL AS now"),
          "update" -> stream.groupBy("K").agg(max("id").as("m"))).zipWithIndex.map {
          case ((mode, df), i) =>
            val name = s"stream_${i}_${spark.hashCode.abs}"
            def run(sink: String, writer: DataStreamWriter[Row]): Unit = {
              val query = writer.outputMode(mode).trigger(Trigger.AvailableNow())
                .option("checkpointLocation", dir.resolve(s"checkpoint-$name-$sink").toString)
                .start()
              query.awaitTermination()
              assert(query.exception.isEmpty, s"$mode #$i: ${query.exception}")
            }
            run("memory", df.writeStream.format("memory").queryName(name))
            // And into a DataSource V1 sink: a file sink, which takes appends only, or else
            // foreachBatch, which hands each batch to the user's function.
            val v1Rows = if (mode == "append") {
              val path = dir.resolve(s"files-$name").toString
              run("files", df.writeStream.format("parquet").option("path", path))
              spark.read.parquet(path).collect().toSeq
            } else {
              val batches = new ConcurrentLinkedQueue[Row]()
              run("foreachBatch", df.writeStream.foreachBatch(
                new VoidFunction2[Dataset[Row], java.lang.Long] {
                  def call(batch: Dataset[Row], id: java.lang.Long): Unit =
                    batch.collect().foreach(batches.add)
                }))
              batches.toArray(Array.empty[Row]).toSeq
            }
            (spark.table(name).collect().toSeq ++ v1Rows).map(_.toString).sorted
        }
      }
      val expected = streamed(session(Nil, adaptive))
      assert(streamed(session(Seq(planguard), adaptive)) == expected)
    }
  }
}

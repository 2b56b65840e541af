package planguard

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec
import org.apache.spark.sql.execution.joins.ShuffledJoin
import org.apache.spark.sql.functions.{col, sum}

import planguard.report.ViolationLog

/**
 * DISTRIBUTION and OPERATOR_CONTRACT flag no plan Spark makes itself: aggregates, joins of every
 * type and strategy, windows, unions, limits, samples, repartitions, grouping sets, generators,
 * cached relations, subqueries, adaptive coalescing and skew joins, writes; in fail mode, adaptive
 * execution on and off.
 */
class LegalPlansSuite extends SparkSessions {

  private val checked = Set("DISTRIBUTION", "OPERATOR_CONTRACT")

  /** facts (id, k, v): k is 0 for most rows (a skew); dims (k, name); part: facts by k. */
  private def tables(spark: SparkSession): Unit = {
    val dir = temporaryDirectory("planguard-legal")
    spark.range(0, 4000, 1, 4)
      .selectExpr("id", "CASE WHEN id % 10 < 7 THEN 0 ELSE id % 20 END AS k", "id % 97 AS v")
      .write.parquet(s"$dir/facts")
    spark.range(20).selectExpr("id AS k", "CONCAT('n', CAST(id AS STRING)) AS name")
      .write.parquet(s"$dir/dims")
    spark.read.parquet(s"$dir/facts").write.partitionBy("k").parquet(s"$dir/part")
    Seq("facts", "dims", "part").foreach { t =>
      spark.read.parquet(s"$dir/$t").createOrReplaceTempView(t)
    }
  }

  private val joinTypes =
    Seq("INNER", "LEFT OUTER", "RIGHT OUTER", "FULL OUTER", "LEFT SEMI", "LEFT ANTI")
  private val hints = Seq("", "/*+ BROADCAST(d) */", "/*+ SHUFFLE_HASH(d) */", "/*+ MERGE(d) */",
    "/*+ SHUFFLE_REPLICATE_NL(d) */")

  private val queries: Seq[String] = Seq(
    "SELECT k, count(*), sum(v) FROM facts GROUP BY k",
    "SELECT count(DISTINCT k), sum(v) FROM facts",
    "SELECT k, count(DISTINCT id), avg(v) FROM facts GROUP BY k",
    "SELECT k, collect_list(v)[0], max(CAST(v AS STRING)) FROM facts GROUP BY k",
    "SELECT DISTINCT k FROM facts",
    "SELECT f.k, count(*) FROM facts f JOIN dims d ON f.k = d.k GROUP BY f.k",
    "SELECT f.k, f.v, d.name FROM facts f JOIN dims d ON f.k = d.k AND f.v = d.k",
    "SELECT /*+ BROADCAST(d) */ count(*) FROM facts f JOIN dims d ON f.k < d.k",
    "SELECT count(*) FROM dims a CROSS JOIN dims b",
    "SELECT count(*) FROM dims a LEFT OUTER JOIN dims b ON a.k < b.k",
    "SELECT k, v, row_number() OVER (PARTITION BY k ORDER BY v, id), " +
      "sum(v) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM facts",
    "SELECT * FROM (SELECT k, v, rank() OVER (PARTITION BY k ORDER BY v) AS r FROM facts) " +
      "WHERE r <= 2",
    "SELECT k FROM facts UNION SELECT k FROM dims",
    "SELECT k, v FROM facts UNION ALL SELECT k, k FROM dims",
    "SELECT k FROM facts INTERSECT SELECT k FROM dims",
    "SELECT k FROM facts EXCEPT SELECT k FROM dims WHERE k > 5",
    "SELECT * FROM facts LIMIT 5",
    "SELECT * FROM facts ORDER BY id LIMIT 5 OFFSET 3",
    "SELECT k, v FROM facts ORDER BY v DESC, id LIMIT 7",
    "SELECT k, count(*) AS c FROM facts GROUP BY k ORDER BY c DESC LIMIT 3",
    "SELECT * FROM facts ORDER BY k, id",
    "SELECT * FROM facts TABLESAMPLE (30 PERCENT) REPEATABLE (7)",
    "SELECT /*+ REPARTITION(7, k) */ k, v FROM facts",
    "SELECT /*+ REBALANCE(k) */ k, v FROM facts",
    "SELECT /*+ REPARTITION_BY_RANGE(3, v) */ * FROM facts",
    "SELECT /*+ COALESCE(1) */ k, sum(v) FROM facts GROUP BY k",
    "SELECT k, v % 3, sum(v) FROM facts GROUP BY CUBE(k, v % 3)",
    "SELECT k, v % 3, count(*) FROM facts GROUP BY GROUPING SETS ((k), (v % 3), ())",
    "SELECT k, e FROM facts LATERAL VIEW explode(array(v, v + 1)) t AS e",
    "SELECT * FROM facts WHERE v > (SELECT avg(v) FROM facts)",
    "SELECT * FROM dims WHERE k IN (SELECT k FROM facts WHERE v > 90)",
    "SELECT * FROM dims d WHERE EXISTS (SELECT 1 FROM facts f WHERE f.k = d.k AND f.v < 2)",
    "SELECT count(*), sum(p.v) FROM part p JOIN dims d ON p.k = d.k WHERE d.name = 'n3'",
    "SELECT p.k, sum(p.v) FROM part p JOIN dims d ON p.k = d.k WHERE d.name IN ('n3', 'n4') " +
      "GROUP BY p.k"
  ) ++ (for (j <- joinTypes; h <- hints) yield
    s"SELECT $h * FROM facts f $j JOIN dims d ON f.k = d.k")

  private def noViolations(spark: SparkSession, what: String): Unit = {
    val found = ViolationLog.records(spark).filter(r => checked(r.id))
    assert(found.isEmpty, s"$what: ${found.mkString("\n")}")
  }

  private def finalPlan(df: DataFrame): SparkPlan = df.queryExecution.executedPlan match {
    case a: AdaptiveSparkPlanExec => a.finalPhysicalPlan
    case p => p
  }

  for (adaptive <- adaptiveModes) {
    test(s"legal queries are not flagged (adaptive=$adaptive)") {
      val spark = newSession(Seq(planguard), "spark.sql.adaptive.enabled" -> adaptive.toString)
      tables(spark)
      queries.foreach { q =>
        spark.sql(q).collect()
        noViolations(spark, q)
      }
      // Broadcast joins off: every join shuffles.
      spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
      queries.foreach { q =>
        spark.sql(q).collect()
        noViolations(spark, s"$q (no broadcast)")
      }
    }

    test(s"cached relations, cogroups and writes are not flagged (adaptive=$adaptive)") {
      val spark = session(Seq(planguard), adaptive)
      tables(spark)
      import spark.implicits._
      val byKey = spark.table("facts").groupBy("k").agg(sum("v").as("s")).cache()
      val names = spark.table("dims").repartition(col("k")).cache()
      byKey.join(names, "k").groupBy("k").count().collect()
      byKey.join(names, "k").join(byKey.as("again"), "k").collect()
      val facts = spark.table("facts").as[(Long, Long, Long)].groupByKey(_._2)
      val dims = spark.table("dims").as[(Long, String)].groupByKey(_._1)
      facts.cogroup(dims)((k, f, d) => Iterator(k -> (f.size + d.size))).collect()
      val out = temporaryDirectory("planguard-legal-out")
      spark.table("facts").groupBy("k").count().write.parquet(s"$out/grouped")
      spark.table("facts").write.partitionBy("k").parquet(s"$out/partitioned")
      spark.sql("SELECT * FROM facts ORDER BY v").write.parquet(s"$out/sorted")
      spark.sql(s"CREATE TABLE legal_t USING parquet LOCATION '$out/t' AS " +
        "SELECT k, count(*) AS c FROM facts GROUP BY k")
      spark.sql("INSERT INTO legal_t SELECT k, 1 FROM dims")
      spark.sql("DROP TABLE legal_t")
      noViolations(spark, "cached, cogroup, writes")
    }
  }

  test("adaptive coalescing and skew joins are not flagged") {
    val spark = session(Seq(planguard), adaptive = true,
      "spark.sql.shuffle.partitions" -> "20",
      "spark.sql.adaptive.advisoryPartitionSizeInBytes" -> "1k",
      "spark.sql.adaptive.coalescePartitions.minPartitionSize" -> "1",
      "spark.sql.adaptive.skewJoin.skewedPartitionFactor" -> "1",
      "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes" -> "1k")
    tables(spark)
    Seq("", "/*+ SHUFFLE_HASH(d) */").foreach { hint =>
      val df = spark.sql(s"SELECT $hint f.k, f.v, d.name FROM facts f JOIN " +
        "(SELECT k, name FROM dims UNION ALL SELECT 0, 'zero' FROM dims) d ON f.k = d.k")
      df.collect()
      val joins = finalPlan(df).collect { case j: ShuffledJoin => j }
      assert(joins.exists(_.isSkewJoin), finalPlan(df))
    }
    val grouped = spark.sql("SELECT k, count(*) FROM facts GROUP BY k")
    grouped.collect()
    assert(finalPlan(grouped).numberedTreeString.contains("AQEShuffleRead"))
    noViolations(spark, "skew and coalescing")
  }
}

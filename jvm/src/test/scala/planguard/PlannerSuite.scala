package planguard

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.physical.{HashPartitioning, SinglePartition}
import org.apache.spark.sql.execution.{SortExec, SparkPlan, WholeStageCodegenExec}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, AdaptiveSparkPlanHelper,
  AQEShuffleReadExec}
import org.apache.spark.sql.execution.aggregate.{HashAggregateExec, ObjectHashAggregateExec,
  SortAggregateExec}
import org.apache.spark.sql.execution.exchange.{BroadcastExchangeExec, Exchange, ReusedExchangeExec,
  ShuffleExchangeExec}
import org.apache.spark.sql.execution.joins.{BroadcastHashJoinExec, ShuffledHashJoinExec,
  SortMergeJoinExec}

import planguard.errors.PlanGuardHintException
import planguard.planner.{PlanGuardPlannerExtensions, PlannerOrigin}

/**
 * planguard's planner (spark.planguard.planner.enabled): the exchanges it emits, counted by origin
 * (its tag, or none: EnsureRequirements'), the operators Spark would choose, the same rows as with
 * it off, adaptive execution on and off.
 */
class PlannerSuite extends SparkSessions with AdaptiveSparkPlanHelper {

  private val On = "spark.planguard.planner.enabled" -> "true"
  private val planner: Extension = new PlanGuardPlannerExtensions

  /** Checks and planner listed, the planner off until a test turns it on. */
  private def plannerSession(adaptive: Boolean, confs: (String, String)*): SparkSession = {
    val spark = session(Seq(planguard, planner), adaptive, (On._1 -> "false") +: confs: _*)
    spark.range(0, 200).selectExpr("id % 50 AS k", "id AS v", "cast(id AS string) AS s")
      .createOrReplaceTempView("t1")
    spark.range(0, 120).selectExpr("id % 40 AS k", "id * 3 AS w")
      .createOrReplaceTempView("t2")
    spark
  }

  /** The plan that runs: an adaptive plan's final one (the query is executed first). */
  private def executed(df: DataFrame): SparkPlan = {
    df.collect()
    df.queryExecution.executedPlan match {
      case a: AdaptiveSparkPlanExec => a.finalPhysicalPlan
      case p => p
    }
  }

  /** Every exchange of a plan, through adaptive stages and reused exchanges. */
  private def exchanges(plan: SparkPlan): Seq[Exchange] = collectWithSubqueries(plan) {
    case e: Exchange => e
    case ReusedExchangeExec(_, e) => e
  }

  private def ofPlanner(plan: SparkPlan): Seq[Exchange] =
    exchanges(plan).filter(PlannerOrigin.isPlanners)

  /** Exchanges without planguard's tag: EnsureRequirements added them. */
  private def notOfPlanner(plan: SparkPlan): Seq[Exchange] =
    exchanges(plan).filterNot(PlannerOrigin.isPlanners)

  private def shuffles(plan: SparkPlan): Seq[ShuffleExchangeExec] =
    ofPlanner(plan).collect { case s: ShuffleExchangeExec => s }

  private def rows(df: DataFrame): Seq[Row] = df.collect().toSeq.sortBy(_.toString)

  /** Runs `sql` with the planner on; checks its rows against the planner off; its final plan. */
  private def planned(spark: SparkSession, sql: String): SparkPlan = {
    spark.conf.set(On._1, "false")
    val expected = rows(spark.sql(sql))
    spark.conf.set(On._1, "true")
    val df = spark.sql(sql)
    assert(rows(df) == expected)
    // Adaptive execution, when on, still applies: it silently does not to a plan in which a
    // node has no logical link.
    assert(df.queryExecution.executedPlan.isInstanceOf[AdaptiveSparkPlanExec] ==
      spark.conf.get("spark.sql.adaptive.enabled").toBoolean, df.queryExecution.sparkPlan)
    val plan = executed(df)
    // EnsureRequirements added nothing: every exchange of the final plan is the planner's, and
    // without adaptive execution they were all there when planning ended.
    assert(notOfPlanner(plan).isEmpty, plan.treeString)
    if (!spark.conf.get("spark.sql.adaptive.enabled").toBoolean) {
      assert(exchanges(df.queryExecution.sparkPlan).size == exchanges(plan).size)
    }
    spark.conf.set(On._1, "false")
    plan
  }

  private def unwrapped(plan: SparkPlan): SparkPlan = plan match {
    case w: WholeStageCodegenExec => w.child
    case p => p
  }

  private def hashKeys(s: ShuffleExchangeExec): (Seq[String], Int) = s.outputPartitioning match {
    case HashPartitioning(keys, n) => (keys.map(_.sql), n)
    case other => fail(s"not hash partitioned: $other")
  }

  for (adaptive <- adaptiveModes) {
    test(s"group by: partial aggregate, hash exchange on the keys, final aggregate " +
      s"(adaptive=$adaptive)") {
      val spark = plannerSession(adaptive)
      val plan = planned(spark, "SELECT k % 7 AS g, sum(v), count(*) FROM t1 GROUP BY k % 7")
      val Seq(shuffle) = shuffles(plan)
      assert(hashKeys(shuffle)._2 == 4)
      assert(unwrapped(shuffle.child).isInstanceOf[HashAggregateExec])
      assert(ofPlanner(plan).size == 1)
    }

    test(s"global aggregate: one single-partition exchange (adaptive=$adaptive)") {
      val spark = plannerSession(adaptive)
      val plan = planned(spark, "SELECT sum(v), count(*), max(s) FROM t1")
      val Seq(shuffle) = shuffles(plan)
      assert(shuffle.outputPartitioning == SinglePartition)
    }

    test(s"distinct aggregates: an exchange under each phase that needs one " +
      s"(adaptive=$adaptive)") {
      val spark = plannerSession(adaptive)
      assert(shuffles(planned(spark,
        "SELECT k % 3 AS g, count(DISTINCT v % 11), sum(v) FROM t1 GROUP BY k % 3")).size == 2)
      val global = shuffles(planned(spark, "SELECT count(DISTINCT k), sum(v) FROM t1"))
      assert(global.size == 2 && global.head.outputPartitioning == SinglePartition)
      // Two distinct sets: RewriteDistinctAggregates' expand, then two aggregations.
      assert(shuffles(planned(spark,
        "SELECT count(DISTINCT k), count(DISTINCT v % 5) FROM t1")).size == 2)
    }

    test(s"sort and object-hash aggregates are Spark's choice, with their exchanges " +
      s"(adaptive=$adaptive)") {
      val spark = plannerSession(adaptive)
      val objectHash = planned(spark, "SELECT k, collect_list(v) FROM t1 GROUP BY k")
      assert(collect(objectHash) { case a: ObjectHashAggregateExec => a }.size == 2)
      assert(shuffles(objectHash).size == 1)
      spark.conf.set("spark.sql.execution.useObjectHashAggregateExec", "false")
      val sort = planned(spark, "SELECT k, collect_list(v) FROM t1 GROUP BY k")
      val Seq(finalAggregate, _) = collect(sort) { case a: SortAggregateExec => a }
      assert(unwrapped(finalAggregate.child).isInstanceOf[SortExec])
      assert(shuffles(sort).size == 1)
    }

    for ((hint, buildLeft) <- Seq("BROADCAST(a)" -> true, "BROADCAST(b)" -> false)) {
      test(s"$hint: a broadcast exchange on the build side, nothing on the other " +
        s"(adaptive=$adaptive)") {
        val spark = plannerSession(adaptive)
        val plan = planned(spark,
          s"SELECT /*+ $hint */ a.k, v, w FROM t1 a JOIN t2 b ON a.k = b.k")
        val Seq(join) = collect(plan) { case j: BroadcastHashJoinExec => j }
        val Seq(broadcast: BroadcastExchangeExec) = ofPlanner(plan)
        assert(join.buildSide.toString == (if (buildLeft) "BuildLeft" else "BuildRight"))
        val build = if (buildLeft) join.left else join.right
        assert(exchanges(build).contains(broadcast))
      }
    }

    for ((hint, operator) <- Seq("SHUFFLE_HASH(a)" -> "ShuffledHashJoinExec",
        "MERGE(a)" -> "SortMergeJoinExec", "" -> "SortMergeJoinExec")) {
      test(s"${if (hint.isEmpty) "no hint" else hint}: $operator over a shuffle on both sides, " +
        s"same keys in the same order, same partition count (adaptive=$adaptive)") {
        val spark = plannerSession(adaptive)
        val hinted = if (hint.isEmpty) "" else s"/*+ $hint */"
        val plan = planned(spark, s"SELECT $hinted a.k, a.v, b.w FROM t1 a " +
          "JOIN t2 b ON a.k = b.k AND a.v = b.w")
        assert(collect(plan) {
          case j @ (_: ShuffledHashJoinExec | _: SortMergeJoinExec) => j.nodeName
        } == Seq(operator.stripSuffix("Exec")))
        val Seq(left, right) = shuffles(plan).map(hashKeys)
        assert(left._1.map(_.replace("a.", "")) == Seq("k", "v"))
        assert(right._1.map(_.replace("b.", "")) == Seq("k", "w"))
        assert(left._2 == right._2)
      }
    }

    test(s"no hint: Spark's automatic broadcast below autoBroadcastJoinThreshold " +
      s"(adaptive=$adaptive)") {
      val spark = plannerSession(adaptive, "spark.sql.autoBroadcastJoinThreshold" -> "10MB")
      val plan = planned(spark, "SELECT a.k, v, w FROM t1 a JOIN t2 b ON a.k = b.k")
      assert(collect(plan) { case j: BroadcastHashJoinExec => j }.size == 1)
      assert(ofPlanner(plan).map(_.getClass) == Seq(classOf[BroadcastExchangeExec]))
    }

    test(s"a broadcast build side whose redundant project preparation removes: one broadcast " +
      s"(adaptive=$adaptive)") {
      val spark = plannerSession(adaptive, "spark.sql.autoBroadcastJoinThreshold" -> "10MB")
      val dir = temporaryDirectory("planguard-planner").toString
      spark.range(0, 100)
        .selectExpr("id AS pk", "cast(id AS string) AS p", "id * 2.5 AS extra")
        .write.mode("overwrite").parquet(dir)
      spark.read.parquet(dir).createOrReplaceTempView("part")
      // Spark plans Project(Filter(isnotnull(pk))) on the build side; preparation drops the
      // project, which makes pk not nullable in the broadcast's mode.
      val plan = planned(spark,
        "SELECT /*+ BROADCAST(part) */ a.k, p FROM t1 a JOIN part ON a.k = part.pk")
      assert(ofPlanner(plan).map(_.getClass) == Seq(classOf[BroadcastExchangeExec]))
    }

    test(s"a join then a group by on the same key: no exchange between them " +
      s"(adaptive=$adaptive)") {
      val spark = plannerSession(adaptive)
      val plan = planned(spark,
        "SELECT a.k, count(*), sum(w) FROM t1 a JOIN t2 b ON a.k = b.k GROUP BY a.k")
      assert(shuffles(plan).size == 2)
      // and a group by, then a join on its key: only the other side is shuffled
      val grouped = planned(spark, "SELECT g.k, c, w FROM (SELECT k, count(*) AS c FROM t1 " +
        "GROUP BY k) g JOIN t2 b ON g.k = b.k")
      assert(shuffles(grouped).size == 2)
      // Two group bys on k, joined on k and another key: their partitionings are compatible but
      // cover only some of the join keys; EnsureRequirements reshuffles both (with
      // spark.sql.requireAllClusterKeysForCoPartition), so the planner does.
      val partial = planned(spark, "SELECT a.k, s FROM (SELECT k, sum(v) AS s FROM t1 " +
        "GROUP BY k) a JOIN (SELECT k, max(w) AS m FROM t2 GROUP BY k) b " +
        "ON a.k = b.k AND a.s = b.m")
      assert(shuffles(partial).size == 4)
    }

    test(s"an aggregate over a join that keeps its grouped side's partitioning: the sorts " +
      s"EnsureRequirements adds below the join keep the query adaptive (adaptive=$adaptive)") {
      val spark = plannerSession(adaptive)
      // TPC-H q17's shape: planning the aggregate's input runs EnsureRequirements on it.
      val plan = planned(spark, "SELECT sum(v) FROM t1 a JOIN (SELECT k, avg(w) AS m FROM t2 " +
        "GROUP BY k) b ON a.k = b.k WHERE v > m")
      assert(collect(plan) { case j: SortMergeJoinExec => j }.size == 1)
      assert(collect(plan) { case s: SortExec => s }.size == 2)
    }

    test(s"PLANGUARD_PARTITIONS sets the partition count of the query's exchanges " +
      s"(adaptive=$adaptive)") {
      val spark = plannerSession(adaptive)
      val plan = planned(spark, "SELECT /*+ PLANGUARD_PARTITIONS(3) */ a.k, count(*) " +
        "FROM t1 a JOIN (SELECT k, max(w) AS w FROM t2 GROUP BY k) b ON a.k = b.k " +
        "WHERE v > 10 GROUP BY a.k")
      assert(shuffles(plan).map(hashKeys(_)._2).distinct == Seq(3))
      // A shuffled hash join with both sides shuffled gets spark.sql.shuffle.partitions at least
      // (EnsureRequirements' minimum parallelism); behind sorts, the hint holds.
      val hashJoin = planned(spark, "SELECT /*+ PLANGUARD_PARTITIONS(2), SHUFFLE_HASH(a) */ " +
        "a.k, w FROM t1 a JOIN t2 b ON a.k = b.k")
      assert(shuffles(hashJoin).map(hashKeys(_)._2) == Seq(4, 4))
      val mergeJoin = planned(spark, "SELECT /*+ PLANGUARD_PARTITIONS(2) */ a.k, w " +
        "FROM t1 a JOIN t2 b ON a.k = b.k")
      assert(shuffles(mergeJoin).map(hashKeys(_)._2) == Seq(2, 2))
      // Without the hint: spark.sql.shuffle.partitions.
      assert(shuffles(planned(spark, "SELECT k, count(*) FROM t1 GROUP BY k"))
        .map(hashKeys(_)._2) == Seq(4))
    }

    test(s"with the planner on, plans are Spark's, exchanges and sorts placed as " +
      s"EnsureRequirements places them (adaptive=$adaptive)") {
      val spark = plannerSession(adaptive)
      val vanilla = newSession(Nil, "spark.sql.adaptive.enabled" -> adaptive.toString,
        "spark.sql.autoBroadcastJoinThreshold" -> "-1")
      Seq(vanilla, spark).foreach { s =>
        s.range(0, 200).selectExpr("id % 50 AS k", "id AS v", "cast(id AS string) AS s")
          .createOrReplaceTempView("t1")
        s.range(0, 120).selectExpr("id % 40 AS k", "id * 3 AS w").createOrReplaceTempView("t2")
      }
      spark.conf.set("spark.planguard.check.BATCH_SCHEMA", "off")
      for (sql <- Seq("SELECT k, count(DISTINCT v), sum(v) FROM t1 GROUP BY k",
          "SELECT a.k, count(*) FROM t1 a JOIN t2 b ON a.k = b.k GROUP BY a.k",
          "SELECT /*+ SHUFFLE_HASH(b) */ a.k, w FROM t1 a JOIN t2 b ON a.k = b.k",
          "SELECT /*+ BROADCAST(b) */ a.k, w FROM t1 a JOIN t2 b ON a.k = b.k AND v = w")) {
        for (planner <- Seq("false", "true")) {
          spark.conf.set(On._1, planner)
          // Before execution: the prepared plan, or the adaptive plan's initial plan.
          def prepared(df: DataFrame) = df.queryExecution.executedPlan match {
            case a: AdaptiveSparkPlanExec => a.executedPlan
            case p => p
          }
          val (got, expected) = (prepared(spark.sql(sql)), prepared(vanilla.sql(sql)))
          val same = got.canonicalized == expected.canonicalized
          assert(same, s"$sql, planner=$planner\n$got\n$expected")
        }
      }
    }

    test(s"the planner off: no exchange is planguard's (adaptive=$adaptive)") {
      val spark = plannerSession(adaptive)
      val df = spark.sql("SELECT a.k, count(*) FROM t1 a JOIN t2 b ON a.k = b.k GROUP BY a.k")
      assert(exchanges(executed(df)).nonEmpty && ofPlanner(executed(df)).isEmpty)
    }
  }

  test("adaptive execution coalesces the planner's shuffles") {
    val spark = plannerSession(adaptive = true, "spark.sql.shuffle.partitions" -> "40", On)
    val plan = executed(spark.sql("SELECT a.k, count(*) FROM t1 a JOIN t2 b ON a.k = b.k " +
      "GROUP BY a.k"))
    assert(notOfPlanner(plan).isEmpty)
    val reads = collect(plan) { case r: AQEShuffleReadExec => r }
    assert(reads.nonEmpty && reads.forall(_.hasCoalescedPartition))
  }

  test("adaptive execution splits a skewed sort-merge join over the planner's shuffles") {
    val skewed = Seq("spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes" -> "100",
      "spark.sql.adaptive.skewJoin.skewedPartitionFactor" -> "2",
      "spark.sql.adaptive.advisoryPartitionSizeInBytes" -> "100",
      "spark.sql.adaptive.coalescePartitions.enabled" -> "false")
    for (planner <- Seq("false", "true")) {
      val spark = plannerSession(adaptive = true,
        skewed :+ ("spark.planguard.planner.enabled" -> planner): _*)
      spark.range(0, 5000).selectExpr("IF(id < 4000, 0, id) AS k", "id AS v")
        .createOrReplaceTempView("skewed")
      val plan = executed(spark.sql("SELECT s.k, v, w FROM skewed s JOIN t2 b ON s.k = b.k"))
      val Seq(join) = collect(plan) { case j: SortMergeJoinExec => j }
      assert(join.isSkewJoin, s"planner=$planner\n${plan.treeString}")
      if (planner == "true") assert(notOfPlanner(plan).isEmpty)
    }
  }

  test("adaptive re-planning turns a sort-merge join into a broadcast join, as without planguard") {
    for (planner <- Seq("false", "true")) {
      val spark = plannerSession(adaptive = true,
        "spark.sql.autoBroadcastJoinThreshold" -> "1MB",
        "spark.planguard.planner.enabled" -> planner)
      spark.range(0, 300000).selectExpr("id AS k", "id AS x").createOrReplaceTempView("big")
      // Both sides estimated at megabytes; one is 10 rows at run time: broadcast once its stage
      // has run.
      val df = spark.sql("SELECT a.k, b.x FROM big a JOIN (SELECT * FROM big WHERE x < 10) b " +
        "ON a.x = b.k")
      assert(df.queryExecution.executedPlan.collectFirst { case a: AdaptiveSparkPlanExec =>
        a.inputPlan.collect { case j: SortMergeJoinExec => j }.size } == Some(1))
      val plan = executed(df)
      assert(collect(plan) { case j: BroadcastHashJoinExec => j }.size == 1,
        s"planner=$planner\n${plan.treeString}")
      assert(rows(df).size == 10)
    }
  }

  test("an exchange the planner emits is never taken for its input's stage: a re-planned join " +
    "that swaps its build side runs (adaptive)") {
    // Broadcast joins allowed: the decorrelated subquery's domain and t2 are both small. Once the
    // domain's shuffle stage has run, adaptive execution re-plans the join with t2 as the build
    // side; the domain's broadcast exchange must not stand for the domain then.
    assume(sparkAtLeast("4.0"), "correlated subqueries over set operations are Spark 4.0's")
    val spark = session(Seq(planguard, planner), adaptive = true,
      "spark.sql.autoBroadcastJoinThreshold" -> "10MB")
    spark.sql("CREATE OR REPLACE TEMP VIEW s1(c1, c2) AS VALUES (0, 1), (1, 2)")
    spark.sql("CREATE OR REPLACE TEMP VIEW s2(c1, c2) AS VALUES (0, 2), (0, 3)")
    spark.sql("CREATE OR REPLACE TEMP VIEW s4(c1, c2) AS VALUES (0, 1), (0, 2), (1, 1), (1, 3)")
    for (sql <- Seq(
        // The nested-loop join's broadcast is EnsureRequirements', added when the planner
        // prepares the outer join's input early.
        "SELECT * FROM s1 JOIN LATERAL (SELECT * FROM s2 JOIN s4 ON s2.c1 != s4.c1 AND " +
          "s2.c1 != s1.c1)",
        "SELECT * FROM s1 JOIN LATERAL (SELECT s2.c2 FROM s2 WHERE s2.c1 = s1.c1 AND " +
          "s2.c2 >= s1.c2 INTERSECT ALL SELECT s4.c2 FROM s4)",
        "SELECT c1, (SELECT max(c2) FROM (SELECT c2 FROM s2 WHERE s2.c1 = s1.c1 UNION ALL " +
          "SELECT c2 FROM s2)) m FROM s1",
        "SELECT * FROM s1, LATERAL (SELECT c2 FROM s2 WHERE s2.c1 = s1.c1 UNION SELECT c1 FROM s2)",
        "SELECT * FROM s1 WHERE EXISTS (SELECT c1 FROM s2 WHERE s2.c1 = s1.c1 INTERSECT " +
          "SELECT c1 FROM s2 WHERE s2.c2 = s1.c2 + 1)")) {
      spark.conf.set(On._1, "false")
      val expected = rows(spark.sql(sql))
      spark.conf.set(On._1, "true")
      assert(rows(spark.sql(sql)) == expected, sql)
    }
  }

  test("PLANGUARD_PARTITIONS takes one positive integer, one count per query") {
    val spark = plannerSession(adaptive = false, On)
    for (sql <- Seq("SELECT /*+ PLANGUARD_PARTITIONS(0) */ k FROM t1",
        "SELECT /*+ PLANGUARD_PARTITIONS('x') */ k FROM t1",
        "SELECT /*+ PLANGUARD_PARTITIONS(2) */ k FROM (SELECT /*+ PLANGUARD_PARTITIONS(3) */ k " +
          "FROM t1 GROUP BY k)")) {
      val e = intercept[PlanGuardHintException](spark.sql(sql))
      assert(e.getCondition == "PLANGUARD_INVALID_HINT", sql)
    }
    assert(spark.sql("SELECT /*+ PLANGUARD_PARTITIONS(2) */ count(*) FROM t1").collect()
      .head.getLong(0) == 200)
  }

  test("spark.planguard.planner.enabled is read on every query") {
    val spark = plannerSession(adaptive = false)
    val sql = "SELECT k, count(*) FROM t1 GROUP BY k"
    assert(ofPlanner(executed(spark.sql(sql))).isEmpty)
    spark.conf.set(On._1, "true")
    assert(ofPlanner(executed(spark.sql(sql))).size == 1)
    spark.conf.set("spark.planguard.enabled", "false")
    assert(ofPlanner(executed(spark.sql(sql))).isEmpty)
  }

  test("the planner is opt-in: listed, it plans by default (once, even listed twice); " +
    "the checks alone leave Spark's plans as they are") {
    val sql = "SELECT k, count(*) FROM t1 GROUP BY k"
    def withTable(spark: SparkSession): SparkSession = {
      spark.range(0, 200).selectExpr("id % 50 AS k").createOrReplaceTempView("t1")
      spark
    }
    val checksOnly = withTable(session(Seq(planguard), adaptive = false, On))
    assert(ofPlanner(executed(checksOnly.sql(sql))).isEmpty)
    for (extensions <- Seq(Seq(planguard, planner), Seq(planner, planguard, planner))) {
      val spark = withTable(session(extensions, adaptive = false))
      // The suite's first session put the conf in the SparkContext's, which new sessions copy.
      spark.conf.unset(On._1)
      assert(spark.sessionState.planner.extraPlanningStrategies.size == 1)
      assert(ofPlanner(executed(spark.sql(sql))).size == 1)
    }
  }
}

package planguard

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.{CollectLimitExec, FormattedMode, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec
import org.apache.spark.sql.functions.{col, sum}

import planguard.errors.{InvariantViolation, PlanGuardConfException}
import planguard.exec.CheckBatchSchemaExec
import planguard.testing.{DropLastFieldExtension, LongVectorsExtension, NotNullClaimExtension,
  UntypedNullsExtension}

/** BATCH_SCHEMA: what execution produces has the plan's schema. */
class BatchSchemaSuite extends SparkSessions {

  private def orders(other: Extension): Seq[(String, Seq[Extension])] =
    Seq("planguard first" -> Seq(planguard, other), "planguard last" -> Seq(other, planguard))

  private def violation(e: Throwable): Option[InvariantViolation] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst {
      case v: InvariantViolation => v
    }

  /** The plan execution runs: the adaptive plan's final one, once executed. */
  private def finalPlan(df: DataFrame): SparkPlan = df.queryExecution.executedPlan match {
    case a: AdaptiveSparkPlanExec => a.finalPhysicalPlan
    case p => p
  }

  private def checks(df: DataFrame): Seq[CheckBatchSchemaExec] =
    finalPlan(df).collect { case c: CheckBatchSchemaExec => c }

  for ((order, extensions) <- orders(new NotNullClaimExtension); adaptive <- adaptiveModes) {
    // The plan's claim is caught before any row (OPERATOR_CONTRACT, NotNullSuite); with that
    // check off, the rows show it.
    test(s"a null where the result's operator declares NOT NULL fails the query " +
      s"($order, adaptive=$adaptive)") {
      val spark = session(extensions, adaptive)
      val df = spark.range(3).selectExpr("CAST(NULL AS INT) AS a", "id AS b")
      val claim = violation(intercept[Exception](df.collect())).get
      assert(claim.invariant.id == "OPERATOR_CONTRACT" && claim.phase == "preparation")
      assert(claim.getMessage.contains("a#"), claim.getMessage)
      spark.conf.set("spark.planguard.check.OPERATOR_CONTRACT", "off")
      val e = violation(intercept[Exception](spark.range(3)
        .selectExpr("CAST(NULL AS INT) AS a", "id AS b").collect())).get
      assert(e.invariant.id == "BATCH_SCHEMA" && e.phase == "execution")
      assert(e.rule.orNull == "operator NotNullClaim (planguard.testing.NotNullClaimExec)")
      assert(e.getMessage.contains("#0 a: a null in a column the operator declares NOT NULL"),
        e.getMessage)
    }

    test(s"a null where an operator over a cache read declares NOT NULL fails the query " +
      s"($order, adaptive=$adaptive)") {
      val spark = session(extensions, adaptive,
        "spark.planguard.check.OPERATOR_CONTRACT" -> "off")
      spark.conf.set("planguard.testing.NotNullClaimExec", "false")
      val cached = spark.range(3).selectExpr("CAST(NULL AS INT) AS a", "id AS b").cache()
      assert(cached.count() == 3)
      spark.conf.set("planguard.testing.NotNullClaimExec", "true")
      val e = violation(intercept[Exception](cached.selectExpr("a", "b + 1 AS c").collect())).get
      assert(e.invariant.id == "BATCH_SCHEMA" && e.phase == "execution")
      assert(e.getMessage.contains("#0 a: a null in a column the operator declares NOT NULL"),
        e.getMessage)
      cached.unpersist()
    }
  }

  for ((order, extensions) <- orders(new DropLastFieldExtension); adaptive <- adaptiveModes) {
    test(s"an operator producing rows without a declared column fails the query " +
      s"($order, adaptive=$adaptive)") {
      val spark = session(extensions, adaptive)
      projectedQueries(spark).foreach { df =>
        val e = violation(intercept[Exception](df.collect())).get
        assert(e.invariant.id == "BATCH_SCHEMA" && e.phase == "execution")
        assert(e.rule.orNull == "operator DropLastField (planguard.testing.DropLastFieldExec)")
        assert(e.expected.fieldNames.toSeq == Seq("a", "b"))
        assert(e.actual.fieldNames.toSeq == Seq("a"))
        assert(e.getMessage.startsWith("[PLANGUARD_BATCH_SCHEMA]"))
        assert(e.getMessage.contains("#1 missing b"))
      }
    }

    test(s"rows checked in tasks fail the job, also below a limit ($order, adaptive=$adaptive)") {
      val spark = session(extensions, adaptive)
      projectedQueries(spark).foreach { df =>
        val e = intercept[Exception](df.queryExecution.toRdd.count())
        assert(violation(e).map(_.invariant.id).contains("BATCH_SCHEMA"), e)
        assert(violation(intercept[Exception](df.limit(3).collect())).nonEmpty)
        assert(violation(intercept[Exception](df.take(1))).nonEmpty)
      }
    }
  }

  for (adaptive <- adaptiveModes) {
    test(s"BATCH_SCHEMA=warn logs and runs, off places no check (adaptive=$adaptive)") {
      val spark = session(Seq(planguard, new DropLastFieldExtension), adaptive,
        "spark.planguard.check.BATCH_SCHEMA" -> "warn")
      // Internal rows: deserializing the lying rows would read past their last field.
      val warnings = warningsDuring(
        projectedQueries(spark).foreach(_.queryExecution.executedPlan.executeCollect()))
      assert(warnings.count(_.startsWith("[PLANGUARD_BATCH_SCHEMA]")) >= 2)
      spark.conf.set("spark.planguard.check.BATCH_SCHEMA", "off")
      spark.conf.set("planguard.testing.DropLastFieldExec", "false")
      projectedQueries(spark).foreach { df =>
        df.collect()
        assert(checks(df).isEmpty)
      }
    }
  }

  test("a columnar operator whose vector has another type is caught at stage scope") {
    val spark = session(Seq(planguard, new LongVectorsExtension), adaptive = false,
      "spark.planguard.batchSchema.scope" -> "stages")
    val df = spark.range(5).selectExpr("cast(id as int) as a")
    val e = violation(intercept[Exception](df.collect()))
    assert(e.map(_.invariant.id).contains("BATCH_SCHEMA"))
    assert(e.get.getMessage.contains("#0 a: vector type INT -> BIGINT"))
    assert(e.get.rule.orNull == "operator LongVectors (planguard.testing.LongVectorsExec)")
    // At the root too: batches whose columns are declared NOT NULL enter row code checked.
    spark.conf.set("spark.planguard.batchSchema.scope", "root")
    val entered = violation(intercept[Exception](
      spark.range(5).selectExpr("cast(id as int) as a").collect()))
    assert(entered.exists(_.getMessage.contains("#0 a: vector type INT -> BIGINT")), entered)
    // A nullable column's batches are not an entry's: only rows are seen at the root, and Spark
    // fails later, not with the contract's name.
    val late = intercept[Exception](
      spark.range(5).selectExpr("cast(IF(id > 9, NULL, id) as int) as a").collect())
    assert(violation(late).isEmpty)
  }

  private val untypedNulls: Extension = new UntypedNullsExtension

  for ((order, extensions) <- orders(untypedNulls); adaptive <- adaptiveModes) {
    // The relaxation that compares a vector declaring no type (Iceberg's) by nothing but its
    // nulls must still catch the null it holds in a NOT NULL column.
    test(s"a vector that declares no type is still held to its NOT NULL columns " +
      s"($order, adaptive=$adaptive)") {
      def query(s: SparkSession) = s.range(3).selectExpr("cast(id + 7 as int) as a")
      val wrong = query(session(Seq(untypedNulls), adaptive)).collect()
      // Each batch's first row is null: read as 0 where the column has 7, 8 and 9.
      assert(wrong.map(_.getInt(0)).contains(0), "the lie gives 0 for the null")
      val e = violation(intercept[Exception](query(session(extensions, adaptive)).collect()))
      assert(e.map(_.invariant.id).contains("BATCH_SCHEMA"), e)
      assert(e.get.getMessage.contains("#0 a"), e.get.getMessage)
      assert(e.get.rule.orNull.contains("UntypedNullsExec"), e.get.rule.orNull)
    }
  }

  private def legalQueries(spark: SparkSession, dir: String): Seq[(DataFrame, Seq[String])] = {
    spark.range(10).selectExpr("id", "cast(id as int) as i", "cast(id as string) as s")
      .write.partitionBy("i").parquet(dir)
    val cached = spark.range(6).selectExpr("id % 3 as k", "id as v").cache()
    Seq(
      projectedQueries(spark).head -> (0 until 5).map(i => s"[$i,${i * 2}]"),
      spark.range(6).groupBy((col("id") % 2).as("k")).agg(sum("id").as("s")).orderBy("k") ->
        Seq("[0,6]", "[1,9]"),
      spark.read.parquet(dir).where("id < 3").select("s", "i").orderBy("i") ->
        Seq("[0,0]", "[1,1]", "[2,2]"),
      cached.groupBy("k").count().orderBy("k") -> Seq("[0,2]", "[1,2]", "[2,2]"),
      cached.where("v > 3").select("v") -> Seq("[4]", "[5]"),
      spark.range(3).union(spark.range(2)).selectExpr("id * 10 as x").orderBy("x") ->
        Seq("[0]", "[0]", "[10]", "[10]", "[20]"))
  }

  for (adaptive <- adaptiveModes; scope <- Seq("root", "stages")) {
    test(s"legal queries pass every check, rows unchanged (scope=$scope, adaptive=$adaptive)") {
      val spark = session(Seq(planguard), adaptive, "spark.planguard.batchSchema.scope" -> scope,
        "spark.planguard.batchSchema.every" -> "1")
      val dir = temporaryDirectory("planguard-batch").resolve("t").toString
      legalQueries(spark, dir).foreach { case (df, expected) =>
        assert(df.collect().map(_.toString).toSeq == expected)
        assert(checks(df).nonEmpty, finalPlan(df).treeString)
        assert(df.queryExecution.toRdd.count() == expected.size)
      }
      spark.catalog.clearCache()
    }

    test(s"a limit keeps its fast path, checked below it (scope=$scope, adaptive=$adaptive)") {
      val spark = session(Seq(planguard), adaptive, "spark.planguard.batchSchema.scope" -> scope)
      val huge = spark.range(0L, 100000000000L, 1, 4).selectExpr("id", "id * 2 as b")
      assert(huge.limit(2).collect().map(_.getLong(1)).toSeq == Seq(0L, 2L))
      assert(huge.take(1).head.getLong(0) == 0L)
      val df = huge.limit(2)
      df.collect()
      assert(finalPlan(df).isInstanceOf[CollectLimitExec])
      assert(finalPlan(df).children.head.isInstanceOf[CheckBatchSchemaExec])
    }
  }

  for (adaptive <- adaptiveModes) {
    // The description Spark's UI shows of every SQL execution is EXPLAIN FORMATTED's.
    test(s"EXPLAIN FORMATTED shows a check's sample and level, its input as placed " +
      s"(adaptive=$adaptive)") {
      val spark = session(Seq(planguard), adaptive, "spark.planguard.batchSchema.every" -> "7")
      val df = spark.range(3).union(spark.range(2)).selectExpr("id AS x")
      df.collect()
      val described = df.queryExecution.explainString(FormattedMode)
      val check = """\(\d+\) CheckBatchSchema\nInput \[1\]: \[x#\d+L\]\nArguments: (.*)\n""".r
      assert(check.findFirstMatchIn(described).map(_.group(1)).contains("every 7, fail"),
        described)
    }
  }

  test("a dynamic-pruning subquery still reuses its join's broadcast (adaptive=false)") {
    val spark = session(Seq(planguard), adaptive = false,
      "spark.sql.autoBroadcastJoinThreshold" -> "10MB")
    val dir = temporaryDirectory("planguard-dpp").toString
    spark.range(100).selectExpr("id", "id % 10 as p").write.partitionBy("p").parquet(s"$dir/fact")
    spark.range(10).selectExpr("id as p", "id % 2 as even").write.parquet(s"$dir/dim")
    val fact = spark.read.parquet(s"$dir/fact")
    val dim = spark.read.parquet(s"$dir/dim").where("even = 1")
    val df = fact.join(dim, "p").groupBy("even").count()
    val plan = df.queryExecution.executedPlan.toString
    assert(plan.contains("dynamicpruning") && plan.contains("ReusedExchange"), plan)
    assert(df.collect().map(_.toString).toSeq == Seq("[1,50]"))
  }

  test("the sample size is validated where it is set") {
    val spark = session(Seq(planguard), adaptive = false)
    val e = intercept[PlanGuardConfException](
      spark.conf.set("spark.planguard.batchSchema.every", "0"))
    assert(e.getMessage.contains("spark.planguard.batchSchema.every"))
    assert(spark.range(3).collect().length == 3)
  }
}

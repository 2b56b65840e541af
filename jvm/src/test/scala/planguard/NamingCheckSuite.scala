package planguard

import java.io.File

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions._

import planguard.errors.InvariantViolation
import planguard.rules.ApplySpecNames
import planguard.report.ViolationLog
import planguard.testing.{RebalanceBeforeWrite, RebalanceBeforeWriteExtension}

/** NAMING on real writes: generated names warn, generated relation qualifiers fail. */
class NamingCheckSuite extends SparkSessions {

  private def spark(naming: String, confs: (String, String)*): SparkSession = {
    assume(naming != "spec" || ApplySpecNames.supported, "naming=spec needs Spark 4.0")
    val s = newSession(Seq(planguard), Seq("spark.planguard.naming" -> naming,
      "spark.sql.warehouse.dir" -> dir()) ++ confs: _*)
    s.range(3).createOrReplaceTempView("customer")
    s
  }

  private def dir(): String = temporaryDirectory("planguard-naming").toString
  private def path(): String = new File(dir(), "out").getPath

  private def namingRecords(s: SparkSession) = ViolationLog.records(s).filter(_.id == "NAMING")

  /**
   * The writes docs/invariants.md#naming speaks of, each persisting `select` (a SELECT list over
   * customer).
   */
  private def writes(s: SparkSession): Seq[(String, String => Unit)] = Seq(
    "df.write.parquet" -> (q => s.sql(s"SELECT $q FROM customer").write.parquet(path())),
    "saveAsTable" -> (q => s.sql(s"SELECT $q FROM customer").write.saveAsTable(table())),
    "CTAS" -> (q => s.sql(s"CREATE TABLE ${table()} USING parquet AS SELECT $q FROM customer")),
    "INSERT OVERWRITE DIRECTORY" -> (q => s.sql(
      s"INSERT OVERWRITE DIRECTORY '${path()}' USING parquet SELECT $q FROM customer")))

  private var tables = 0
  private def table(): String = { tables += 1; s"written_$tables" }

  for (adaptive <- adaptiveModes) {
    test(s"a generated name persisted by any write warns; the write goes on (adaptive=$adaptive)") {
      val s = spark("spark", "spark.sql.adaptive.enabled" -> adaptive.toString)
      writes(s).foreach { case (how, write) =>
        val before = namingRecords(s).size
        val logged = warningsDuring(write("id, id + 1"))
        val records = namingRecords(s).drop(before)
        assert(records.map(_.level) == Seq("warn"), how)
        assert(records.head.differences == Seq(
          "#1 (id + 1): named by Spark after its expression; name it yourself"), how)
        assert(logged.exists(_.startsWith("[PLANGUARD_NAMING]")), how)
      }
    }
  }

  private val grouped = "SELECT id % 3 AS k, sum(id) FROM customer GROUP BY 1"

  /** A name the user gave over the one Spark generated, in each way a user gives one. */
  private def renamed(s: SparkSession): Seq[(String, DataFrame)] = {
    val df = s.table("customer").select((col("id") % 3).as("k"), col("id"))
    Seq(
      "withColumnRenamed" -> s.sql(grouped).withColumnRenamed("sum(id)", "total"),
      "selectExpr AS" -> s.sql(grouped).selectExpr("k", "`sum(id)` AS total"),
      "alias" -> s.sql(grouped).select(col("k"), col("`sum(id)`").alias("total")),
      "toDF" -> s.sql(grouped).toDF("k", "total"),
      "renamed twice" -> s.sql(grouped).withColumnRenamed("sum(id)", "s")
        .withColumnRenamed("s", "total"),
      "SQL AS over a subquery" -> s.sql(s"SELECT k, `sum(id)` AS total FROM ($grouped)"),
      "a struct's field" -> s.sql("SELECT id % 3 AS k, named_struct('total', sum(id)) AS s " +
        "FROM customer GROUP BY 1"),
      "agg(Map) renamed" -> df.groupBy("k").agg(Map("id" -> "sum"))
        .withColumnRenamed("sum(id)", "total"),
      "sum renamed" -> df.groupBy("k").sum("id").withColumnRenamed("sum(id)", "total"),
      "count renamed" -> df.groupBy("k").agg(count("id")).withColumnRenamed("count(id)", "n"))
  }

  /** The DataFrame writes that store a DataFrame's names, and a CTAS over it as a view. */
  private def dataFrameWrites(s: SparkSession): Seq[(String, DataFrame => Unit)] = Seq(
    "df.write.parquet" -> (_.write.parquet(path())),
    "saveAsTable" -> (_.write.saveAsTable(table())),
    "CTAS over a view" -> { df =>
      df.createOrReplaceTempView("renamed")
      s.sql(s"CREATE TABLE ${table()} USING parquet AS SELECT * FROM renamed")
    })

  for (adaptive <- adaptiveModes) {
    test(s"a name the user gave over a generated one is the user's (NAMING=fail, " +
      s"adaptive=$adaptive)") {
      val s = spark("spark", "spark.planguard.check.NAMING" -> "fail",
        "spark.sql.adaptive.enabled" -> adaptive.toString)
      for ((what, df) <- renamed(s); (how, write) <- dataFrameWrites(s)) {
        write(df)
        assert(namingRecords(s).isEmpty, s"$what, $how: ${namingRecords(s)}")
      }
    }
  }

  test("a generated name handed on unchanged is still Spark's: reported however it is handed on") {
    val s = spark("spark")
    // Made anew for each write: the same DataFrame written again is not reported again.
    val handedOn = Seq[(String, () => DataFrame)](
      "a subquery's column" -> (() => s.sql(s"SELECT k, `sum(id)` FROM ($grouped)")),
      "another column renamed" -> (() => s.sql(grouped).withColumnRenamed("k", "key")),
      "AS its own name" -> (() => s.sql(grouped).selectExpr("k", "`sum(id)` AS `sum(id)`")),
      "toDF with its own name" -> (() => s.sql(grouped).toDF("key", "sum(id)")))
    val dataFrame = if (!ApplySpecNames.supported) Nil else Seq[(String, () => DataFrame)](
      "agg(Map), another column renamed" -> (() => s.table("customer")
        .select((col("id") % 3).as("k"), col("id")).groupBy("k").agg(Map("id" -> "sum"))
        .withColumnRenamed("k", "key")))
    for ((what, df) <- handedOn ++ dataFrame; (how, write) <- dataFrameWrites(s)) {
      val before = namingRecords(s).size
      write(df())
      assert(namingRecords(s).drop(before).map(_.differences) ==
        Seq(Seq("#1 sum(id): named by Spark after its expression; name it yourself")),
        s"$what, $how")
    }
  }

  for (adaptive <- adaptiveModes; (order, rebalanceFirst) <- Seq("planguard first" -> false,
      "planguard last" -> true)) {
    test(s"one write, one report: a CTAS or saveAsTable whose insert another extension " +
      s"rewrote ($order, adaptive=$adaptive)") {
      val rebalance: Extension = new RebalanceBeforeWriteExtension
      val extensions = if (rebalanceFirst) Seq(rebalance, planguard) else Seq(planguard, rebalance)
      val s = newSession(extensions,
        "spark.sql.adaptive.enabled" -> adaptive.toString, "spark.sql.warehouse.dir" -> dir())
      s.range(10).createOrReplaceTempView("customer")
      val writes = Seq[(String, () => Unit)](
        "CTAS" -> (() => s.sql(s"CREATE TABLE ${table()} USING parquet AS $grouped")),
        "saveAsTable" -> (() => s.sql(grouped).write.saveAsTable(table())),
        "df.write.parquet" -> (() => s.sql(grouped).write.parquet(path())))
      writes.foreach { case (how, write) =>
        val (before, rewritten) = (namingRecords(s).size, RebalanceBeforeWrite.rewrites.get)
        write()
        assert(RebalanceBeforeWrite.rewrites.get > rewritten, s"$how: the rule rewrote no write")
        assert(namingRecords(s).drop(before).map(_.differences) ==
          Seq(Seq("#1 sum(id): named by Spark after its expression; name it yourself")), how)
      }
    }
  }

  test("names the user wrote, and INSERT into an existing table, are not reported") {
    val s = spark("spec")
    writes(s).foreach { case (how, write) =>
      write("id, id + 1 AS next, abs(id) AS `abs(id)`, id AS `customer.id`")
      assert(namingRecords(s).isEmpty, how)
    }
    s.sql("CREATE TABLE target (id BIGINT, next BIGINT) USING parquet")
    s.sql("INSERT INTO target SELECT id, id + 1 FROM customer")
    s.table("customer").select(col("id"), col("id") * 2).write.insertInto("target")
    // Spark renames (and casts) the query's columns to the table's: the alias it makes keeps the
    // query column's generated-name metadata, but the name stored is the table's.
    s.sql("CREATE TABLE typed (m MAP<STRING, INT>, n BIGINT) USING parquet")
    s.sql("INSERT INTO typed SELECT map('k', 1), 2")
    s.sql("INSERT INTO typed SELECT map('k', id), id + 1 FROM customer")
    s.range(2).select(map(lit("k"), lit(1)), col("id") + 1).write.insertInto("typed")
    assert(namingRecords(s).isEmpty, namingRecords(s))
  }

  test("naming=spec: a persisted relation qualifier fails the write before it writes anything") {
    val s = spark("spec")
    val out = path()
    val qualified = s.table("customer").select(col("id") + 1)
    val e = intercept[InvariantViolation](qualified.write.parquet(out))
    // The same DataFrame written again fails again.
    intercept[InvariantViolation](qualified.write.parquet(out))
    assert(e.invariant.id == "NAMING")
    assert(e.getMessage.contains(
      "#0 (customer.id + 1): carries the relation qualifier customer."))
    assert(!new File(out).exists())
    writes(s).foreach { case (how, write) =>
      assert(intercept[InvariantViolation](write("abs(id)")).invariant.id == "NAMING", how)
    }
    assert(namingRecords(s).map(_.level).distinct == Seq("fail"))
  }

  test("levels: check.NAMING sets both cases; mode=warn lets the qualifier case through") {
    val s = spark("spec")
    s.conf.set("spark.planguard.check.NAMING", "warn")
    s.table("customer").select(col("id") + 1).write.parquet(path())
    assert(namingRecords(s).map(_.level) == Seq("warn"))
    s.conf.set("spark.planguard.check.NAMING", "off")
    s.table("customer").select(col("id") + 1).write.parquet(path())
    assert(namingRecords(s).size == 1)
    s.conf.unset("spark.planguard.check.NAMING")
    s.conf.set("spark.planguard.mode", "warn")
    s.table("customer").select(col("id") + 1).write.parquet(path())
    assert(namingRecords(s).map(_.level) == Seq("warn", "warn"))
    s.conf.set("spark.planguard.check.NAMING", "fail")
    s.conf.set("spark.planguard.naming", "spark")
    intercept[InvariantViolation](s.table("customer").select(col("id") + 1).write.parquet(path()))
  }

  test("a DataFrame's generated names stay known however many other names Spark generates " +
    "before it is written (no cache to evict them)") {
    assume(ApplySpecNames.supported, "the DataFrame API's generated names are known on 4.0+")
    val s = spark("spark")
    val df = s.table("customer").select(col("id"), col("id") + 1)
    df.queryExecution.assertAnalyzed()
    // 105,000 generated names analyzed after df's, on two threads.
    val wide = (0 until 5000).map(i => s"id + $i")
    val threads = (0 until 2).map { t =>
      new Thread(() => (0 until 21).filter(_ % 2 == t).foreach { _ =>
        s.range(1).selectExpr(wide: _*).queryExecution.assertAnalyzed()
      })
    }
    threads.foreach(_.start())
    threads.foreach(_.join())
    df.write.parquet(path())
    assert(namingRecords(s).map(_.differences) == Seq(
      Seq("#1 (id + 1): named by Spark after its expression; name it yourself")))
  }
}

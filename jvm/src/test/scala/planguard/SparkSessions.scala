package planguard

import java.nio.file.{Files, Path}
import java.util.Comparator

import scala.collection.mutable

import org.apache.logging.log4j.LogManager
import org.apache.logging.log4j.core.{LogEvent, Logger}
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.spark.sql.{DataFrame, SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.functions.col
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import planguard.testing.NewSession

/**
 * Real local sessions, one SparkContext per suite. Each test builds a fresh session with the
 * extensions it needs, in the order it needs them (what spark.sql.extensions would list).
 */
trait SparkSessions extends AnyFunSuite with BeforeAndAfterAll {
  type Extension = SparkSessionExtensions => Unit

  val adaptiveModes: Seq[Boolean] = Seq(true, false)

  /** The smoke tier (`-Dplanguard.tests.tier=smoke`): dev/test-lines in CI, on the lines beside
   *  the default one, whose suites run every setting. */
  val smokeTier: Boolean = sys.props.get("planguard.tests.tier").contains("smoke")

  /** The settings of adaptive execution the long runs of legal statements take: both, but on
   *  alone in the smoke tier. */
  val legalAdaptiveModes: Seq[Boolean] = if (smokeTier) Seq(true) else adaptiveModes

  def newSession(extensions: Seq[Extension], confs: (String, String)*): SparkSession = {
    val builder = SparkSession.builder()
      .master("local[2]")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "4")
      .config("spark.planguard.internalErrors", "fail")
    confs.foreach { case (k, v) => builder.config(k, v) }
    extensions.foreach(e => builder.withExtensions(e))
    NewSession(builder)
  }

  def planguard: Extension = new PlanGuardExtensions

  /** True when the running Spark is `line` ("4.0") or a later line: for SQL only it parses. */
  def sparkAtLeast(line: String): Boolean = {
    def parts(version: String) = version.split("[.-]").take(2).map(_.toInt).toSeq
    val (running, wanted) = (parts(org.apache.spark.SPARK_VERSION), parts(line))
    running(0) > wanted(0) || running(0) == wanted(0) && running(1) >= wanted(1)
  }

  /**
   * Without adaptive execution a broken physical rule runs as a columnar rule, with it as a
   * query-stage preparation rule; planguard listed first or last: (order, adaptive, extensions).
   */
  def brokenRuleCases(columnar: Extension, stagePrep: Extension)
      : Seq[(String, Boolean, Seq[Extension])] =
    for {
      adaptive <- adaptiveModes
      broken = if (adaptive) stagePrep else columnar
      (order, extensions) <- Seq("planguard first" -> Seq(planguard, broken),
        "planguard last" -> Seq(broken, planguard))
    } yield (order, adaptive, extensions)

  /** A session with adaptive execution on or off; broadcast joins off, so joins shuffle. */
  def session(extensions: Seq[Extension], adaptive: Boolean,
      confs: (String, String)*): SparkSession =
    newSession(extensions, Seq("spark.sql.adaptive.enabled" -> adaptive.toString,
      "spark.sql.autoBroadcastJoinThreshold" -> "-1") ++ confs: _*)

  /**
   * A projection over a scan, and one over a shuffled join (an exchange: adaptive execution plans
   * it). The broken test rules reorder both roots.
   */
  def projectedQueries(spark: SparkSession): Seq[DataFrame] = {
    val left = spark.range(20).selectExpr("id as k", "cast(id as int) as a")
    val right = spark.range(20).selectExpr("id as k2", "id * 2 as b")
    Seq(spark.range(5).selectExpr("cast(id as int) as a", "id * 2 as b"),
      left.join(right, col("k") === col("k2")).select("a", "b"))
  }

  private val temporaryDirectories = mutable.ArrayBuffer.empty[Path]

  /** A new directory under java.io.tmpdir, deleted with what is in it once the suite has run. */
  def temporaryDirectory(prefix: String): Path = {
    val dir = Files.createTempDirectory(prefix)
    temporaryDirectories.synchronized(temporaryDirectories += dir)
    dir
  }

  override def afterAll(): Unit = {
    SparkSession.getDefaultSession.foreach(_.stop())
    temporaryDirectories.synchronized(temporaryDirectories.toList).foreach { dir =>
      val paths = Files.walk(dir)
      try paths.sorted(Comparator.reverseOrder[Path]()).forEach(p => Files.deleteIfExists(p))
      finally paths.close()
    }
    super.afterAll()
  }

  /** The messages planguard logs at WARN while `body` runs. */
  def warningsDuring(body: => Unit): Seq[String] = {
    val events = mutable.ArrayBuffer.empty[String]
    val appender = new AbstractAppender("planguard-test", null, null, true, null) {
      override def append(e: LogEvent): Unit = events.synchronized {
        events += e.getMessage.getFormattedMessage
      }
    }
    appender.start()
    val logger = LogManager.getLogger("planguard").asInstanceOf[Logger]
    logger.addAppender(appender)
    try body finally logger.removeAppender(appender)
    events.synchronized(events.toList)
  }
}

package planguard

import scala.collection.mutable

import org.apache.logging.log4j.LogManager
import org.apache.logging.log4j.core.{LogEvent, Logger}
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/**
 * Real local sessions, one SparkContext per suite. Each test builds a fresh session with the
 * extensions it needs, in the order it needs them (what spark.sql.extensions would list).
 */
trait SparkSessions extends AnyFunSuite with BeforeAndAfterAll {
  type Extension = SparkSessionExtensions => Unit

  val adaptiveModes: Seq[Boolean] = Seq(true, false)

  def newSession(extensions: Seq[Extension], confs: (String, String)*): SparkSession = {
    val builder = SparkSession.builder()
      .master("local[2]")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "4")
      .config("spark.planguard.internalErrors", "fail")
    confs.foreach { case (k, v) => builder.config(k, v) }
    extensions.foreach(e => builder.withExtensions(e))
    builder.create()
  }

  def planguard: Extension = new PlanGuardExtensions

  override def afterAll(): Unit = {
    SparkSession.getDefaultSession.foreach(_.stop())
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

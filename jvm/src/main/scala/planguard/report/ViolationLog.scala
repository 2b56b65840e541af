package planguard.report

import java.util.{Collections, WeakHashMap}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.planguard.ListenerBusAccess

import planguard.contract.ViolationRecord

/**
 * Each session's most recent violations, bounded, in the order they were reported, and the
 * number ever reported, which is not. Records are whole when added, so concurrent queries on one
 * session never mix their reports.
 */
object ViolationLog {
  val Capacity = 1000

  /** A session's most recent records, and how many it has had in all. */
  private final class Log {
    val recent = new java.util.ArrayDeque[ViolationRecord]()
    var total = 0L
  }

  private val logs = Collections.synchronizedMap(new WeakHashMap[SparkSession, Log]())

  /**
   * Keeps the record, in the session that started the streaming query too when `session` is the
   * stream's own (GuardedSessions), and posts it to the listener bus (event logs, history server).
   */
  def record(session: SparkSession, record: ViolationRecord): Unit = {
    (session +: GuardedSessions.streamStarter(session).toSeq).foreach { kept =>
      val log = logs.computeIfAbsent(kept, _ => new Log)
      log.synchronized {
        if (log.recent.size == Capacity) log.recent.removeFirst()
        log.recent.addLast(record)
        log.total += 1
      }
    }
    ListenerBusAccess.post(session.sparkContext, PlanGuardViolationEvent(record))
  }

  def records(session: SparkSession): Seq[ViolationRecord] =
    Option(logs.get(session)).map(log => log.synchronized(log.recent.asScala.toList))
      .getOrElse(Nil)

  /** How many violations the session has reported, every level, however many were kept. */
  def count(session: SparkSession): Long =
    Option(logs.get(session)).map(log => log.synchronized(log.total)).getOrElse(0L)

  /** The records as a JSON array, for Python (`ViolationRecordJson` writes each). */
  def json(session: SparkSession): String =
    new ObjectMapper().writeValueAsString(records(session).asJava)
}

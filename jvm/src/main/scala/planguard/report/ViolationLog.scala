package planguard.report

import java.util.{Collections, WeakHashMap}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.planguard.ListenerBusAccess

/**
 * Each session's most recent violations, bounded, in the order they were reported. Records are
 * whole when added, so concurrent queries on one session never mix their reports.
 */
object ViolationLog {
  val Capacity = 1000

  private val logs = Collections.synchronizedMap(
    new WeakHashMap[SparkSession, java.util.ArrayDeque[ViolationRecord]]())

  /** Keeps the record and posts it to the listener bus (event logs, history server). */
  def record(session: SparkSession, record: ViolationRecord): Unit = {
    val log = logs.computeIfAbsent(session, _ => new java.util.ArrayDeque[ViolationRecord]())
    log.synchronized {
      if (log.size == Capacity) log.removeFirst()
      log.addLast(record)
    }
    ListenerBusAccess.post(session.sparkContext, PlanGuardViolationEvent(record))
  }

  def records(session: SparkSession): Seq[ViolationRecord] =
    Option(logs.get(session)).map(log => log.synchronized(log.asScala.toList)).getOrElse(Nil)

  /** The records as a JSON array of objects, for Python. */
  def json(session: SparkSession): String = {
    val mapper = new ObjectMapper()
    val array = mapper.createArrayNode()
    records(session).foreach { r =>
      val o = array.addObject()
      o.put("id", r.id).put("level", r.level).put("phase", r.phase)
        .put("rule", r.rule.orNull).put("expected", r.expected).put("actual", r.actual)
        .put("plan", r.plan).put("time", r.time)
      val differences = o.putArray("differences")
      r.differences.foreach(d => differences.add(d))
    }
    mapper.writeValueAsString(array)
  }
}

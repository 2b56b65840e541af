package planguard.report

import java.util.{Collections, UUID, WeakHashMap}

import scala.util.Try

import org.apache.spark.sql.SparkSession

/**
 * The sessions planguard's rules are part of, and, for a violation found in a streaming query's
 * micro-batch, the one that started the query. Spark runs each stream in a clone of the session
 * that started it (its own state and conf): the clone's violations are the user's, who reads them
 * from that session (`planguard.violations(spark)`, `planguard_violations()`, the pytest plugin's
 * count). The stream's thread carries its query's id; the guarded session among whose active
 * streams that query is started it.
 */
private[planguard] object GuardedSessions {
  // StreamExecution.QUERY_ID_KEY, the same on every line.
  private val StreamQueryId = "sql.streaming.queryId"

  private val sessions =
    Collections.synchronizedSet(Collections.newSetFromMap(
      new WeakHashMap[SparkSession, java.lang.Boolean]))

  def register(session: SparkSession): Unit = sessions.add(session)

  def contains(session: SparkSession): Boolean = sessions.contains(session)

  /**
   * The session that started the streaming query whose micro-batch this thread runs in
   * `session`, when that is another guarded session of its SparkContext; None outside a stream.
   */
  def streamStarter(session: SparkSession): Option[SparkSession] =
    Option(session.sparkContext.getLocalProperty(StreamQueryId))
      .flatMap(id => Try(UUID.fromString(id)).toOption)
      .flatMap { id =>
        val guarded = sessions.synchronized(sessions.toArray(Array.empty[SparkSession]))
        guarded.find { other =>
          (other ne session) && (other.sparkContext eq session.sparkContext) &&
            Try(other.streams.get(id) != null).getOrElse(false)
        }
      }
}

package org.apache.spark.sql.planguard.ui

import scala.util.control.NonFatal

import org.slf4j.LoggerFactory

/**
 * planguard's UI never breaks Spark's, the running application's or the history server's: a
 * failure of its own (a bug, or a class or method that a Spark it was not built for lacks, a
 * LinkageError that NonFatal does not cover) is logged, and Spark goes on without that part.
 */
private[ui] object Contained {
  private val log = LoggerFactory.getLogger("planguard")

  def apply[T](what: String, fallback: => T)(body: => T): T =
    try body catch {
      case e @ (NonFatal(_) | _: LinkageError) =>
        log.warn(s"planguard's UI failed $what; Spark goes on without it.", e)
        fallback
    }
}

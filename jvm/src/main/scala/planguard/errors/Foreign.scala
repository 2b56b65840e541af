package planguard.errors

import scala.util.control.NonFatal

/**
 * What code planguard calls out to threw: Spark's planner and strategies, another extension's
 * strategy or rule, run on planguard's behalf. That code may throw on purpose — Kyuubi's watchdog
 * strategy refuses a scan of too many partitions with MaxPartitionExceedException, thrown while
 * planguard's planner plans a join's or an aggregation's inputs through the session's planner —
 * and what it throws is not planguard's bug. The call is marked where planguard makes it, not
 * guessed from a stack trace afterwards, and its exception travels in this marker to whoever
 * made the call: `rules.Guarded` rethrows the original, the same object, where it records
 * planguard's own failures as INTERNAL_ERROR; a replay that names a rule (attribution) takes it
 * as that rule naming nothing. The marker never reaches the user.
 */
final class Foreign private (val original: Throwable)
  extends RuntimeException(original.toString, original, false, false)

object Foreign {

  /**
   * `call`, what it throws marked as another's: the exceptions `rules.Guarded` would otherwise
   * take for planguard's own (non-fatal ones, and LinkageErrors). Already marked (a call out
   * inside a call out), it passes as it is.
   */
  def apply[T](call: => T): T =
    try call catch {
      case e: Foreign => throw e
      case e @ (NonFatal(_) | _: LinkageError) => throw new Foreign(e)
    }

  /** The exception a call out threw, from its mark. */
  def unapply(e: Throwable): Option[Throwable] = e match {
    case marked: Foreign => Some(marked.original)
    case _ => None
  }
}

package planguard.attribution

/**
 * Whether this thread is replaying Spark's preparation (PreparationReplay): preparing subqueries
 * runs planguard's own rules again, which must then check nothing, nor record anything again
 * (rules.Guarded reads it).
 */
object Replaying {
  private val here = ThreadLocal.withInitial[java.lang.Boolean](() => false)

  /** Whether a replay runs on this thread. */
  def now: Boolean = here.get

  /** `body`, with this thread's checks suspended. */
  def apply[T](body: => T): T = {
    here.set(true)
    try body finally here.set(false)
  }
}

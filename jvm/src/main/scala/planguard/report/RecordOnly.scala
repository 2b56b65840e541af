package planguard.report

import scala.util.DynamicVariable

/**
 * Whether this thread plans a statement that will not run (`planguard check`): its violations are
 * recorded at their level, none thrown or logged, so that all of its checks run and report. Read
 * once by each hook, where its Reporter is made: Spark's planning, which runs the hooks, lies
 * between the tool and the checks.
 */
object RecordOnly {
  private val here = new DynamicVariable(false)

  /** Runs `body` with every violation recorded and none thrown or logged. */
  def apply[T](body: => T): T = here.withValue(true)(body)

  /** True inside `apply`: the statement is planned and will not run. */
  def now: Boolean = here.value
}

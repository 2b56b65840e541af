package planguard.planner.partial

import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow

/**
 * The rows a partial aggregate stops taking, handed from the probe below it (`ProbedInputExec`)
 * to the node above it (`AdaptivePartialAggregateExec`), which runs in the same task: one slot per
 * task attempt, plan node and partition. A slot the task leaves unread (the task fails or stops
 * early) is dropped when the task completes.
 */
private[partial] object HandOff {
  private final case class Slot(taskAttempt: Long, node: Long, partition: Int)

  private val slots = new ConcurrentHashMap[Slot, Iterator[InternalRow]]()

  private def slot(node: Long): Slot = {
    val task = TaskContext.get()
    Slot(task.taskAttemptId(), node, task.partitionId())
  }

  def give(node: Long, rows: Iterator[InternalRow]): Unit = {
    val key = slot(node)
    slots.put(key, rows)
    TaskContext.get().addTaskCompletionListener[Unit](_ => slots.remove(key))
  }

  /** The rows handed over in this task, if the probe handed any. */
  def take(node: Long): Option[Iterator[InternalRow]] = Option(slots.remove(slot(node)))
}

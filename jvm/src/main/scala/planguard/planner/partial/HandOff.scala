package planguard.planner.partial

import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow

/**
 * The rows a partial aggregate stops taking, handed from the probe below it (`ProbedInputExec`)
 * to the node above it (`AdaptivePartialAggregateExec`), which runs in the same task: one slot per
 * task attempt, plan node and partition. A slot the task leaves unread (the task fails or stops
 * early) is dropped when the task completes. Both ends must run on a thread of the task (with its
 * `TaskContext`): a probe without one never gives up, and the node above refuses to run without
 * one rather than miss rows handed over.
 */
private[partial] object HandOff {
  private final case class Slot(taskAttempt: Long, node: Long, partition: Int)

  private val slots = new ConcurrentHashMap[Slot, Iterator[InternalRow]]()

  private def slot(task: TaskContext, node: Long): Slot =
    Slot(task.taskAttemptId(), node, task.partitionId())

  /** Hands `rows` over; false (nothing handed over) outside a task. */
  def give(node: Long, rows: Iterator[InternalRow]): Boolean = Option(TaskContext.get()) match {
    case Some(task) =>
      val key = slot(task, node)
      slots.put(key, rows)
      task.addTaskCompletionListener[Unit](_ => slots.remove(key))
      true
    case None => false
  }

  /** The rows handed over in this task, if the probe handed any. */
  def take(node: Long): Option[Iterator[InternalRow]] = {
    val task = TaskContext.get()
    if (task == null) {
      throw new IllegalStateException("planguard's adaptive partial aggregate ran outside a " +
        "Spark task, where it cannot read the rows its probe passed on: set " +
        "spark.planguard.planner.partialAggregation.adaptive=false")
    }
    Option(slots.remove(slot(task, node)))
  }
}

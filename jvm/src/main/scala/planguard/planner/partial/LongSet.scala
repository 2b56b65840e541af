package planguard.planner.partial

/**
 * The distinct values among the first `capacity` added, in a table of longs with linear probing:
 * the probe of an adaptive partial aggregate adds one key hash per row, and a boxed set cost more
 * than the aggregate it judges. 0 stands for an empty slot; a hash of 0 is counted apart.
 */
private[partial] final class LongSet(capacity: Int) {
  private val slots = new Array[Long](Integer.highestOneBit(math.max(capacity, 1)) * 4)
  private val mask = slots.length - 1
  private var zero = false
  private var distinct = 0
  /** The values added, repeats included. */
  var added = 0

  def size: Int = distinct

  def add(value: Long): Unit = {
    added += 1
    if (value == 0L) {
      if (!zero) { zero = true; distinct += 1 }
    } else {
      var i = (java.lang.Long.hashCode(value * 0x9E3779B97F4A7C15L) & mask)
      while (slots(i) != 0L && slots(i) != value) i = (i + 1) & mask
      if (slots(i) == 0L) { slots(i) = value; distinct += 1 }
    }
  }
}

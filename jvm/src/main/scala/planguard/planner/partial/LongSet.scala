package planguard.planner.partial

/**
 * The distinct values added, in a table of longs with linear probing that doubles when half
 * full: the probe of an adaptive partial aggregate adds one key hash per row, and a boxed set cost
 * more than the aggregate it judges. 0 stands for an empty slot; a hash of 0 is counted apart.
 */
private[partial] final class LongSet {
  private var slots = new Array[Long](1024)
  private var zero = false
  private var distinct = 0
  /** The values added, repeats included. */
  var added = 0

  def size: Int = distinct

  def add(value: Long): Unit = {
    added += 1
    if (value == 0L) {
      if (!zero) { zero = true; distinct += 1 }
    } else if (put(slots, value)) {
      distinct += 1
      if (distinct * 2 > slots.length) grow()
    }
  }

  /** Puts `value` in `table`; true if it was not there. */
  private def put(table: Array[Long], value: Long): Boolean = {
    val mask = table.length - 1
    var i = java.lang.Long.hashCode(value * 0x9E3779B97F4A7C15L) & mask
    while (table(i) != 0L && table(i) != value) i = (i + 1) & mask
    val absent = table(i) == 0L
    if (absent) table(i) = value
    absent
  }

  private def grow(): Unit = {
    val larger = new Array[Long](slots.length * 2)
    slots.foreach(v => if (v != 0L) put(larger, v))
    slots = larger
  }
}

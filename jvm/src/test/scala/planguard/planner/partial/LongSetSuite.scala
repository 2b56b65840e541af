package planguard.planner.partial

import org.scalatest.funsuite.AnyFunSuite

/** The probe's count of distinct key hashes: exact, through growth, 0 and negatives included. */
class LongSetSuite extends AnyFunSuite {

  test("counts distinct values through growth, each repeat once") {
    val set = new LongSet
    val values = (-5000L to 200000L).map(_ * 0x9E3779B97F4A7C15L)
    values.foreach(set.add)
    values.take(1000).foreach(set.add)
    assert(set.size == values.size)
    assert(set.added == values.size + 1000)
  }

  test("0 is a value like the others") {
    val set = new LongSet
    Seq(0L, 0L, 1L, -1L, 1L).foreach(set.add)
    assert(set.size == 3 && set.added == 5)
  }
}

package planguard.stages

/**
 * The words of a stage graph that planguard invents (Spark's own operator names pass through as
 * they are), in this file. Each is an enumeration whose value names are the strings sent to
 * Python, which declares the same enumerations, under the same names, in `planguard._stages`
 * (tests/test_shapes.py compares them).
 */
object StageKind extends Enumeration {
  type StageKind = Value
  /** Writes a shuffle. */
  val ShuffleMap: Value = Value("shuffle map")
  /** Is collected and broadcast. */
  val Broadcast: Value = Value("broadcast")
  /** Is collected for another stage's expression. */
  val Subquery: Value = Value("subquery")
  /** Returns the query's rows (or writes them). */
  val Result: Value = Value("result")
}

/** The exchange that feeds a stage. */
object ExchangeKind extends Enumeration {
  type ExchangeKind = Value
  val Shuffle: Value = Value("shuffle")
  val Broadcast: Value = Value("broadcast")
  val ScalarSubquery: Value = Value("scalar subquery")
  val DynamicPruning: Value = Value("dynamic pruning")
  val Subquery: Value = Value("subquery")
}

/** How rows are spread at a stage boundary (see `BoundaryPartitioning`). */
object PartitioningKind extends Enumeration {
  type PartitioningKind = Value
  val HashKeys: Value = Value("HashKeys")
  val Single: Value = Value("Single")
  val RoundRobin: Value = Value("RoundRobin")
  val Range: Value = Value("Range")
  val Broadcast: Value = Value("Broadcast")
  val KeyGrouped: Value = Value("KeyGrouped")
  /** A subquery's result, on the driver. */
  val Collected: Value = Value("Collected")
  /** An operator partitioned several ways at once (a join's output): its members. */
  val Collection: Value = Value("Collection")
  /** A partitioning of Spark's that planguard does not describe. */
  val Unknown: Value = Value("Unknown")
}

/** The leaf that stands for the read of another stage's output, in place of its exchange. */
object ReadOperator extends Enumeration {
  type ReadOperator = Value
  val ShuffleRead: Value = Value("ShuffleRead")
  val BroadcastRead: Value = Value("BroadcastRead")
}

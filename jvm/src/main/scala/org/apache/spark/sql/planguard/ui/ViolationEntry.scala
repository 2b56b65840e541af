package org.apache.spark.sql.planguard.ui

import org.apache.spark.status.KVUtils.KVIndexParam

import planguard.contract.ViolationRecord

/**
 * A violation as the application's status store keeps it, for the planguard tab: the record,
 * keyed by its place among the application's violations (0 for the first), so that the store
 * lists them in the order they were reported and the newest key counts them all. A history
 * server with a disk store writes it as JSON, the record by its own serializer.
 */
final class ViolationEntry(@KVIndexParam val seq: Long, val violation: ViolationRecord)

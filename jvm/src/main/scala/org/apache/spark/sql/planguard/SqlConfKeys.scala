package org.apache.spark.sql.planguard

import scala.collection.mutable

import org.apache.spark.sql.internal.SQLConf

/**
 * planguard's keys as set in a SQLConf, read from its settings map (private to Spark): every
 * query reads them several times.
 */
object SqlConfKeys {
  /**
   * The value set for `key`, or null. One map lookup: `getConfString` also looks the key up twice
   * among Spark's registered entries, which planguard's keys never are.
   */
  def valueOf(conf: SQLConf, key: String): String = conf.settings.get(key)

  /** The keys set that start with `prefix`, without copying every entry as `getAllConfs` does. */
  def withPrefix(conf: SQLConf, prefix: String): Seq[String] = {
    val keys = mutable.ArrayBuffer.empty[String]
    conf.settings.synchronized {
      val it = conf.settings.keySet.iterator
      while (it.hasNext) {
        val key = it.next()
        if (key.startsWith(prefix)) keys += key
      }
    }
    keys.toSeq
  }
}

package org.apache.spark.sql.planguard

import scala.collection.mutable

import org.apache.spark.sql.internal.SQLConf

/**
 * The keys set in a SQLConf that start with a prefix, read from its settings map (private to
 * Spark) without copying every entry as `getAllConfs` does: this runs on every analyzed query.
 */
object SqlConfKeys {
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

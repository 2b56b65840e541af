package org.apache.spark.sql.planguard

import org.apache.spark.sql.internal.SQLConf

/**
 * planguard's keys registered as Spark SQL conf entries, as Apache Kyuubi's and Delta's are: then
 * `SET`, `spark.conf.set` and a session's initial confs run the key's check before they store a
 * value, so a bad value is refused where it is set and the old one stays; `SET -v` lists the key
 * with its doc. Registered once per JVM (Spark refuses a key registered twice); a key another
 * copy of planguard's jar registered first keeps that copy's entry.
 */
object SqlConfEntries {
  def register(key: String, doc: String, version: String, default: Option[String],
      check: String => Unit): Unit = {
    if (!SQLConf.containsConfigKey(key)) {
      val entry = SQLConf.buildConf(key).doc(doc).version(version).stringConf.transform { v =>
        check(v)
        v
      }
      default match {
        case Some(value) => entry.createWithDefault(value)
        case None => entry.createOptional
      }
    }
  }
}

package planguard.conf

import java.util.Locale

import scala.util.Try

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.planguard.{SqlConfEntries, SqlConfKeys}

import planguard.errors.PlanGuardErrors

/**
 * One `spark.planguard.*` key as planguard reads it: validated against its declared entry where
 * it is set (once `register`ed with Spark) and again on every read, for a value set before then,
 * so that a typo never reaches a check; and read as a `T`
 * (`parse` takes the value's normal form: trimmed, lower case). A query reads each key several
 * times, nearly always as the same string (the default, or the value as set): the last string
 * validated, compared by identity, and its value are kept with the key, so that a read costs one
 * lookup among the conf's settings. Measured (benchmarks/pipeline_overhead.py, 2026-11-25): read
 * plainly (`getConfString`, validated on each read) and listed by `getAllConfs`, planguard cost
 * 1.05x on building a 10- to 40-way join chain, against at most 1.02x with this and SqlConfKeys.
 */
private[conf] final class ConfKey[T](val key: String, entry: ConfEntry, parse: String => T) {
  @volatile private var last: (String, T) = _

  /** The value set, or the default. */
  def read(conf: SQLConf): T = {
    val set = SqlConfKeys.valueOf(conf, key)
    validate(if (set == null) entry.default else set)
  }

  /** The value set, if any. */
  def readSet(conf: SQLConf): Option[T] = Option(SqlConfKeys.valueOf(conf, key)).map(validate)

  /**
   * Registers the key with Spark, so that a value is checked where it is set (`SET`,
   * `spark.conf.set`, a session's initial confs) and a bad one never stored.
   */
  def register(): Unit =
    SqlConfEntries.register(key, entry.doc, entry.since, entry.ownDefault, raw => validate(raw))

  private def validate(raw: String): T = {
    val known = last
    if (known != null && (known._1 eq raw)) known._2
    else {
      val normal = raw.trim.toLowerCase(Locale.ROOT)
      val allowed = entry.allowed match {
        case Seq(PlanGuardConf.PositiveInteger) => Try(normal.toInt).toOption.exists(_ > 0)
        case Seq(PlanGuardConf.Fraction) =>
          Try(normal.toDouble).toOption.exists(f => f >= 0 && f <= 1)
        case _ => entry.allowed.contains(normal)
      }
      if (!allowed) throw PlanGuardErrors.invalidConf(key, raw, entry.allowed, entry.doc)
      val value = parse(normal)
      last = (raw, value)
      value
    }
  }
}

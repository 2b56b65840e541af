package planguard.conf

import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.planguard.SqlConfKeys

import planguard.Invariant
import planguard.errors.PlanGuardErrors

/** One configuration key, as declared in `planguard/confs.json`. */
final case class ConfEntry(key: String, default: String, allowed: Seq[String], since: String,
    doc: String)

/**
 * planguard's configuration. The keys, defaults, allowed values and docs are declared once, in
 * `planguard/confs.json` inside the jar, which the Python package reads too. Every value is
 * validated when it is read, so a typo fails the query that would have relied on it.
 */
object PlanGuardConf {
  val Prefix = "spark.planguard."
  private val CheckPattern = "spark.planguard.check.<INVARIANT>"

  val entries: Seq[ConfEntry] = {
    val in = getClass.getResourceAsStream("/planguard/confs.json")
    try {
      new ObjectMapper().readTree(in).properties().asScala.toSeq.map { e =>
        val v = e.getValue
        ConfEntry(e.getKey, v.get("default").asText(),
          v.get("allowed").elements().asScala.map(_.asText()).toSeq,
          v.get("since").asText(), v.get("doc").asText())
      }
    } finally in.close()
  }

  private def entry(key: String): ConfEntry = entries.find(_.key == key).get

  private val EnabledEntry = entry("spark.planguard.enabled")
  private val ModeEntry = entry("spark.planguard.mode")
  private val CheckEntry = entry(CheckPattern)
  private val InternalErrorsEntry = entry("spark.planguard.internalErrors")
  private val NamingEntry = entry("spark.planguard.naming")
  private val BatchScopeEntry = entry("spark.planguard.batchSchema.scope")
  private val BatchEveryEntry = entry("spark.planguard.batchSchema.every")
  private val PlannerEntry = entry("spark.planguard.planner.enabled")
  private val checkKeys: Map[Invariant, String] =
    Invariant.all.map(i => i -> s"${Prefix}check.${i.id}").toMap
  /** The `allowed` value of a key that takes any positive integer. */
  val PositiveInteger = "<positive integer>"

  /** The kill switch: false makes every planguard rule a no-op. */
  def enabled(conf: SQLConf): Boolean = read(conf, EnabledEntry, EnabledEntry.key).toBoolean

  /**
   * The level of one invariant: its own `check.<ID>` key if set, else `mode`, but no stricter than
   * the invariant's default level.
   */
  def level(conf: SQLConf, invariant: Invariant): Level =
    level(conf, invariant, invariant.defaultLevel)

  /** As above, for a case of an invariant graver than its default level allows (NAMING's). */
  def level(conf: SQLConf, invariant: Invariant, mildest: Level): Level = {
    val key = checkKeys(invariant)
    val set = SqlConfKeys.valueOf(conf, key)
    if (set != null) Level.fromString(validate(CheckEntry, key, set))
    else Level.fromString(read(conf, ModeEntry, ModeEntry.key)).min(mildest)
  }

  /** True when auto-generated column names follow seed 002 (`naming=spec`). */
  def specNaming(conf: SQLConf): Boolean = read(conf, NamingEntry, NamingEntry.key) == "spec"

  /** True when BATCH_SCHEMA also checks every stage's output and every columnar batch. */
  def batchSchemaAtStages(conf: SQLConf): Boolean =
    read(conf, BatchScopeEntry, BatchScopeEntry.key) == "stages"

  /** BATCH_SCHEMA checks a partition's first row or batch and every Nth after it. */
  def batchSchemaEvery(conf: SQLConf): Int = read(conf, BatchEveryEntry, BatchEveryEntry.key).toInt

  /** True when planguard's planner plans aggregations and equi-joins (docs/planner.md). */
  def plannerEnabled(conf: SQLConf): Boolean = read(conf, PlannerEntry, PlannerEntry.key).toBoolean

  /** True when planguard's own unexpected exceptions must fail the query. */
  def failOnInternalError(conf: SQLConf): Boolean =
    read(conf, InternalErrorsEntry, InternalErrorsEntry.key) == "fail"

  /**
   * Validates every `spark.planguard.*` key set in `conf`: unknown keys and invalid values
   * fail with an error that names the key and what is allowed.
   */
  def validateAll(conf: SQLConf): Unit = SqlConfKeys.withPrefix(conf, Prefix).foreach { key =>
    val declared = entries.find(_.key == key).orElse {
      val id = key.stripPrefix(s"${Prefix}check.")
      if (key.startsWith(s"${Prefix}check.") && Invariant.byId.contains(id)) Some(CheckEntry)
      else None
    }
    declared match {
      case Some(e) => read(conf, e, key)
      case None => throw PlanGuardErrors.unknownConf(key,
        entries.map(_.key) ++ Invariant.all.map(i => s"${Prefix}check.${i.id}"))
    }
  }

  /**
   * Keys are read many times per query, mostly as the same string each time (the default, or the
   * value as set): the last string validated for each key, compared by identity, and its value.
   */
  private val lastValidated = new ConcurrentHashMap[String, (String, String)]()

  private def read(conf: SQLConf, e: ConfEntry, key: String): String = {
    val set = SqlConfKeys.valueOf(conf, key)
    validate(e, key, if (set == null) e.default else set)
  }

  private def validate(e: ConfEntry, key: String, raw: String): String = {
    val last = lastValidated.get(key)
    if (last != null && (last._1 eq raw)) last._2
    else {
      val value = raw.trim.toLowerCase(java.util.Locale.ROOT)
      val allowed = if (e.allowed == Seq(PositiveInteger)) value.toIntOption.exists(_ > 0)
        else e.allowed.contains(value)
      if (!allowed) throw PlanGuardErrors.invalidConf(key, raw, e.allowed, e.doc)
      lastValidated.put(key, (raw, value))
      value
    }
  }
}

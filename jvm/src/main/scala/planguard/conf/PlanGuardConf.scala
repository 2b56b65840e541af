package planguard.conf

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.planguard.SqlConfKeys

import planguard.contract.{Invariant, Level}
import planguard.errors.PlanGuardErrors

/** One configuration key, as declared in `planguard/confs.json`. */
final case class ConfEntry(key: String, default: String, allowed: Seq[String], since: String,
    doc: String) {
  /** The default, unless it is another key's value: `check.<ID>`'s is "(spark.planguard.mode)". */
  def ownDefault: Option[String] = Some(default).filterNot(_.startsWith("("))
}

/**
 * planguard's configuration. The keys, defaults, allowed values and docs are declared once, in
 * `planguard/confs.json` inside the jar, which the Python package reads too. Registered with
 * Spark when an extension installs, every value is validated where it is set, as Spark's own are;
 * and when it is read, for a key Spark cannot know (a misspelt one) or a value set before then.
 */
object PlanGuardConf {
  val Prefix = "spark.planguard."
  private val CheckPattern = "spark.planguard.check.<INVARIANT>"
  /** The `allowed` value of a key that takes any positive integer. */
  val PositiveInteger = "<positive integer>"
  /** The `allowed` value of a key that takes any number from 0 to 1. */
  val Fraction = "<fraction between 0 and 1>"

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
  private def key[T](name: String)(parse: String => T): ConfKey[T] =
    new ConfKey(name, entry(name), parse)

  private val Enabled = key("spark.planguard.enabled")(_ == "true")
  private val Mode = key("spark.planguard.mode")(Level.fromString)
  private val InternalErrors = key("spark.planguard.internalErrors")(_ == "fail")
  private val Naming = key("spark.planguard.naming")(_ == "spec")
  private val BatchScope = key("spark.planguard.batchSchema.scope")(_ == "stages")
  private val BatchEvery = key("spark.planguard.batchSchema.every")(_.toInt)
  private val Planner = key("spark.planguard.planner.enabled")(_ == "true")
  private val AdaptivePartial =
    key("spark.planguard.planner.partialAggregation.adaptive")(_ == "true")
  private val ProbeRows = key("spark.planguard.planner.partialAggregation.probeRows")(_.toInt)
  private val SkipRatio = key("spark.planguard.planner.partialAggregation.skipRatio")(_.toDouble)
  private val Eager = key("spark.planguard.planner.eagerAggregation")(identity)
  private val EagerRatio =
    key("spark.planguard.planner.eagerAggregation.maxGroupRatio")(_.toDouble)
  private val JoinHint = key("spark.planguard.differential.joinHint")(identity)
  private val JoinNumber = key("spark.planguard.differential.joinNumber")(_.toInt)
  private val Uncached = key("spark.planguard.differential.uncached")(_ == "true")
  private val DistinctAsGroups =
    key("spark.planguard.differential.distinctAsGroups")(_ == "true")
  private val checkKeys: Map[Invariant, ConfKey[Level]] = Invariant.all.map { i =>
    i -> new ConfKey(s"${Prefix}check.${i.id}", entry(CheckPattern), Level.fromString)
  }.toMap
  private[conf] def checkKey(invariant: Invariant): ConfKey[Level] = checkKeys(invariant)
  private[conf] def mode(conf: SQLConf): Level = Mode.read(conf)
  /** Every key planguard reads, by name. */
  private val keys: Map[String, ConfKey[_]] = (Seq(Enabled, Mode, InternalErrors, Naming,
    BatchScope, BatchEvery, Planner, AdaptivePartial, ProbeRows, SkipRatio, Eager, EagerRatio,
    JoinHint, JoinNumber, Uncached,
    DistinctAsGroups) ++ checkKeys.values)
    .map(k => k.key -> k).toMap

  private lazy val registered: Unit = keys.values.foreach(_.register())

  /** Registers every key with Spark's SQL conf, once per JVM: each extension's `apply` does. */
  def register(): Unit = registered

  /** The kill switch: false makes every planguard rule a no-op. */
  def enabled(conf: SQLConf): Boolean = Enabled.read(conf)

  /** The invariants' levels, as a rule reads them: the mode is read once. */
  def levels(conf: SQLConf): Levels = new Levels(conf)

  /** True when auto-generated column names follow docs/naming.md (`naming=spec`). */
  def specNaming(conf: SQLConf): Boolean = Naming.read(conf)

  /** True when BATCH_SCHEMA also checks every stage's output and every columnar batch. */
  def batchSchemaAtStages(conf: SQLConf): Boolean = BatchScope.read(conf)

  /** BATCH_SCHEMA checks a partition's first row or batch and every Nth after it. */
  def batchSchemaEvery(conf: SQLConf): Int = BatchEvery.read(conf)

  /** True when planguard's planner plans aggregations and equi-joins (docs/planner.md). */
  def plannerEnabled(conf: SQLConf): Boolean = Planner.read(conf)

  /** True when the planner's partial aggregates below a shuffle may give up (docs/planner.md). */
  def adaptivePartialAggregation(conf: SQLConf): Boolean = AdaptivePartial.read(conf)

  /** The rows per partition an adaptive partial aggregate probes before it decides. */
  def partialAggregationProbeRows(conf: SQLConf): Int = ProbeRows.read(conf)

  /** The distinct keys per probed row above which an adaptive partial aggregate gives up. */
  def partialAggregationSkipRatio(conf: SQLConf): Double = SkipRatio.read(conf)

  /** Eager aggregation: `off`, `on` (where it pays) or `always` (wherever sound). */
  def eagerAggregation(conf: SQLConf): String = Eager.read(conf)

  /** The estimated partial groups per row above which eager aggregation does not push. */
  def eagerAggregationMaxGroupRatio(conf: SQLConf): Double = EagerRatio.read(conf)

  /**
   * The differential mode's join variant: the join's number (1 for the first, pre-order) and the
   * hint it gets (`broadcast_left`, ...), when one is set.
   */
  def differentialJoin(conf: SQLConf): Option[(Int, String)] =
    Some(JoinHint.read(conf)).filter(_ != "none").map(hint => (JoinNumber.read(conf), hint))

  /** True when the differential mode computes cached inputs instead of reading them. */
  def differentialUncached(conf: SQLConf): Boolean = Uncached.read(conf)

  /** True when the differential mode computes distinct aggregates over a grouping of their own. */
  def differentialDistinctAsGroups(conf: SQLConf): Boolean = DistinctAsGroups.read(conf)

  /** True when planguard's own unexpected exceptions must fail the query. */
  def failOnInternalError(conf: SQLConf): Boolean = InternalErrors.read(conf)

  /**
   * Validates every `spark.planguard.*` key set in `conf`: unknown keys and invalid values
   * fail with an error that names the key and what is allowed.
   */
  def validateAll(conf: SQLConf): Unit = SqlConfKeys.withPrefix(conf, Prefix).foreach { name =>
    keys.get(name) match {
      case Some(k) => k.read(conf)
      case None => throw PlanGuardErrors.unknownConf(name,
        entries.map(_.key) ++ Invariant.all.map(i => s"${Prefix}check.${i.id}"))
    }
  }
}

package planguard.conf

import org.apache.spark.sql.internal.SQLConf

import planguard.contract.{Invariant, Level}

/**
 * The invariants' levels as one rule reads them from `conf`: each invariant's own key when it is
 * asked for, `spark.planguard.mode` at most once. A rule that checks several invariants of a plan
 * reads the mode once instead of once for each.
 */
final class Levels private[conf] (conf: SQLConf) {
  private lazy val mode: Level = PlanGuardConf.mode(conf)

  /** Its own `check.<ID>` key if set, else the mode, but no stricter than `ceiling`. */
  def apply(invariant: Invariant, ceiling: Level): Level =
    PlanGuardConf.checkKey(invariant).readSet(conf).getOrElse(mode.min(ceiling))

  /** As above, no stricter than the invariant's mode ceiling. */
  def apply(invariant: Invariant): Level = apply(invariant, invariant.modeCeiling)
}

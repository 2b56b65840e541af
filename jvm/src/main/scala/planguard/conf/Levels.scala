package planguard.conf

import org.apache.spark.sql.internal.SQLConf

import planguard.Invariant

/**
 * The invariants' levels as one rule reads them from `conf`: each invariant's own key when it is
 * asked for, `spark.planguard.mode` at most once. A rule that checks several invariants of a plan
 * reads the mode once instead of once for each.
 */
final class Levels private[conf] (conf: SQLConf) {
  private var mode: Level = _

  /** Its own `check.<ID>` key if set, else the mode, but no stricter than `mildest`. */
  def apply(invariant: Invariant, mildest: Level): Level =
    PlanGuardConf.checkKey(invariant).readSet(conf).getOrElse {
      if (mode == null) mode = PlanGuardConf.mode(conf)
      mode.min(mildest)
    }

  /** As above, no stricter than the invariant's default level. */
  def apply(invariant: Invariant): Level = apply(invariant, invariant.defaultLevel)
}

package planguard.contract

/** What a broken invariant does to the query. */
sealed abstract class Level(val name: String, private val severity: Int) {
  def min(other: Level): Level = if (severity <= other.severity) this else other
}

object Level {
  /** Stop the query before any row is produced or any file written. */
  case object Fail extends Level("fail", 2)
  /** Log one warning line and let the query run. */
  case object Warn extends Level("warn", 1)
  /** Do not check. */
  case object Off extends Level("off", 0)

  def fromString(s: String): Level = s match {
    case "fail" => Fail
    case "warn" => Warn
    case "off" => Off
  }
}

package planguard.conf

/** What a broken invariant does to the query. */
sealed abstract class Level(val name: String)

object Level {
  /** Stop the query before any row is produced or any file written. */
  case object Fail extends Level("fail")
  /** Log one warning line and let the query run. */
  case object Warn extends Level("warn")
  /** Do not check. */
  case object Off extends Level("off")

  def fromString(s: String): Level = s match {
    case "fail" => Fail
    case "warn" => Warn
    case "off" => Off
  }
}

package planguard.statements

/** An invariant's verdict on a statement; each name is the string sent to Python. */
object VerdictStatus extends Enumeration {
  type VerdictStatus = Value
  val Pass: Value = Value("pass")
  /** A violation at `fail`. */
  val Fail: Value = Value("fail")
  /** Violations, at `warn` only. */
  val Warn: Value = Value("warn")
  /** The invariant is switched off. */
  val Off: Value = Value("off")
  /** The invariant says nothing of this statement; the reason says why. */
  val NotApplicable: Value = Value("not applicable")
}

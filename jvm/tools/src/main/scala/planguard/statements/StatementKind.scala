package planguard.statements

/** What a statement is, for `planguard check`; each name is the string sent to Python. */
object StatementKind extends Enumeration {
  type StatementKind = Value
  val Query: Value = Value("query")
  /** A write of a query's rows (INSERT, CTAS, df.write-style commands). */
  val Write: Value = Value("write")
  /** Neither: SET, SHOW, CREATE VIEW, ... */
  val Command: Value = Value("command")
}

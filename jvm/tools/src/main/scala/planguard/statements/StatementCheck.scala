package planguard.statements

import java.util.{Collections, IdentityHashMap}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.internal.SQLConf

import planguard.checks.PersistedColumns
import planguard.conf.PlanGuardConf
import planguard.contract.{Invariant, Level, ViolationRecord}
import planguard.report.{RecordOnly, ViolationLog}

/**
 * Every invariant's verdict on one SQL statement, planned and never run (PlannedStatement), for
 * `planguard check`: `pass`, `fail` or `warn` (a violation, at the level the session's confs give
 * it), `off` (switched off), or `not applicable` with the reason. Its JSON (`StatementCheck.json`)
 * has exactly these fields, as Python's `planguard._check_report.InvariantVerdict` has.
 */
final case class InvariantVerdict(
    invariant: String,
    status: VerdictStatus.VerdictStatus,
    reason: String,
    violations: Seq[ViolationRecord])

object StatementCheck {

  /**
   * Plans `sql` with every violation recorded and none thrown, so that all checks run, and judges
   * each invariant by the violations its planning recorded.
   */
  def apply(session: SparkSession, sql: String): (PlannedStatement, Seq[InvariantVerdict]) = {
    val earlier = Collections.newSetFromMap(new IdentityHashMap[ViolationRecord, java.lang.Boolean])
    ViolationLog.records(session).foreach(earlier.add)
    val statement = RecordOnly(PlannedStatement(session, sql))
    val found = ViolationLog.records(session).filterNot(earlier.contains)
    val conf = SQLConf.get
    (statement, Invariant.all.map { invariant =>
      val mine = found.filter(_.id == invariant.id)
      val inapplicable = notApplicable(invariant, statement)
      // The gravest level any case of the invariant runs at (NAMING's qualifier case: the mode).
      val level = if (PlanGuardConf.enabled(conf)) {
        PlanGuardConf.levels(conf)(invariant, Level.Fail)
      } else Level.Off
      if (inapplicable.nonEmpty) {
        InvariantVerdict(invariant.id, VerdictStatus.NotApplicable, inapplicable, Nil)
      } else if (level == Level.Off) {
        InvariantVerdict(invariant.id, VerdictStatus.Off, "switched off", Nil)
      } else if (mine.exists(_.level == Level.Fail.name)) {
        InvariantVerdict(invariant.id, VerdictStatus.Fail, "", mine)
      } else if (mine.nonEmpty) InvariantVerdict(invariant.id, VerdictStatus.Warn, "", mine)
      else InvariantVerdict(invariant.id, VerdictStatus.Pass, "", Nil)
    })
  }

  private def notApplicable(invariant: Invariant, statement: PlannedStatement): String =
    invariant match {
      case Invariant.BatchSchema => "checks rows when the statement runs; check only plans it"
      case Invariant.Naming if statement.kind != StatementKind.Write => "not a write"
      case Invariant.Naming if PersistedColumns(statement.analyzed).isEmpty =>
        "a write into an existing table stores the table's names"
      case Invariant.UniqueField | Invariant.Naming => ""
      case _ if !statement.plannedAQuery => "a command that plans no query"
      case _ => ""
    }

  /**
   * The verdicts as JSON, with the statement's kind, for Python's `planguard check`
   * (`planguard._check_report.CheckReport`: the same fields, under the same names).
   */
  def json(session: SparkSession, sql: String): String = {
    val (statement, verdicts) = apply(session, sql)
    val mapper = new ObjectMapper()
    val o = mapper.createObjectNode().put("kind", statement.kind.toString)
    val array = o.putArray("invariants")
    verdicts.foreach { v =>
      val n = array.addObject().put("invariant", v.invariant).put("status", v.status.toString)
        .put("reason", v.reason)
      // Each record as ViolationRecordJson writes it.
      n.set[JsonNode]("violations", mapper.valueToTree[JsonNode](v.violations.asJava))
    }
    mapper.writeValueAsString(o)
  }
}

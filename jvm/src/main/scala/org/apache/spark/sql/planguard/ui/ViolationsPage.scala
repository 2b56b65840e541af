package org.apache.spark.sql.planguard.ui

import scala.xml.Node

import org.apache.spark.status.KVUtils
import org.apache.spark.ui.{UIUtils, WebUIPage}
import org.apache.spark.util.kvstore.KVStore

import planguard.errors.InvariantViolation
import planguard.shims.Servlet

/**
 * The planguard tab's page: the application's violations, newest first, with the fields of the
 * report (docs/invariants.md, "The report"); or that every invariant has held so far.
 */
final class ViolationsPage(tab: PlanGuardTab, store: KVStore) extends WebUIPage("") {

  private val Headers = Seq("Time", "Invariant", "Level", "Phase", "Rule", "Expected",
    "Actual", "Differences", "Plan")

  override def render(request: Servlet.Request): Seq[Node] = {
    val newestFirst = KVUtils.viewToSeq(store.view(classOf[ViolationEntry]).reverse())
    UIUtils.headerSparkPage(request, "planguard", content(newestFirst), tab)
  }

  private def content(newestFirst: Seq[ViolationEntry]): Seq[Node] =
    newestFirst.headOption match {
      case None => <p>No violation: all invariants hold so far.</p>
      case Some(newest) =>
        val total = newest.seq + 1
        val reported = if (total == 1) "1 violation" else s"$total violations"
        val kept = if (total > newestFirst.size) s", the last ${newestFirst.size} listed" else ""
        <p>{reported} reported by this application{kept}, newest first.</p> ++
          UIUtils.listingTable(Headers, row, newestFirst, id = Some("planguard-violations"))
    }

  private def row(entry: ViolationEntry): Seq[Node] = {
    val v = entry.violation
    <tr>
      <td>{UIUtils.formatDate(v.time)}</td>
      <td>{v.id}</td>
      <td>{v.level}</td>
      <td>{v.phase}</td>
      <td>{InvariantViolation.ruleText(v.rule, v.phase)}</td>
      <td>{v.expected}</td>
      <td>{v.actual}</td>
      <td>{v.differences.map(difference => <div>{difference}</div>)}</td>
      <td>{v.plan}</td>
    </tr>
  }
}

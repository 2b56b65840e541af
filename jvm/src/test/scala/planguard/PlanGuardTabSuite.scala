package planguard

import java.net.URI

import scala.io.{Codec, Source}

import org.apache.spark.sql.SparkSession

import planguard.testing.SwapRootColumnsExtension

/**
 * The UI's planguard tab in a running application (org.apache.spark.sql.planguard.ui): sessions
 * with the UI on (a free port), a broken optimizer rule in warn mode, the tab's page over HTTP.
 * Every session of the suite shares one SparkContext, so each test reads what its own queries
 * added to the page.
 */
class PlanGuardTabSuite extends SparkSessions {

  private val sql = "SELECT CAST(id AS INT) AS a, id * 2 AS b FROM range(5)"

  private def withUi(): SparkSession = {
    val spark = newSession(Seq(planguard, new SwapRootColumnsExtension),
      "spark.ui.enabled" -> "true", "spark.ui.port" -> "0", "spark.planguard.mode" -> "warn")
    assert(spark.sparkContext.uiWebUrl.isDefined, "a SparkContext without its UI was running")
    spark
  }

  private def fetch(spark: SparkSession, path: String): String = {
    val source = Source.fromURL(URI.create(spark.sparkContext.uiWebUrl.get + path).toURL)(
      Codec.UTF8)
    try source.mkString.replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")
    finally source.close()
  }

  /** The tab's page once `shows` holds of it: the listener bus delivers the events later. */
  private def tabOnce(spark: SparkSession)(shows: String => Boolean): String = {
    val deadline = System.nanoTime() + 30L * 1000 * 1000 * 1000
    var page = fetch(spark, "/planguard/")
    while (!shows(page) && System.nanoTime() < deadline) {
      Thread.sleep(100)
      page = fetch(spark, "/planguard/")
    }
    assert(shows(page), page)
    page
  }

  private def reported(page: String): Int =
    """(\d+) violations? reported""".r.findFirstMatchIn(page).fold(0)(_.group(1).toInt)

  test("the tab lists a broken rule's violation, with what broke where; a legal query's none") {
    val spark = withUi()
    // The session's first query builds its state, which installs planguard and the tab.
    spark.conf.set("planguard.testing.SwapRootColumns", "false")
    spark.sql(sql).collect()
    assert(fetch(spark, "/planguard/").contains("No violation: all invariants hold so far."))

    spark.conf.set("planguard.testing.SwapRootColumns", "true")
    spark.sql(sql).collect() // warn mode: the query runs, and its violation is reported
    // Events reach the tab in the order they were posted: the legal query's first, had it any.
    val page = tabOnce(spark)(_.contains("OPTIMIZER_SCHEMA"))
    assert(reported(page) == 1, page)
    Seq("<td>OPTIMIZER_SCHEMA</td>", "<td>warn</td>", "<td>optimization</td>",
      "<td>planguard.testing.SwapRootColumns (batch ", "<td>a INT NOT NULL, b BIGINT NOT NULL",
      "<td>b BIGINT NOT NULL, a INT NOT NULL", "<div>#0 a: name a -> b, type INT -> BIGINT</div>",
      "Project").foreach(shown => assert(page.contains(shown), shown))
  }

  test("one tab and one listener per SparkContext, however many sessions") {
    val (first, second) = (withUi(), withUi())
    assert(first.sparkContext eq second.sparkContext)
    val before = reported(fetch(first, "/planguard/"))
    second.sql(sql).collect()
    first.sql(sql).collect()
    val page = tabOnce(first)(reported(_) >= before + 2)
    assert(reported(page) == before + 2, page)
    val jobs = fetch(second, "/jobs/")
    assert("""href="[^"]*/planguard/"""".r.findAllIn(jobs).size == 1, jobs)
  }
}

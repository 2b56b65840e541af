package planguard

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

import planguard.install.{BuiltFor, ExtensionClasses}
import planguard.install.BuiltFor.Fit
import planguard.planner.PlanGuardPlannerExtensions

/**
 * Which Spark a jar installs on (BuiltFor), on whichever line this build is for. Sessions on a
 * Spark of another line, with the wheel's jars of every line, are tests/test_lines.py's.
 */
class BuiltForSuite extends AnyFunSuite {
  private val lines = BuiltFor.LINES.asScala.toSeq

  test("the jar knows its line and every line, oldest first") {
    assert(BuiltFor.LINE == org.apache.spark.SPARK_VERSION.split('.').take(2).mkString("."))
    assert(lines == Seq("3.5", "4.0", "4.1", "4.2", "4.3"))
  }

  test("a Spark version's line, vendor suffixes included") {
    assert(BuiltFor.lineOf("4.1.1") == "4.1")
    assert(BuiltFor.lineOf("3.5.1-amzn-0") == "3.5")
    assert(BuiltFor.lineOf("4.2.0-SNAPSHOT") == "4.2")
  }

  test("the jar installs on its own line, at any patch release") {
    assert(BuiltFor.fit(org.apache.spark.SPARK_VERSION) == Fit.SAME)
    assert(BuiltFor.fit(s"${BuiltFor.LINE}.99") == Fit.SAME)
  }

  test("another line planguard builds for, an older Spark, or no version: never this jar") {
    lines.filter(_ != BuiltFor.LINE).foreach(l => assert(BuiltFor.fit(s"$l.0") == Fit.OTHER))
    Seq("3.4.1", "2.4.8", "unknown").foreach(v => assert(BuiltFor.fit(v) == Fit.OTHER, v))
  }

  test("a line newer than every line: only the newest line's jar, for its checks") {
    val expected = if (BuiltFor.LINE == lines.last) Fit.NEWER else Fit.OTHER
    Seq("4.4.0", "5.0.0").foreach(v => assert(BuiltFor.fit(v) == expected, v))
    assert(BuiltFor.installs("its checks", true) && BuiltFor.installs("its planner", false))
  }

  test("the extensions' class names, as users list them") {
    assert(ExtensionClasses.CHECKS == classOf[PlanGuardExtensions].getName)
    assert(ExtensionClasses.PLANNER == classOf[PlanGuardPlannerExtensions].getName)
  }
}

"""The pytest plugin, run as a user runs it: pytest in a subprocess on a suite of theirs.

examples/pytest-suite is a small project whose conftest.py builds its own SparkSession, with an
optimizer extension (planguard's deliberately broken SwapRootColumns rule) that one test switches
on; that test's code catches the error, so only planguard's count of violations can fail it. It
runs under pytest-xdist. examples/unittest-suite is written as Apache Spark's PySpark suites are
(a SparkContext first, then SparkSession(sc), in PySpark's own ReusedSQLTestCase);
examples/pytest-spark-suite uses pytest-spark's fixtures. A suite written here has no session
fixture and uses the plugin's `spark`; another runs in a process whose JVM started first.
"""
import os
import shutil
import subprocess
import sys
from xml.etree import ElementTree

import pytest

from conftest import BUILD_TESTS_JAR, ROOT, TESTS_JAR

SAMPLE = ROOT / "examples" / "pytest-suite"
BROKEN = "tests/test_orders.py::test_customer_page_renders"

NO_FIXTURE_SUITE = '''
import planguard


def test_spark_fixture_has_planguard(spark):
    assert planguard.installed(spark)
    assert spark.conf.get("spark.planguard.mode") == "warn"


def test_generated_name_written(spark, tmp_path):
    spark.range(3).selectExpr("id + 1").write.parquet(str(tmp_path / "t"))


def test_violation_raised(spark, tmp_path):
    spark.conf.set("spark.planguard.check.NAMING", "fail")
    try:
        spark.range(3).selectExpr("id * 2").write.parquet(str(tmp_path / "t"))
    finally:
        spark.conf.unset("spark.planguard.check.NAMING")


def test_zz_a_session_stopped_before_any_query_ran_no_query_unchecked(spark):
    from pyspark.sql import SparkSession

    spark.stop()
    # A new context, whose session's state is never built: it stops first.
    SparkSession.builder.master("local[1]").getOrCreate().stop()
'''


# A JVM started before pytest, in the same process: the plugin cannot reach it.
JVM_FIRST = ("-c", "import sys; from pyspark import SparkContext; "
                   "SparkContext('local[1]', 'started-first').setLogLevel('ERROR'); "
                   "import pytest; sys.exit(pytest.main(sys.argv[1:]))")
JVM_FIRST_SUITE = '''
from pyspark.sql import SparkSession


def test_on_the_jvm_started_first():
    assert SparkSession.builder.getOrCreate().range(2).count() == 2
'''


class Run:
    """pytest started in `directory` as a subprocess; `result()` waits for it and returns its
    output and, per test id, (outcome, message)."""

    def __init__(self, directory, name, *args, python=("-m", "pytest"), env=None):
        # Spark skips an extension class it cannot load with a warning: without the jar, a
        # suite's broken rules would not be there to catch.
        assert TESTS_JAR.exists(), f"run `{BUILD_TESTS_JAR}` first (dev/test does)"
        self.junit = directory / f"{name}.xml"
        self.log = directory / f"{name}.log"
        with self.log.open("w") as log:  # a file, not a pipe: no run waits for a reader
            self.process = subprocess.Popen(
                [sys.executable, *python, "-p", "no:cacheprovider",
                 f"--junitxml={self.junit}", f"--basetemp={directory / name}", *args],
                cwd=directory, stdout=log, stderr=subprocess.STDOUT,
                env=dict(os.environ, BROKEN_RULE_JAR=str(TESTS_JAR), **(env or {})))

    def result(self):
        self.process.wait(timeout=600)
        outcomes = {}
        for case in ElementTree.parse(self.junit).iter("testcase"):
            test = case.get("classname").replace(".", "/") + ".py::" + case.get("name")
            problems = [e for e in case if e.tag in ("failure", "error", "skipped")]
            outcomes[test] = (problems[0].tag, problems[0].text) if problems else ("passed", "")
        return self.log.read_text(), outcomes

    def by_name(self):
        """Output and, per test name (a unittest method's, a function's), its outcome."""
        output, outcomes = self.result()
        return output, {test.rsplit("::", 1)[1].rsplit("/", 1)[-1]: outcome
                        for test, outcome in outcomes.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The runs that start Spark, started together: most of their time goes to starting a JVM."""
    sample = tmp_path_factory.mktemp("sample")
    shutil.copytree(SAMPLE, sample, dirs_exist_ok=True)
    no_fixture = tmp_path_factory.mktemp("no-fixture")
    (no_fixture / "pytest.ini").write_text("[pytest]\nplanguard = warn\n"
                                           "planguard_fail_on_warn = true\n")
    (no_fixture / "test_no_fixture.py").write_text(NO_FIXTURE_SUITE)
    suites = {}
    for suite in ("unittest-suite", "pytest-spark-suite"):
        suites[suite] = tmp_path_factory.mktemp(suite)
        shutil.copytree(ROOT / "examples" / suite, suites[suite], dirs_exist_ok=True)
    before = tmp_path_factory.mktemp("before")
    (before / "test_before.py").write_text(JVM_FIRST_SUITE)
    started = {"on": Run(sample, "on", "--planguard", "-n", "2"), "off": Run(sample, "off"),
               "ini": Run(no_fixture, "ini"),
               "unittest": Run(suites["unittest-suite"], "unittest", "--planguard"),
               "pytest-spark": Run(suites["pytest-spark-suite"], "pytest-spark", "--planguard"),
               "before": Run(before, "before", "--planguard", python=JVM_FIRST)}
    yield started
    for run in started.values():  # a run no test waited for (deselected, say)
        run.process.kill()
        run.process.wait()


def test_with_planguard_exactly_the_broken_test_fails_with_the_report(runs):
    output, outcomes = runs["on"].result()
    assert outcomes == {"tests/test_orders.py::test_totals_by_region": ("passed", ""),
                        "tests/test_orders.py::test_export_daily_totals": ("passed", ""),
                        BROKEN: ("failure", outcomes[BROKEN][1])}, output[-3000:]
    message = outcomes[BROKEN][1]
    for part in ["[PLANGUARD_OPTIMIZER_SCHEMA] Invariant OPTIMIZER_SCHEMA broken in phase "
                 "optimization (level fail)", "Rule: planguard.testing.SwapRootColumns",
                 "Expected: customer STRING, region STRING",
                 "Actual:   region STRING, customer STRING",
                 "Differences: #0 customer: name customer -> region"]:
        assert part in message, message
    # The warn-level finding (a Parquet column named `sum(amount)`) is listed, not failed: by
    # pytest-xdist's controller, from the report its worker sent.
    assert "planguard: mode fail" in output
    assert ("tests/test_orders.py::test_export_daily_totals: NAMING (warn) in phase analysis"
            in output), output[-3000:]


def test_sparkcontext_first_unittest_classes_fail_exactly_the_broken_tests(runs):
    """SparkContext(conf=...) then SparkSession(sc), as PySpark's ReusedSQLTestCase: planguard is
    in them; a violation in a newSession() fails its test, and so does a BATCH_SCHEMA violation,
    raised in a task, that an assertRaises(Exception) took for the error it expected."""
    output, outcomes = runs["unittest"].by_name()
    broken = {"test_customer_list", "test_customer_list_in_a_new_session",
              "test_bad_codes_are_rejected"}
    assert {name for name, (outcome, _) in outcomes.items() if outcome != "passed"} == broken, \
        output[-3000:]
    assert "test_totals_by_region" in outcomes and "test_unknown_column_is_an_error" in outcomes
    for name in broken - {"test_bad_codes_are_rejected"}:
        outcome, message = outcomes[name]
        assert outcome == "failure" and message.startswith("planguard: the queries of this test")
        assert "Rule: planguard.testing.SwapRootColumns" in message, message
    outcome, message = outcomes["test_bad_codes_are_rejected"]
    assert outcome == "failure" and message.startswith("planguard: the queries of this test")
    assert "[PLANGUARD_BATCH_SCHEMA] Invariant BATCH_SCHEMA broken in phase execution" in message
    assert "Rule: operator DropLastField (planguard.testing.DropLastFieldExec)" in message
    assert "NOT CHECKED" not in output


def test_pytest_spark_fixtures_and_an_expected_error_that_was_planguards(runs):
    output, outcomes = runs["pytest-spark"].by_name()
    assert outcomes["test_orders_count"] == ("passed", "")
    assert outcomes["test_sql_context"] == ("passed", "")  # SQLContext over spark_context
    outcome, message = outcomes["test_unknown_regions_are_rejected"]
    assert outcome == "failure", output[-3000:]
    assert message.startswith("planguard: the queries of this test")
    assert "[PLANGUARD_OPTIMIZER_SCHEMA]" in message and "NOT CHECKED" not in output


def test_a_jvm_started_before_pytest_is_named_at_the_end(runs):
    output, outcomes = runs["before"].by_name()
    assert outcomes == {"test_on_the_jvm_started_first": ("passed", "")}, output[-3000:]
    line = next(line for line in output.splitlines() if line.startswith("NOT CHECKED"))
    assert line.startswith("NOT CHECKED: test_before.py::test_on_the_jvm_started_first used a "
                           "SparkSession without planguard (app 'started-first')"), line
    assert "Fix: start no JVM before pytest starts" in line


def test_without_planguard_the_suite_is_untouched(runs):
    """The broken rule runs silently: the smoke test passes on a wrong answer."""
    output, outcomes = runs["off"].result()
    assert set(outcomes.values()) == {("passed", "")} and len(outcomes) == 3, output[-3000:]
    assert "planguard: mode" not in output and "PLANGUARD_" not in output


def test_ini_setting_the_plugins_spark_fixture_and_failing_on_warnings(runs):
    output, outcomes = runs["ini"].result()
    test = "test_no_fixture.py::test_"
    assert outcomes[test + "spark_fixture_has_planguard"] == ("passed", ""), output[-3000:]
    outcome, message = outcomes[test + "generated_name_written"]
    assert outcome == "failure" and message.startswith("planguard: the queries of this test")
    assert "[PLANGUARD_NAMING] Invariant NAMING broken in phase analysis (level warn)" in message
    # A violation the test does not catch fails it once, with planguard's own error.
    outcome, message = outcomes[test + "violation_raised"]
    assert outcome == "failure" and "InvariantViolation: [PLANGUARD_NAMING]" in message
    assert "planguard: the queries of this test" not in message
    # A session stopped before it ran a query ran nothing unchecked (Apache Spark's own
    # test_session.py stops sessions so).
    stopped = test + "zz_a_session_stopped_before_any_query_ran_no_query_unchecked"
    assert outcomes[stopped] == ("passed", "") and "NOT CHECKED" not in output, output[-3000:]


def test_mode_off_overrides_the_ini_and_a_bad_mode_is_refused(tmp_path):
    """Off, the plugin adds nothing, not even its `spark` fixture; no Spark session starts."""
    (tmp_path / "pytest.ini").write_text("[pytest]\nplanguard = fail\n")
    (tmp_path / "test_no_fixture.py").write_text(NO_FIXTURE_SUITE)
    output, outcomes = Run(tmp_path, "off", "--planguard-mode=off").result()
    assert {outcome for outcome, _ in outcomes.values()} == {"error"}
    assert all("fixture 'spark' not found" in message for _, message in outcomes.values())
    refused = subprocess.run([sys.executable, "-m", "pytest", "-o", "planguard=loud"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert refused.returncode == pytest.ExitCode.USAGE_ERROR
    assert "planguard = 'loud': allowed modes are fail, warn, off" in refused.stderr

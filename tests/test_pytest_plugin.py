"""The pytest plugin, run as a user runs it: pytest in a subprocess on a suite of theirs.

examples/pytest-suite is a small project whose conftest.py builds its own SparkSession, with an
optimizer extension (planguard's deliberately broken SwapRootColumns rule) that one test switches
on; that test's code catches the error, so only planguard's count of violations can fail it.
A second suite, written here, has no session fixture and uses the plugin's `spark`.
"""
import os
import shutil
import subprocess
import sys
from xml.etree import ElementTree

import pytest

from conftest import ROOT, TESTS_JAR

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
'''


class Run:
    """pytest started in `directory` as a subprocess; `result()` waits for it and returns its
    output and, per test id, (outcome, message)."""

    def __init__(self, directory, name, *args):
        self.junit = directory / f"{name}.xml"
        self.log = directory / f"{name}.log"
        with self.log.open("w") as log:  # a file, not a pipe: no run waits for a reader
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                 f"--junitxml={self.junit}", f"--basetemp={directory / name}", *args],
                cwd=directory, stdout=log, stderr=subprocess.STDOUT,
                env=dict(os.environ, BROKEN_RULE_JAR=str(TESTS_JAR)))

    def result(self):
        self.process.wait(timeout=600)
        outcomes = {}
        for case in ElementTree.parse(self.junit).iter("testcase"):
            test = case.get("classname").replace(".", "/") + ".py::" + case.get("name")
            problems = [e for e in case if e.tag in ("failure", "error", "skipped")]
            outcomes[test] = (problems[0].tag, problems[0].text) if problems else ("passed", "")
        return self.log.read_text(), outcomes


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The runs that start Spark, started together: most of their time goes to starting a JVM."""
    sample = tmp_path_factory.mktemp("sample")
    shutil.copytree(SAMPLE, sample, dirs_exist_ok=True)
    no_fixture = tmp_path_factory.mktemp("no-fixture")
    (no_fixture / "pytest.ini").write_text("[pytest]\nplanguard = warn\n"
                                           "planguard_fail_on_warn = true\n")
    (no_fixture / "test_no_fixture.py").write_text(NO_FIXTURE_SUITE)
    started = {"on": Run(sample, "on", "--planguard"), "off": Run(sample, "off"),
               "ini": Run(no_fixture, "ini")}
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
    # The warn-level finding (a Parquet column named `sum(amount)`) is listed, not failed.
    assert "planguard: mode fail" in output
    assert ("tests/test_orders.py::test_export_daily_totals: NAMING (warn) in phase analysis"
            in output), output[-3000:]


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

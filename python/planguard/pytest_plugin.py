"""pytest plugin: runs an existing PySpark test suite under planguard.

pytest loads it wherever planguard is installed (entry point ``pytest11``), and until it is
switched on it only adds its options, so a suite that does not ask for it runs untouched. It is
switched on by ``pytest --planguard`` (mode ``fail``), ``--planguard-mode=fail|warn|off``, or the
ini setting ``planguard = fail`` (the command line wins). Then:

* every SparkSession the suite builds gets planguard: ``SparkSession.Builder.getOrCreate`` calls
  ``planguard.configure`` on the builder while no session is running, so a suite's own session
  fixture needs no change (its spark.jars and spark.sql.extensions are kept, the mode is the
  plugin's). A builder is the one place that sees both the user's settings and the start of the
  session; PYSPARK_SUBMIT_ARGS would be overridden by any builder that sets spark.sql.extensions.
* after each phase of each test (setup, call, teardown), the violations the session reported
  during it are that phase's: a fail-level one fails the test even when the test's code caught
  the exception, with planguard's report as the message. Warn-level findings are attached to the
  test's report and listed at the end of the run; ``--planguard-fail-on-warn`` (ini
  ``planguard_fail_on_warn = true``) makes them fail the test too.
* a session-scoped ``spark`` fixture (local[2], planguard configured) for suites that have none;
  a suite's own ``spark`` fixture takes precedence over it.

See docs/pytest.md.
"""
import contextlib
import functools

import pytest
from pyspark.sql import SparkSession

import planguard
from planguard import _pytest_spark

MODES = ("fail", "warn", "off")


def pytest_addoption(parser):
    group = parser.getgroup("planguard", "planguard: Spark's planning contracts on every query")
    group.addoption("--planguard", action="store_const", const="fail", dest="planguard",
                    help="run every test under planguard in fail mode (--planguard-mode=fail)")
    group.addoption("--planguard-mode", choices=MODES, dest="planguard",
                    help="run every test under planguard in this mode; off switches the plugin "
                         "off (overrides the ini setting `planguard`)")
    group.addoption("--planguard-fail-on-warn", action="store_true", default=None,
                    dest="planguard_fail_on_warn",
                    help="also fail a test on a warn-level planguard finding")
    parser.addini("planguard", "planguard mode for every test: fail, warn or off", default="off")
    parser.addini("planguard_fail_on_warn", "also fail a test on a warn-level planguard finding",
                  type="bool", default=False)


def pytest_configure(config):
    mode = (config.getoption("planguard") or config.getini("planguard")).strip().lower()
    if mode not in MODES:
        raise pytest.UsageError(f"planguard = {mode!r}: allowed modes are {', '.join(MODES)}")
    if mode == "off":
        return
    fail_on_warn = config.getoption("planguard_fail_on_warn")
    if fail_on_warn is None:
        fail_on_warn = config.getini("planguard_fail_on_warn")
    config.pluginmanager.register(Guard(mode, fail_on_warn), "planguard-guard")
    config.pluginmanager.register(_pytest_spark, "planguard-spark")


class Guard:
    """The plugin while planguard is on: configures builders, checks each test, reports."""

    def __init__(self, mode: str, fail_on_warn: bool):
        self.mode = mode
        self.fail_on_warn = fail_on_warn
        self._counts = {}  # JVM session -> its violation count at the end of the last phase
        self._unchecked = {}  # JVM session without planguard -> the first test that used it
        self._findings = []  # (test id, violation) below the level that fails a test
        self._original_get_or_create = SparkSession.Builder.getOrCreate
        SparkSession.Builder.getOrCreate = self._configuring(self._original_get_or_create)

    def _configuring(self, get_or_create):
        @functools.wraps(get_or_create)
        def configured_get_or_create(builder):
            if SparkSession.getActiveSession() is None:
                planguard.configure(builder, mode=self.mode)
            return get_or_create(builder)

        return configured_get_or_create

    def pytest_unconfigure(self):
        SparkSession.Builder.getOrCreate = self._original_get_or_create

    def pytest_report_header(self):
        warnings = "fail" if self.fail_on_warn else "are listed, not failed"
        return f"planguard: mode {self.mode}; warn-level findings {warnings}"

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item):
        __tracebackhide__ = True
        return (yield from self._checked(item, "setup"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        __tracebackhide__ = True
        return (yield from self._checked(item, "call"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item):
        __tracebackhide__ = True
        return (yield from self._checked(item, "teardown"))

    def _checked(self, item, when):
        """Runs one phase, then fails it on the fail-level violations reported meanwhile. A phase
        that raised keeps its own error; its violations are attached to its report."""
        __tracebackhide__ = True
        try:
            result = yield
        except BaseException:
            with contextlib.suppress(Exception):  # never hide the test's own error
                self._attach(item, when, self._violations_of_phase(item))
            raise
        violations = self._violations_of_phase(item)
        if any(self._fails(v) for v in violations):
            _fail(violations)
        self._attach(item, when, violations)
        return result

    def _fails(self, violation: dict) -> bool:
        return violation["level"] == "fail" or (self.fail_on_warn and violation["level"] == "warn")

    def _attach(self, item, when, violations: list):
        if violations:
            item.add_report_section(when, "planguard", "\n\n".join(map(_describe, violations)))

    def _violations_of_phase(self, item) -> list:
        """What the running session reported since the last phase; the ones below the level that
        fails a test are kept for the summary."""
        violations = self._reported_since_last_phase(item)
        self._findings += [(item.nodeid, v) for v in violations if not self._fails(v)]
        return violations

    def _reported_since_last_phase(self, item) -> list:
        spark = SparkSession.getActiveSession()
        if spark is None:
            return []
        key = spark._jsparkSession.hashCode()
        if key in self._unchecked:
            return []
        if key not in self._counts and not planguard.installed(spark):
            self._unchecked[key] = item.nodeid
            return []
        count = planguard.violation_count(spark)
        new = count - self._counts.get(key, 0)
        self._counts[key] = count
        # The session keeps its last 1000 violations: a phase that reported more shows those.
        return planguard.violations(spark)[-new:] if new > 0 else []

    def pytest_terminal_summary(self, terminalreporter):
        if not self._findings and not self._unchecked:
            return
        terminalreporter.section("planguard")
        for test in self._unchecked.values():
            terminalreporter.line(
                f"NOT CHECKED: the SparkSession in use from {test} on has no planguard: it was "
                "started before the plugin could configure its builder (through a SparkContext, "
                "or getOrCreate on a session already running). Its queries were not checked.",
                yellow=True)
        if self._findings:
            terminalreporter.line(
                f"{len(self._findings)} finding(s) below the level that fails a test "
                "(--planguard-fail-on-warn fails warn-level ones):")
        for test, violation in self._findings:
            terminalreporter.line(f"{test}: {violation['id']} ({violation['level']}) in phase "
                                  f"{violation['phase']}, rule {_rule(violation)}")


def _fail(violations: list):
    # Not hidden from tracebacks: pytest shows the message of the frame that failed.
    pytest.fail(f"planguard: the queries of this test broke {len(violations)} planning "
                "contract(s) and the test went on (its code caught the error, or the level was "
                "warn):\n\n" + "\n\n".join(map(_describe, violations)), pytrace=False)


def _describe(violation: dict) -> str:
    """One violation as planguard's error message words it."""
    lines = [f"[PLANGUARD_{violation['id']}] Invariant {violation['id']} broken in phase "
             f"{violation['phase']} (level {violation['level']}). "
             f"Rule: {_rule(violation)}.",
             f"Expected: {violation['expected']}",
             f"Actual:   {violation['actual']}"]
    if violation["differences"]:
        lines.append("Differences: " + "; ".join(violation["differences"]))
    lines.append(f"Plan: {violation['plan']}")
    return "\n".join(lines)


def _rule(violation: dict) -> str:
    # As the error message words it: an analysis check sees the query before any rule ran.
    if violation["rule"]:
        return violation["rule"]
    return "none (the query as written)" if violation["phase"] == "analysis" else "unknown"

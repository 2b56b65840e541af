"""The pytest plugin while planguard is on (registered by ``planguard.pytest_plugin``): configures
every SparkSession builder, fails the test whose queries broke a contract, lists the findings."""
import contextlib
import functools

import pytest
from pyspark.sql import SparkSession

import planguard


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

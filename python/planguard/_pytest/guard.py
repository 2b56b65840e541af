"""The pytest plugin while planguard is on (registered by ``planguard.pytest_plugin``): planguard
in every session the suite starts, the test whose queries broke a contract failed, the findings
listed at the end of the run (from the tests' reports, so that pytest-xdist's workers' are too)."""
import contextlib
from typing import NamedTuple, Optional

import pytest

import planguard
from planguard._pytest.phases import EachPhase
from planguard._pytest.raised import Raised
from planguard._pytest.sessions import Sessions

# The findings of the phase that just ran, kept on its test until its report is made.
_PHASE_FINDINGS = pytest.StashKey[list]()
_PHASE_UNCHECKED = pytest.StashKey[list]()


class Finding(NamedTuple):
    """A violation a phase's queries reported or raised, as the plugin reports it."""

    id: str
    level: str
    phase: str
    rule: Optional[str]  # None where planguard could not tell
    report: str  # planguard's error message for it


class Guard(EachPhase):
    """The plugin while planguard is on: installs it, checks each test, reports."""

    def __init__(self, mode: str, fail_on_warn: bool):
        self.mode = mode
        self.fail_on_warn = fail_on_warn
        self._sessions = Sessions(mode)
        self._raised = Raised()
        self._counts = {}  # JVM session -> its violation count at the end of the last phase
        self._unchecked = set()  # JVM sessions without planguard, each reported once
        self._findings = []  # lines of the summary: findings below the level that fails a test
        self._unchecked_lines = []  # lines of the summary: tests that used a session unchecked

    def pytest_unconfigure(self):
        self._sessions.uninstall()
        self._raised.uninstall()

    def pytest_report_header(self):
        warnings = "fail" if self.fail_on_warn else "are listed, not failed"
        return f"planguard: mode {self.mode}; warn-level findings {warnings}"

    def _checked(self, item, when):
        """Runs one phase, then fails it on the fail-level violations reported or raised
        meanwhile. A phase that raised keeps its own error; its violations are attached to its
        report."""
        __tracebackhide__ = True
        try:
            result = yield
        except BaseException:
            with contextlib.suppress(Exception):  # never hide the test's own error
                self._attach(item, when, self._findings_of_phase(item))
            raise
        findings = self._findings_of_phase(item)
        if any(self._fails(f) for f in findings):
            _fail(findings)
        self._attach(item, when, findings)
        return result

    def _fails(self, finding: Finding) -> bool:
        return finding.level == "fail" or (self.fail_on_warn and finding.level == "warn")

    def _attach(self, item, when, findings: list):
        if findings:
            item.add_report_section(when, "planguard", "\n\n".join(f.report for f in findings))

    def _findings_of_phase(self, item) -> list:
        """What the suite's sessions reported, and PySpark raised, since the last phase; the
        findings below the level that fails a test are kept for the phase's report, each once
        (a query run again, by the test or by the differential mode, reports its own again)."""
        findings = self._reported_since_last_phase(item) + [
            Finding(v.invariant, "fail", v.phase, v.rule, str(v))
            for v in self._raised.take()]
        item.stash[_PHASE_FINDINGS] = list(dict.fromkeys(
            f"{item.nodeid}: {f.id} ({f.level}) in phase {f.phase}"
            + (f", rule {f.rule}" if f.rule else "")
            for f in findings if not self._fails(f)))
        return findings

    def _reported_since_last_phase(self, item) -> list:
        found = []
        for key, spark in self._sessions.running().items():
            if key in self._unchecked:
                continue
            if key not in self._counts and not planguard.installed(spark):
                if _listed_by_its_context(spark):
                    # Stopped before any query built its state: nothing ran unchecked.
                    continue
                self._unchecked.add(key)
                item.stash.setdefault(_PHASE_UNCHECKED, []).append(_unchecked(item, spark))
                continue
            count = planguard.violation_count(spark)
            new = count - self._counts.get(key, 0)
            self._counts[key] = count
            # The session keeps its last 1000 violations: a phase that reported more shows those.
            found += [_finding(v) for v in planguard.violations(spark)[-new:]] if new > 0 else []
        return found

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item):
        """The phase's summary lines go on its report, which pytest-xdist sends from a worker."""
        report = yield
        report.planguard_findings = item.stash.get(_PHASE_FINDINGS, [])
        report.planguard_unchecked = item.stash.get(_PHASE_UNCHECKED, [])
        item.stash[_PHASE_FINDINGS] = item.stash[_PHASE_UNCHECKED] = []
        return report

    def pytest_runtest_logreport(self, report):
        self._findings += getattr(report, "planguard_findings", [])
        self._unchecked_lines += getattr(report, "planguard_unchecked", [])

    def pytest_terminal_summary(self, terminalreporter):
        if not self._findings and not self._unchecked_lines:
            return
        terminalreporter.section("planguard")
        for line in self._unchecked_lines:
            terminalreporter.line(line, yellow=True)
        if self._findings:
            terminalreporter.line(
                f"{len(self._findings)} finding(s) below the level that fails a test "
                "(--planguard-fail-on-warn fails warn-level ones):")
        for line in self._findings:
            terminalreporter.line(line)


def _listed_by_its_context(spark) -> bool:
    """Whether the session's SparkContext lists planguard's extension, which every session of
    the context installs when its state is built: a session not yet built (and whose context
    stopped, so that it never will be) is not one without planguard."""
    listed = spark._jsparkSession.sparkContext().conf().get("spark.sql.extensions", "")
    return planguard.EXTENSION_CLASS in [name.strip() for name in listed.split(",")]


def _unchecked(item, spark) -> str:
    return (f"NOT CHECKED: {item.nodeid} used a SparkSession without planguard (app "
            f"{spark.sparkContext.appName!r}), so its queries were not checked: its JVM was "
            "started without planguard's jar, before the plugin loaded (a SparkContext started "
            "in the process before pytest.main, or by a plugin loaded ahead of planguard). Fix: "
            "start no JVM before pytest starts, or start it with planguard "
            "(planguard.configure(builder), or spark-submit --jars <planguard.jar_path()> --conf "
            "spark.sql.extensions=planguard.PlanGuardExtensions).")


def _finding(violation: dict) -> Finding:
    return Finding(violation["id"], violation["level"], violation["phase"], violation["rule"],
                   _describe(violation))


def _fail(findings: list):
    # Not hidden from tracebacks: pytest shows the message of the frame that failed.
    pytest.fail(f"planguard: the queries of this test broke {len(findings)} planning "
                "contract(s) and the test went on (its code caught the error, or the level was "
                "warn):\n\n" + "\n\n".join(f.report for f in findings), pytrace=False)


def _describe(violation: dict) -> str:
    """One violation as planguard's error message words it."""
    rule = f" Rule: {violation['rule']}." if violation["rule"] else ""
    lines = [f"[PLANGUARD_{violation['id']}] Invariant {violation['id']} broken in phase "
             f"{violation['phase']} (level {violation['level']}).{rule}",
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

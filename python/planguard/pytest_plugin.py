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
import pytest

# pytest imports this module in every run where planguard is installed: PySpark and planguard's
# session code are imported only once the plugin is switched on.

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
    from planguard import _pytest_guard, _pytest_spark

    config.pluginmanager.register(_pytest_guard.Guard(mode, fail_on_warn), "planguard-guard")
    config.pluginmanager.register(_pytest_spark, "planguard-spark")

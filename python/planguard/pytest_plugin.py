"""pytest plugin: runs an existing PySpark test suite under planguard.

pytest loads it wherever planguard is installed (entry point ``pytest11``), and until it is
switched on it only adds its options, so a suite that does not ask for it runs untouched. It is
switched on by ``pytest --planguard`` (mode ``fail``), ``--planguard-mode=fail|warn|off``, or the
ini setting ``planguard = fail`` (the command line wins). Then:

* every JVM, SparkContext and SparkSession the suite starts gets planguard, however it starts
  them (a builder, ``SparkContext(conf=...)`` then ``SparkSession(sc)``, ``newSession()``,
  ``SQLContext``, another plugin's fixture): planguard's jar and extension are added to the
  confs PySpark starts the JVM and each SparkContext with (``planguard._pytest.sessions``),
  keeping what the suite lists, and the mode is the plugin's. The plugin is switched on before
  pytest imports the suite's conftest.py files, so a session they start at import is reached
  too; one whose JVM started before the plugin loaded cannot be, and is named at the end.
* after each phase of each test (setup, call, teardown), the violations the sessions reported
  during it, and those PySpark raised (BATCH_SCHEMA's, found in tasks), are that phase's: a
  fail-level one fails the test even when the test's code caught the exception
  (``pytest.raises(Exception)``, ``assertRaises``), with planguard's report as the message.
  Warn-level findings are attached to the test's report and listed at the end of the run (a
  pytest-xdist worker's too); ``--planguard-fail-on-warn`` (ini ``planguard_fail_on_warn =
  true``) makes them fail the test too.
* with ``--planguard-differential`` (ini ``planguard_differential = true``; a CI mode, off by
  default, with or without the checks): every distinct query a test's actions run is run again
  under plans Spark must agree with and its rows compared; a difference fails the test
  (``planguard._pytest.differential``). ``--planguard-differential-max-variants=N`` bounds the
  plans run per query.
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
    group.addoption("--planguard-differential", action="store_true", default=None,
                    dest="planguard_differential",
                    help="run every distinct query of each test again under plans Spark must "
                         "agree with and fail the test where its rows differ (a CI mode)")
    group.addoption("--planguard-differential-max-variants", type=int, default=None,
                    metavar="N", dest="planguard_differential_max_variants",
                    help="run each query under at most N variant plans (0, the default: all)")
    parser.addini("planguard", "planguard mode for every test: fail, warn or off", default="off")
    parser.addini("planguard_fail_on_warn", "also fail a test on a warn-level planguard finding",
                  type="bool", default=False)
    parser.addini("planguard_differential", "differential mode: each test's queries run again "
                  "under plans Spark must agree with", type="bool", default=False)
    parser.addini("planguard_differential_max_variants", "variant plans run per query in the "
                  "differential mode (0: all)", default="0")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config):
    """Switches planguard on before the suite's conftest.py files are imported: a session one
    starts at import gets planguard too. The options are parsed by then, the ini file read."""
    options = early_config.known_args_namespace
    mode = (options.planguard or early_config.getini("planguard")).strip().lower()
    if mode not in MODES:
        raise pytest.UsageError(f"planguard = {mode!r}: allowed modes are {', '.join(MODES)}")
    differential = _option(early_config, "planguard_differential")
    if mode == "off" and not differential:
        return
    fail_on_warn = _option(early_config, "planguard_fail_on_warn")
    from planguard._pytest import guard as _pytest_guard, spark as _pytest_spark

    # The differential mode alone: planguard's jar and extension in every session, checks off.
    early_config.pluginmanager.register(_pytest_guard.Guard(mode, fail_on_warn), "planguard-guard")
    if differential:
        from planguard._pytest import differential as _pytest_differential

        max_variants = int(_option(early_config, "planguard_differential_max_variants"))
        early_config.pluginmanager.register(
            _pytest_differential.Differential(max_variants), "planguard-differential")
    early_config.pluginmanager.register(_pytest_spark, "planguard-spark")


def _option(config, name: str):
    """The command line's value, else the ini file's."""
    value = getattr(config.known_args_namespace, name)
    return config.getini(name) if value is None else value

"""Registering planguard in a SparkSession builder, and asking a running session about it."""
import functools
import json
import warnings
from typing import Callable, Dict, Optional

from pyspark.sql import SparkSession

from planguard import _violations
from planguard._configuration_error import ConfigurationError
from planguard._errors import install_error_conversion
from planguard._jar import declared_confs, jar_path, running_line, tools_jar_path

EXTENSION_CLASS = "planguard.PlanGuardExtensions"
PLANNER_EXTENSION_CLASS = "planguard.planner.PlanGuardPlannerExtensions"
# planguard's section of EXPLAIN (Spark 4.0's extended explain providers; not on Spark 3.5).
EXPLAIN_CLASS = "planguard.explain.PlanGuardExplain"
_EXPLAIN_KEY = "spark.sql.extendedExplainProviders"
_PREFIX = "spark.planguard."
_CHECK_KEY = "spark.planguard.check.<INVARIANT>"
_PLANNER_KEY = "spark.planguard.planner.enabled"
_POSITIVE_INTEGER = "<positive integer>"  # the `allowed` of a key taking any positive integer
_FRACTION = "<fraction between 0 and 1>"  # the `allowed` of a key taking any number from 0 to 1


def configure(builder: SparkSession.Builder, mode: str = "fail", planner: bool = False,
              tools: bool = False, explain: bool = False,
              **confs: object) -> SparkSession.Builder:
    """Adds planguard to a SparkSession builder and returns the builder.

    Appends the bundled jar to ``spark.jars`` and ``planguard.PlanGuardExtensions`` to
    ``spark.sql.extensions`` (with ``planner=True``,
    ``planguard.planner.PlanGuardPlannerExtensions`` too: planguard's planner, docs/planner.md),
    and with ``tools=True`` the tools' jar to ``spark.jars`` (what :func:`planguard.stages` and
    :func:`planguard.explain` call on the JVM), keeping what was there and never adding anything
    twice, and sets ``spark.planguard.*``
    confs: ``mode`` and any ``**confs``, named with or without the ``spark.planguard.`` prefix
    (``configure(b, **{"check.OPTIMIZER_SCHEMA": "warn"})``).
    With ``explain=True``, on Spark 4, appends ``planguard.explain.PlanGuardExplain`` to
    ``spark.sql.extendedExplainProviders`` (keeping the providers listed), so that EXPLAIN and the
    UI's SQL tab end with planguard's findings. Not by default: Spark then adds the section to
    every EXPLAIN, which would change what a session prints. Spark 3.5 has no such providers: there
    it warns and lists nothing.
    Installs the error conversion (:func:`install_error_conversion`), so that a violation raises
    :class:`InvariantViolation`.

    Raises ConfigurationError when a SparkSession is already running: Spark would silently
    ignore ``spark.jars`` and ``spark.sql.extensions`` for it. Raises ValueError for an unknown
    conf or value, and for ``planner.enabled`` without ``planner=True`` (it would do nothing).
    """
    _refuse_when_running()
    settings = {_PREFIX + "mode": mode}
    for key, value in confs.items():
        settings[key if key.startswith(_PREFIX) else _PREFIX + key] = value
    if _PLANNER_KEY in settings and not planner:
        raise ValueError(f"{_PLANNER_KEY} has no effect without planguard's planner: "
                         "configure(builder, planner=True) installs it")
    for key, value in settings.items():
        builder.config(key, _validated(key, value))
    options = builder._options
    for key, value in installing(options.get, planner=planner, tools=tools).items():
        builder.config(key, value)
    if explain and running_line() == "3.5":
        warnings.warn("Spark 3.5 has no extended explain providers: EXPLAIN shows no planguard "
                      "section there; planguard.violations(spark) and SELECT * FROM "
                      "planguard_violations() report the findings", stacklevel=2)
    elif explain:
        builder.config(_EXPLAIN_KEY, _append(options.get(_EXPLAIN_KEY), EXPLAIN_CLASS))
    install_error_conversion()
    return builder


def installing(listed: Callable[[str], Optional[str]], planner: bool = False,
               tools: bool = False) -> Dict[str, str]:
    """The ``spark.jars`` and ``spark.sql.extensions`` that install planguard where ``listed``
    (a key's value, or None) gives these confs: planguard's jar and extension (with ``tools``, the
    tools' jar; with ``planner``, the planner's extension) appended to what they list, never
    twice. What :func:`configure` sets on a builder, and the pytest plugin on every SparkConf a
    suite starts a JVM or a SparkContext with."""
    jars = [jar_path()] + ([tools_jar_path()] if tools else [])
    extensions = [EXTENSION_CLASS] + ([PLANNER_EXTENSION_CLASS] if planner else [])
    return {"spark.jars": functools.reduce(_append, jars, listed("spark.jars")),
            "spark.sql.extensions": functools.reduce(_append, extensions,
                                                     listed("spark.sql.extensions"))}


def installed(spark: SparkSession) -> bool:
    """True when planguard's rules are part of this running session."""
    try:
        return bool(spark._jvm.planguard.PlanGuard.installed(spark._jsparkSession))
    except Exception:  # the jar is not on this session's classpath
        return False


def _refuse_when_running():
    active = SparkSession.getActiveSession()
    if active is not None:
        raise ConfigurationError(
            "planguard.configure() was called while a SparkSession is running "
            f"(app {active.sparkContext.appName!r}). Spark applies spark.jars and "
            "spark.sql.extensions only when it starts, so planguard would silently not be "
            "installed. Call spark.stop() first, or configure the builder before any session "
            "exists; with spark-submit use --jars and --conf spark.sql.extensions instead.")


def _validated(key: str, value) -> str:
    text = str(value).lower() if isinstance(value, bool) else str(value)
    declared = declared_confs()
    entry = declared.get(key)
    if entry is None and key.startswith(_PREFIX + "check."):
        entry = declared[_CHECK_KEY]
    if entry is None:
        raise ValueError(f"Unknown planguard conf {key!r}; planguard's confs are: "
                         f"{', '.join(declared)}")
    value = text.strip().lower()
    if entry["allowed"] == [_POSITIVE_INTEGER]:
        allowed = value.isdigit() and int(value) > 0
    elif entry["allowed"] == [_FRACTION]:
        allowed = _fraction(value)
    else:
        allowed = value in entry["allowed"]
    if not allowed:
        raise ValueError(f"Invalid value {text!r} for {key}: allowed values are "
                         f"{', '.join(entry['allowed'])}. {entry['doc']}")
    return text


def _fraction(value: str) -> bool:
    try:
        return 0 <= float(value) <= 1
    except ValueError:
        return False


def _append(csv, item: str) -> str:
    items = [x.strip() for x in (csv or "").split(",") if x.strip()]
    return ",".join(items if item in items else items + [item])


def violations(spark: SparkSession) -> list:
    """The session's most recent violations (up to 1000), those found in the micro-batches of the
    streaming queries it started included, oldest first, as dicts with keys
    id, level, phase, rule, expected, actual, differences, plan, time (ms since the epoch).
    Internal errors of planguard itself appear with id INTERNAL_ERROR."""
    return [_violations.read(r) for r in
            json.loads(spark._jvm.planguard.PlanGuard.violationsJson(spark._jsparkSession))]


def violation_count(spark: SparkSession) -> int:
    """How many violations the session has reported since it started, every level, INTERNAL_ERROR
    included — counted on the JVM, so unlike :func:`violations` it never drops old ones: compare
    two counts to tell whether anything between them was reported."""
    return int(spark._jvm.planguard.PlanGuard.violationCount(spark._jsparkSession))

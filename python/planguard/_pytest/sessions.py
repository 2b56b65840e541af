"""Every JVM and SparkSession a test suite starts from Python, with planguard in it, however the
suite starts them (the pytest plugin while planguard is on; docs/pytest.md).

PySpark starts a JVM in one place, ``launch_gateway``, with the SparkConf of the first context,
and creates every JVM SparkContext in one place, ``SparkContext._initialize_context``, with the
JVM SparkConf it is made of: a builder's ``getOrCreate``, ``SparkContext(conf=...)``,
pytest-spark's fixtures and the SparkContext of PySpark's own ReusedSQLTestCase all pass there.
At both, planguard's jar is appended to ``spark.jars`` (at launch: spark-submit puts it on the
driver's classpath) and its extension to ``spark.sql.extensions`` (every session of the context,
``SparkSession(sc)``, ``newSession()`` and ``SQLContext`` included, reads them from the context's
conf), keeping what the suite lists, and ``spark.planguard.mode`` is set to the plugin's.
Every Python SparkSession is kept from its ``__init__`` on, so that the plugin reads the
violations of each, not only of the active one, until its SparkContext is stopped.
"""
import functools
import sys

from pyspark import SparkConf, SparkContext
from pyspark.sql import SparkSession

from planguard._session import installing


class Sessions:
    """While it is installed: planguard's confs on every JVM and SparkContext PySpark starts, and
    the SparkSessions created, by the identity of their JVM session."""

    def __init__(self, mode: str):
        self._mode = mode
        self._sessions = {}  # identity hash of the JVM session -> a Python session over it
        context_module = sys.modules[SparkContext.__module__]
        self._patched = [
            (context_module, "launch_gateway", self._launching),
            (SparkContext, "_initialize_context", self._initializing),
            (SparkSession, "__init__", self._keeping),
        ]
        self._originals = [(owner, name, getattr(owner, name)) for owner, name, _ in self._patched]
        for (owner, name, wrap), (_, _, original) in zip(self._patched, self._originals):
            setattr(owner, name, wrap(original))

    def uninstall(self):
        for owner, name, original in self._originals:
            setattr(owner, name, original)

    def running(self) -> dict:
        """The sessions kept, by the identity of their JVM session; a session whose SparkContext
        stopped is in it once more, then forgotten."""
        found = dict(self._sessions)
        for key, spark in found.items():
            if spark._jsparkSession.sparkContext().isStopped():
                del self._sessions[key]
        return found

    def _confs(self, listed) -> dict:
        return {**installing(listed), "spark.planguard.mode": self._mode}

    def _launching(self, launch_gateway):
        @functools.wraps(launch_gateway)
        def launch_gateway_with_planguard(conf=None, *args, **kwargs):
            # No JVM yet, so this SparkConf is a Python one; the suite's own is left as it is.
            launched = SparkConf().setAll(conf.getAll() if conf is not None else [])
            launched.setAll(self._confs(lambda key: launched.get(key, None)).items())
            return launch_gateway(launched, *args, **kwargs)

        return launch_gateway_with_planguard

    def _initializing(self, initialize_context):
        @functools.wraps(initialize_context)
        def initialize_context_with_planguard(context, jconf):
            for key, value in self._confs(lambda key: jconf.get(key, None)).items():
                jconf.set(key, value)
            return initialize_context(context, jconf)

        return initialize_context_with_planguard

    def _keeping(self, init):
        @functools.wraps(init)
        def init_kept(spark, *args, **kwargs):
            init(spark, *args, **kwargs)
            self._sessions[spark._jsparkSession.hashCode()] = spark

        return init_kept

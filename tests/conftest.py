"""Real local Spark sessions for planguard's Python tests.

PySpark runs one JVM per process and Spark reads spark.sql.extensions once, when the session
starts. So each extension order gets its own session in its own process: this process runs the
order given by PLANGUARD_TEST_ORDER (default: planguard first), and test_extension_order.py reruns
the order-dependent tests in a subprocess with the other order.
"""
import atexit
import os
import pathlib
import shutil
import sys

import pytest
from pyspark.sql import SparkSession

import planguard
from corpora.built_jars import BUILD_TESTS_JAR, TESTS_JAR

ROOT = pathlib.Path(__file__).resolve().parent.parent
DELTA = "io.delta.sql.DeltaSparkSessionExtension"
# Test-only rules from the test jar (built_jars.TESTS_JAR; jvm/src/test/scala/planguard/testing).
BROKEN = ["planguard.testing.SwapRootColumnsExtension",
          "planguard.testing.SwapRootJoinSidesExtension",
          "planguard.testing.DropLastFieldExtension",
          "planguard.testing.RemoveFinalAggregateExchangeExtension",
          "planguard.testing.RemoveFinalAggregateExchangeStagePrepExtension"]
ORDER = os.environ.get("PLANGUARD_TEST_ORDER", "first")
# The tier: CI (`dev/test`) runs samples of the corpora and of their variants, so that the whole
# of dev/test stays under an hour on two cores; `dev/test full` (PLANGUARD_TESTS=full) runs them
# whole.
FULL = os.environ.get("PLANGUARD_TESTS") == "full"
# Python workers (mapInArrow, pandas UDFs) must run this interpreter, which has planguard.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


def with_root_on_path(env: dict) -> dict:
    """A subprocess's environment with the repository's root first on PYTHONPATH, for `corpora`,
    where pytest's sys.path has it (pyproject.toml's pythonpath) but a script's does not: a file
    of tests/ run as `python tests/x.py`, in this virtualenv or another."""
    return dict(env, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])))


LOG = pathlib.Path(os.environ.get("PLANGUARD_TEST_LOG", "/tmp/planguard-test-%d.log" % os.getpid()))
# The tables the tests' sessions create, deleted when the process that made them exits.
WAREHOUSE = f"/tmp/planguard-warehouse-{os.getpid()}"
atexit.register(shutil.rmtree, WAREHOUSE, True)


def base_builder() -> SparkSession.Builder:
    return (SparkSession.builder.master("local[2]").appName("planguard-tests")
            .config("spark.driver.extraJavaOptions",
                    f"-Dlog4j2.configurationFile={ROOT / 'tests' / 'log4j2.properties'} "
                    f"-Dplanguard.test.log={LOG}")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.warehouse.dir", WAREHOUSE)
            .config("spark.sql.shuffle.partitions", "2")
            # One session runs the corpus many times over (thousands of queries): a heap of 1 GB
            # (the default) filled with the SQL executions Spark keeps for its UI, and the
            # tests spent most of their time in full GCs.
            .config("spark.driver.memory", "3g")
            .config("spark.sql.ui.retainedExecutions", "50")
            .config("spark.sql.autoBroadcastJoinThreshold", "-1")
            .config("spark.planguard.internalErrors", "fail")
            # The broken test rules stay off until a test switches one on.
            .config("planguard.testing.SwapRootColumns", "false")
            .config("planguard.testing.SwapRootJoinSides", "false")
            .config("planguard.testing.DropLastFieldExec", "false")
            .config("planguard.testing.RemoveFinalAggregateExchange", "false"))


@pytest.fixture(scope="session")
def spark():
    """Delta, planguard and the broken test rules; planguard before or after the broken rules."""
    from delta import configure_spark_with_delta_pip

    assert TESTS_JAR.exists(), f"run `{BUILD_TESTS_JAR}` first (dev/test does)"
    builder = base_builder().config("spark.sql.extensions", DELTA).config(
        "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
    builder = configure_spark_with_delta_pip(builder)
    # The planner listed but off: the tests of the planner turn it on. The tools' jar too.
    planner = {"planner": True, "planner.enabled": "false", "tools": True}
    if ORDER == "last":
        builder.config("spark.sql.extensions", ",".join([DELTA] + BROKEN))
        planguard.configure(builder, **planner)
    else:
        planguard.configure(builder, **planner)
        builder.config("spark.sql.extensions",
                       builder._options["spark.sql.extensions"] + "," + ",".join(BROKEN))
    builder.config("spark.jars", builder._options["spark.jars"] + "," + str(TESTS_JAR))
    session = builder.getOrCreate()
    yield session
    session.stop()


@pytest.fixture
def warnings():
    """Returns the planguard lines the driver logs from now on."""
    start = LOG.stat().st_size if LOG.exists() else 0

    def read():
        if not LOG.exists():
            return []
        with LOG.open() as f:
            f.seek(start)
            return [line for line in f.read().splitlines() if line.startswith("WARN planguard")]

    return read


@pytest.fixture
def conf(spark):
    """Sets session confs for one test and restores them after."""
    previous = {}

    def set_conf(key, value):
        previous.setdefault(key, spark.conf.get(key, None))
        spark.conf.set(key, value)

    yield set_conf
    for key, value in previous.items():
        if value is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, value)


@pytest.fixture(params=[True, False], ids=["adaptive", "not-adaptive"])
def adaptive(conf, request):
    conf("spark.sql.adaptive.enabled", str(request.param).lower())
    return request.param


def pytest_collection_modifyitems(items):
    """test_builder.py configures builders with no session running (configure refuses one, by
    design), so it runs before any test starts the session fixture; the rest keep their order."""
    items.sort(key=lambda item: item.path.name != "test_builder.py")

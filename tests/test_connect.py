"""planguard on a real Spark Connect server, and a Python client that has planguard but no JVM.

The server is the installed pyspark's own (its jars hold Spark Connect's), started with
spark-submit with planguard's jar and the test jar (a broken optimizer rule, off until a test
switches it on), on a free port, once for this module and stopped after it, whatever the tests
did. The client is a Spark Connect session of this process: the Connect session class itself, so
that this process's classic session (conftest's) stays classic.
"""
import os
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pyspark
import pytest

import planguard
from corpora.built_jars import BUILD_TESTS_JAR, TESTS_JAR
from planguard._violations import Violation

SWAP_COLUMNS = "planguard.testing.SwapRootColumns"
STARTUP_SECONDS = 120


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("localhost", port)) == 0


@pytest.fixture(scope="module")
def server():
    """The URL of a Spark Connect server with planguard (and its EXPLAIN section) installed."""
    assert TESTS_JAR.exists(), f"run `{BUILD_TESTS_JAR}` first (dev/test does)"
    port = _free_port()
    spark_submit = pathlib.Path(pyspark.__file__).parent / "bin" / "spark-submit"
    log = tempfile.NamedTemporaryFile(prefix="planguard-connect-", suffix=".log", delete=False)
    process = subprocess.Popen(
        [str(spark_submit), "--master", "local[2]",
         "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
         "--jars", f"{planguard.jar_path()},{TESTS_JAR}",
         "--conf", f"spark.sql.extensions={planguard.EXTENSION_CLASS},{SWAP_COLUMNS}Extension",
         "--conf", f"spark.sql.extendedExplainProviders={planguard.EXPLAIN_CLASS}",
         "--conf", f"{SWAP_COLUMNS}=false",
         "--conf", "spark.planguard.internalErrors=fail",
         "--conf", f"spark.connect.grpc.binding.port={port}",
         # An error's parameters go into its metadata up to this size (1 KiB by default): a
         # violation's, with its record, fit at 4 KiB (docs/usage.md, Spark Connect).
         "--conf", "spark.connect.grpc.maxMetadataSize=4096",
         "--conf", "spark.ui.enabled=false",
         "--conf", "spark.sql.shuffle.partitions=2"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the Spark Connect server did not start:\n" +
                            pathlib.Path(log.name).read_text()[-5000:])
            time.sleep(0.5)
        yield f"sc://localhost:{port}"
    finally:
        # Its own process group: spark-submit's JVM and anything it started.
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
        os.unlink(log.name)


@pytest.fixture(scope="module")
def remote(server):
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

    planguard.install_error_conversion()
    session = RemoteSparkSession.builder.remote(server).create()
    yield session
    session.stop()


@pytest.fixture
def remote_conf(remote):
    """Sets the remote session's confs for one test and unsets them after."""
    keys = []

    def set_conf(key, value):
        keys.append(key)
        remote.conf.set(key, value)

    yield set_conf
    for key in keys:
        remote.conf.unset(key)


def _projection(remote, extra_columns=0):
    return remote.range(5).selectExpr("CAST(id AS INT) AS a", "id * 2 AS b",
                                      *[f"id AS c{i}" for i in range(extra_columns)])


@pytest.mark.parametrize("enriched,extra_columns", [(True, 0), (False, 0), (True, 40)],
                         ids=["error details", "error metadata", "parameters beyond metadata"])
def test_a_broken_rule_raises_invariant_violation(remote, remote_conf, enriched, extra_columns):
    """Read from the error's details (its cause chain, fetched by the client) or, with those off,
    from its metadata; 40 more columns make the parameters too long for the server's metadata
    size (4 KiB)."""
    remote_conf("spark.sql.connect.enrichError.enabled", str(enriched).lower())
    remote_conf(SWAP_COLUMNS, "true")
    with pytest.raises(planguard.InvariantViolation) as caught:
        _projection(remote, extra_columns).collect()
    e = caught.value
    assert (e.invariant, e.phase) == ("OPTIMIZER_SCHEMA", "optimization")
    assert e.rule.startswith(f"{SWAP_COLUMNS} (batch ")
    assert e.expected.simpleString().startswith("struct<a:int,b:bigint")
    assert e.actual.simpleString().startswith(
        "struct<c" if extra_columns else "struct<b:bigint,a:int")
    assert e.getCondition() == "PLANGUARD_OPTIMIZER_SCHEMA"
    assert e.getMessageParameters()["expected"] == e.violation["expected"]
    assert e.getSqlState() == "XXKPG"
    assert str(e).startswith("[PLANGUARD_OPTIMIZER_SCHEMA] Invariant OPTIMIZER_SCHEMA broken")


def test_planguard_s_other_errors_stay_pyspark_s(remote):
    from pyspark.errors.exceptions.connect import IllegalArgumentException

    with pytest.raises(IllegalArgumentException) as caught:  # refused where it is set
        remote.conf.set("spark.planguard.mode", "probe")
    assert not isinstance(caught.value, planguard.InvariantViolation)
    assert caught.value.getCondition() == "PLANGUARD_INVALID_CONF"
    assert remote.conf.get("spark.planguard.mode") == "fail"


def test_the_report_from_sql_and_explain(remote, remote_conf, capsys):
    remote_conf(SWAP_COLUMNS, "true")
    remote_conf("spark.planguard.mode", "warn")
    df = _projection(remote)
    assert len(df.collect()) == 5
    capsys.readouterr()
    df.explain("extended")
    assert "== Extended Information (planguard) ==\nOPTIMIZER_SCHEMA broken in phase " \
           "optimization (warn)" in capsys.readouterr().out
    remote_conf(SWAP_COLUMNS, "false")
    remote_conf("spark.planguard.mode", "fail")
    report = remote.sql("SELECT * FROM planguard_violations() ORDER BY time")
    assert report.columns == list(Violation.__annotations__)
    rows = report.collect()
    assert rows[-1].id == "OPTIMIZER_SCHEMA" and rows[-1].level == "warn"
    assert rows[-1].rule.startswith(f"{SWAP_COLUMNS} (batch ")
    again = remote.sql("SELECT count(*) FROM planguard_violations()").collect()[0][0]
    assert again == len(rows)  # reading the report reported nothing

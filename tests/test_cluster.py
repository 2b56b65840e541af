"""A real cluster: a standalone master and two workers on localhost, started from the installed
pyspark distribution (bin/spark-class), run jobs that get planguard's jar as a cluster job does:
by `spark-submit --jars`, and by `configure()` in a driver started with `python`. The driver-side
checks stop a broken plan before it runs; BATCH_SCHEMA, checked in the tasks, fails a task on an
executor, and the violation reaches the driver, and Python, with its details. The cluster is torn
down when the module's tests end, failed or not. A history server started from the same
distribution, planguard's jar on its classpath, replays the spark-submit job's event log into the
planguard tab."""
import json
import os
import pathlib
import socket
import subprocess
import sys
import time
import urllib.request

import pyspark
import pytest

import planguard
from conftest import TESTS_JAR

SPARK_HOME = pathlib.Path(pyspark.__file__).parent
START_TIMEOUT = 120  # seconds for the master and both workers to come up

JOB = """
import json, sys, time
import planguard
from pyspark.sql import SparkSession
CONFIGURE = {configure}
builder = SparkSession.builder.appName("planguard-cluster")
if CONFIGURE:  # a driver started with python: configure() adds the jar and the extension
    builder = (builder.master(sys.argv[1]).config("spark.executor.memory", "512m")
               .config("spark.ui.enabled", "false"))
    planguard.configure(builder)
    builder.config("spark.jars", builder._options["spark.jars"] + "," + sys.argv[2])
    builder.config("spark.sql.extensions", builder._options["spark.sql.extensions"] +
                   ",planguard.testing.SwapRootColumnsExtension,"
                   "planguard.testing.DropLastFieldExtension")
else:  # spark-submit: the jars and the extensions came on its command line
    planguard.install_error_conversion()
spark = builder.getOrCreate()
# A standalone driver does not wait for its executors (no spark.cores.max): wait for both, up to
# a minute, as their JVMs may start after the driver's on a busy machine.
deadline = time.monotonic() + 60
while (spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1 < 2
       and time.monotonic() < deadline):
    time.sleep(0.5)
for rule in ("SwapRootColumns", "DropLastFieldExec"):
    spark.conf.set("planguard.testing." + rule, "false")
query = "SELECT CAST(id AS INT) AS a, id * 2 AS b FROM range(0, 40, 1, 4)"
out = {{"executors": spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1,
        "rows": sorted(tuple(r) for r in spark.sql(query).collect())[:3]}}
for rule in ("SwapRootColumns", "DropLastFieldExec"):
    spark.conf.set("planguard.testing." + rule, "true")
    try:
        spark.sql(query).collect()
        out[rule] = "no violation"
    except planguard.InvariantViolation as e:
        out[rule] = {{"invariant": e.invariant, "phase": e.phase, "rule": e.rule,
                     "expected": e.expected.names, "actual": e.actual.names}}
    spark.conf.set("planguard.testing." + rule, "false")
print("RESULT " + json.dumps(out))
spark.stop()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_class(main: str, *args: str, log: pathlib.Path, env) -> subprocess.Popen:
    with log.open("w") as out:
        return subprocess.Popen([str(SPARK_HOME / "bin" / "spark-class"), main, *args],
                                stdout=out, stderr=subprocess.STDOUT, env=env)


def wait_for(condition, what: str, processes):
    deadline = time.monotonic() + START_TIMEOUT
    while not condition():
        dead = [p.args for p in processes if p.poll() is not None]
        if dead or time.monotonic() > deadline:
            raise RuntimeError(f"the cluster did not start ({what}); exited: {dead}")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """(master URL, the workers' work dirs): a master and two one-core workers on localhost."""
    base = tmp_path_factory.mktemp("cluster")
    env = dict(os.environ, SPARK_HOME=str(SPARK_HOME), PYSPARK_PYTHON=sys.executable,
               SPARK_LOG_DIR=str(base), SPARK_WORKER_DIR=str(base / "work"))
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    processes = []
    try:
        master_log = base / "master.log"
        processes.append(spark_class(
            "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
            "--webui-port", str(free_port()), log=master_log, env=env))
        work = [base / f"work-{i}" for i in range(2)]
        for i, directory in enumerate(work):
            processes.append(spark_class(
                "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1",
                "--cores", "1", "--memory", "1g", "--webui-port", str(free_port()),
                "--work-dir", str(directory), log=base / f"worker-{i}.log", env=env))
        wait_for(lambda: master_log.read_text().count("Registering worker") >= 2,
                 "two workers registered with the master", processes)
        yield url, work
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def run_job(tmp_path: pathlib.Path, work, command, arguments=(), configure=False):
    """The job's RESULT, and what the executors of its application wrote to their stderr."""
    before = {path for directory in work for path in directory.glob("app-*")}
    job = tmp_path / "job.py"
    job.write_text(JOB.format(configure=configure))
    result = subprocess.run([*command, str(job), *arguments], capture_output=True, text=True,
                            timeout=600, env=dict(os.environ, PYSPARK_PYTHON=sys.executable,
                                                  PYSPARK_DRIVER_PYTHON=sys.executable))
    found = [line for line in result.stdout.splitlines() if line.startswith("RESULT ")]
    assert result.returncode == 0 and found, result.stdout[-3000:] + result.stderr[-3000:]
    apps = {path for directory in work for path in directory.glob("app-*")} - before
    logs = "\n".join(path.read_text(errors="replace")
                     for app in apps for path in app.glob("*/stderr"))
    return json.loads(found[0][len("RESULT "):]), logs


def check(result: dict, executor_logs: str):
    assert result["executors"] == 2, result
    assert result["rows"] == [[0, 0], [1, 2], [2, 4]], result
    # Driver side: the optimizer's broken rule stops the query before any task runs.
    assert result["SwapRootColumns"]["invariant"] == "OPTIMIZER_SCHEMA", result
    assert result["SwapRootColumns"]["rule"].startswith("planguard.testing.SwapRootColumns")
    # Executor side: a task's rows lack the last field; the task fails on its executor and the
    # driver raises the violation the executor sent, its details whole.
    assert result["DropLastFieldExec"] == {
        "invariant": "BATCH_SCHEMA", "phase": "execution",
        "rule": "operator DropLastField (planguard.testing.DropLastFieldExec)",
        "expected": ["a", "b"], "actual": ["a"]}, result
    assert "[PLANGUARD_BATCH_SCHEMA]" in executor_logs


@pytest.fixture(scope="module")
def event_logs(tmp_path_factory) -> pathlib.Path:
    """The event log directory of the spark-submit job."""
    return tmp_path_factory.mktemp("events")


def submit(cluster, event_logs: pathlib.Path, tmp_path: pathlib.Path):
    url, work = cluster
    extensions = ",".join([planguard.EXTENSION_CLASS, "planguard.testing.SwapRootColumnsExtension",
                           "planguard.testing.DropLastFieldExtension"])
    command = [str(SPARK_HOME / "bin" / "spark-submit"), "--master", url,
               "--jars", f"{planguard.jar_path()},{TESTS_JAR}",
               "--conf", f"spark.sql.extensions={extensions}",
               "--conf", "spark.executor.memory=512m", "--conf", "spark.ui.enabled=false",
               "--conf", "spark.eventLog.enabled=true",
               "--conf", f"spark.eventLog.dir={event_logs.as_uri()}"]
    return run_job(tmp_path, work, command)


def test_spark_submit_with_the_jar_checks_on_the_driver_and_the_executors(
        cluster, event_logs, tmp_path):
    check(*submit(cluster, event_logs, tmp_path))


def test_configure_in_a_python_driver_checks_on_the_driver_and_the_executors(cluster, tmp_path):
    url, work = cluster
    check(*run_job(tmp_path, work, [sys.executable], [url, str(TESTS_JAR)], configure=True))


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read().decode()


def test_the_history_server_shows_the_violations_of_an_event_log(cluster, event_logs, tmp_path):
    """A history server as a platform runs one: the event logs' directory, a disk store (the
    tab's entries written and read back as JSON), planguard's jar on the daemon's classpath."""
    if not any(event_logs.iterdir()):  # the spark-submit test did not run in this session
        submit(cluster, event_logs, tmp_path)
    port = free_port()
    options = {"spark.history.fs.logDirectory": event_logs.as_uri(),
               "spark.history.ui.port": port, "spark.history.fs.update.interval": "1s",
               "spark.history.store.path": tmp_path / "store"}
    env = dict(os.environ, SPARK_HOME=str(SPARK_HOME), SPARK_LOG_DIR=str(tmp_path),
               SPARK_DAEMON_CLASSPATH=str(planguard.jar_path()),
               SPARK_HISTORY_OPTS=" ".join(f"-D{key}={value}" for key, value in options.items()))
    server = spark_class("org.apache.spark.deploy.history.HistoryServer",
                         log=tmp_path / "history.log", env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        def listed():
            try:
                return json.loads(fetch(base + "/api/v1/applications"))
            except OSError:
                return []
        wait_for(listed, "the history server listing the job", [server])
        app = listed()[0]["id"]
        page = fetch(f"{base}/history/{app}/planguard/")
        page = page.replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")
        assert "1 violation reported by this application" in page, page[-3000:]
        for shown in ("<td>OPTIMIZER_SCHEMA</td>", "<td>fail</td>", "<td>optimization</td>",
                      "<td>planguard.testing.SwapRootColumns (batch ",
                      "<div>#0 a: name a -> b, type INT -> BIGINT</div>"):
            assert shown in page, shown
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()

"""planguard next to Apache Iceberg's Spark SQL extensions (iceberg-spark-runtime from Maven
Central, fetched once into .cache/jars/), planguard listed before and after Iceberg's extensions.

Spark reads spark.sql.extensions once per JVM, and the main pytest process already runs the Delta
session of conftest.py, so each Iceberg session runs in a process of its own:

- `PYTHONPATH=. python tests/test_iceberg.py baseline OUT` (from the repository's root) runs
  WORKLOAD in a plain session (Iceberg, no planguard), adaptive execution on and off, and writes
  the rows of every compared statement;
- `PLANGUARD_ICEBERG_ORDER=first|last pytest tests/test_iceberg.py` runs the session tests below
  with planguard listed before or after IcebergSparkSessionExtensions, comparing with the baseline
  named by PLANGUARD_ICEBERG_BASELINE (without it, the module runs the baseline first);
- in the main pytest process, test_iceberg_session runs the baseline and the module in both orders,
  three processes at once; in CI, planguard listed last with adaptive execution on alone.
"""
import contextlib
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import pytest

import planguard
from conftest import FULL, ROOT, TESTS_JAR, base_builder, with_root_on_path
from corpora import corpus  # corpus.rows: a query's rows, comparable as JSON
from corpora import sql_corpus  # sql_corpus.maven_jar: a jar from Maven Central, fetched once
from corpora.built_jars import LINE
from results_file import results_file

# Iceberg's runtime for the installed pyspark's Spark line (built_jars.LINE): Maven Central has
# none for Spark 4.2 or 4.3 (November 2026).
ICEBERG_ARTIFACTS = {"3.5": "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.0",
                     "4.0": "org.apache.iceberg:iceberg-spark-runtime-4.0_2.13:1.10.0",
                     "4.1": "org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.12.0"}
ICEBERG_ARTIFACT = ICEBERG_ARTIFACTS.get(LINE)
if ICEBERG_ARTIFACT is None:
    pytest.skip(f"no Iceberg runtime for Spark {LINE} on Maven Central", allow_module_level=True)
ICEBERG = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
# Test-only rules from the test jar (built_jars), each off until a test switches it on.
BROKEN = ["planguard.testing.SwapRootColumnsExtension",
          "planguard.testing.RemoveFinalAggregateExchangeExtension",
          "planguard.testing.RemoveFinalAggregateExchangeStagePrepExtension"]
SWAP_COLUMNS = "planguard.testing.SwapRootColumns"
REMOVE_EXCHANGE = "planguard.testing.RemoveFinalAggregateExchange"
# Spark 4's own check, after each optimizer rule, that the plan still resolves (on by default).
SPARK_VALIDATION = "spark.sql.lightweightPlanChangeValidation"
ORDER = os.environ.get("PLANGUARD_ICEBERG_ORDER")  # set: this process runs the Iceberg session
BASELINE = os.environ.get("PLANGUARD_ICEBERG_BASELINE")
CATALOG = "ice"

# Two partitioned tables, one per row-level mode (for DELETE, UPDATE and MERGE alike).
TABLES = {"cow": ("copy-on-write", "bucket(4, id)"), "mor": ("merge-on-read", "days(ts)")}

# Storage-partitioned joins: bucketed scans report their partitioning, and joins and aggregations
# on the bucket key need no exchange.
SPJ = {"spark.sql.sources.v2.bucketing.enabled": "true",
       "`spark.sql.iceberg.planning.preserve-data-grouping`": "true",
       "spark.sql.requireAllClusterKeysForCoPartition": "false",
       "spark.sql.autoBroadcastJoinThreshold": "-1"}

# (statement, compared). Every statement's result is collected; a compared one's rows must be
# those of the plain session. {t} is the table, {name} its name in the catalog, {snap[i]} and
# {at[i]} the id and commit time of its i-th snapshot (oldest first). `cow: ` or `mor: ` runs a
# statement on that table only: what does not depend on the row-level mode runs on one table.
# What differs from run to run by design (snapshot ids, times, file paths) is not selected, or not
# compared.
WORKLOAD = [
    ("CREATE TABLE {t} (id BIGINT NOT NULL, v INT, k STRING, ts TIMESTAMP) USING iceberg "
     "PARTITIONED BY ({partitioning}) TBLPROPERTIES ('format-version' = '2', "
     "'write.delete.mode' = '{mode}', 'write.update.mode' = '{mode}', "
     "'write.merge.mode' = '{mode}')", False),
    ("INSERT INTO {t} VALUES (1, 10, 'a', TIMESTAMP'2024-01-01 10:00:00'), "
     "(2, 20, 'b', TIMESTAMP'2024-01-01 11:00:00'), (3, 30, 'c', TIMESTAMP'2024-01-02 09:00:00')",
     False),
    ("INSERT INTO {t} SELECT id + 10, CAST(id AS INT), 'd', "
     "TIMESTAMP'2024-01-02 00:00:00' + make_dt_interval(id) FROM range(5)", False),
    ("UPDATE {t} SET v = v + 1 WHERE k = 'a'", False),
    ("DELETE FROM {t} WHERE id = 2", False),
    ("DELETE FROM {t} WHERE id IN (SELECT id + 10 FROM range(2))", False),
    ("MERGE INTO {t} AS t USING (SELECT id, CAST(id * 3 AS INT) AS v FROM range(0, 15, 3)) AS s "
     "ON t.id = s.id WHEN MATCHED AND s.v > 20 THEN DELETE "
     "WHEN MATCHED THEN UPDATE SET v = s.v "
     "WHEN NOT MATCHED THEN INSERT (id, v, k, ts) VALUES (s.id, s.v, 'm', "
     "TIMESTAMP'2024-01-03 00:00:00')", False),
    ("SELECT * FROM {t}", True),
    ("SELECT k, count(*), sum(v) FROM {t} GROUP BY k", True),
    ("SELECT operation, summary['total-records'] FROM {t}.snapshots", True),
    ("cow: SELECT count(*) FROM {t}.history WHERE is_current_ancestor", True),
    ("SELECT content, partition, record_count FROM {t}.files", True),
    ("cow: SELECT partition, record_count, file_count FROM {t}.partitions", True),
    # Metadata columns (their metadata differs between the table and the scan: it is not compared).
    ("SELECT id, _spec_id, _partition, _pos FROM {t} WHERE id < 5", True),
    ("SELECT * FROM {t} VERSION AS OF {snap[1]}", True),
    ("cow: SELECT * FROM {t} FOR SYSTEM_VERSION AS OF {snap[3]}", True),
    ("SELECT * FROM {t} TIMESTAMP AS OF '{at[2]}'", True),
    ("cow: SELECT count(*) FROM {t} FOR SYSTEM_TIME AS OF '{at[0]}'", True),
    # Changelog scans read copy-on-write snapshots only (no delete files).
    ("cow: CALL {cat}.system.create_changelog_view(table => '{name}', "
     "options => map('start-snapshot-id', '{snap[0]}', 'end-snapshot-id', '{snap[4]}'), "
     "changelog_view => '{view}')", True),
    ("cow: SELECT id, v, k, _change_type, _change_ordinal FROM {view}", True),
    ("cow: CREATE TABLE {t}_summary USING iceberg PARTITIONED BY (k) AS "
     "SELECT k, count(*) AS n, sum(v) AS total FROM {t} GROUP BY k", False),
    ("cow: REPLACE TABLE {t}_summary USING iceberg AS "
     "SELECT k, max(id) AS top, min(ts) AS first_ts FROM {t} GROUP BY k", False),
    ("cow: SELECT * FROM {t}_summary", True),
    ("ALTER TABLE {t} ADD COLUMN note STRING", False),
    ("ALTER TABLE {t} WRITE ORDERED BY k, id", False),
    ("INSERT INTO {t} SELECT id + 100, CAST(id AS INT), 'o', TIMESTAMP'2024-01-04 00:00:00', "
     "concat('n', id) FROM range(4)", False),
    ("ALTER TABLE {t} CREATE TAG before_overwrite", False),
    ("INSERT OVERWRITE {t} SELECT * FROM {t} WHERE id < 100 OR v % 2 = 0", False),
    ("SELECT * FROM {t} VERSION AS OF 'before_overwrite'", True),
    ("ALTER TABLE {t} ADD PARTITION FIELD truncate(2, k)", False),
    ("ALTER TABLE {t} WRITE DISTRIBUTED BY PARTITION LOCALLY ORDERED BY id", False),
    ("SET spark.sql.sources.partitionOverwriteMode = dynamic", False),
    ("INSERT OVERWRITE {t} SELECT id, v * 10, k, ts, note FROM {t} WHERE k = 'd'", False),
    ("RESET spark.sql.sources.partitionOverwriteMode", False),
    ("MERGE INTO {t} AS t USING (SELECT id, k FROM {t} VERSION AS OF {snap[2]}) AS s "
     "ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, v, k) VALUES (s.id, -1, s.k) "
     "WHEN NOT MATCHED BY SOURCE AND t.id >= 100 THEN DELETE", False),
    ("SELECT * FROM {t}", True),
    # Storage-partitioned joins between the bucketed table and another bucketed on the same key.
    ("cow: CREATE TABLE {t}_dim (id BIGINT, label STRING) USING iceberg "
     "PARTITIONED BY (bucket(4, id))", False),
    ("cow: INSERT INTO {t}_dim SELECT id, concat('l', id) FROM range(0, 120, 3)", False),
    *[(f"cow: SET {key} = {value}", False) for key, value in SPJ.items()],
    ("cow: SELECT t.id, t.v, d.label FROM {t} t JOIN {t}_dim d ON t.id = d.id", True),
    ("cow: SELECT id, count(*), max(v) FROM {t} GROUP BY id", True),
    ("cow: MERGE INTO {t} AS t USING {t}_dim AS d ON t.id = d.id "
     "WHEN MATCHED THEN UPDATE SET k = d.label", False),
    *[(f"cow: RESET {key}", False) for key in SPJ],
    ("SELECT * FROM {t}", True),
    # Its byte counts differ with the warehouse's path, which position delete files hold.
    ("mor: CALL {cat}.system.rewrite_position_delete_files(table => '{name}', "
     "options => map('rewrite-all', 'true'))", False),
    ("CALL {cat}.system.rewrite_data_files(table => '{name}', "
     "options => map('min-input-files', '1'))", True),
    ("cow: CALL {cat}.system.rewrite_data_files(table => '{name}', strategy => 'sort', "
     "sort_order => 'zorder(id, v)', options => map('rewrite-all', 'true'))", True),
    ("SELECT count(*) FROM {t}.files", True),
    ("CALL {cat}.system.rollback_to_snapshot('{name}', {snap[6]})", False),
    ("SELECT * FROM {t}", True),
    ("cow: CALL {cat}.system.expire_snapshots(table => '{name}', "
     "older_than => TIMESTAMP'9999-12-31 00:00:00', retain_last => 1)", True),
    ("cow: CALL {cat}.system.remove_orphan_files(table => '{name}', dry_run => true)", False),
    ("SELECT count(*) FROM {t}.snapshots", True),
    ("mor: ALTER TABLE {t} CREATE BRANCH audit", False),
    ("mor: INSERT INTO {t}.branch_audit VALUES (500, 5, 'audit', "
     "TIMESTAMP'2024-01-05 00:00:00', 'b')", False),
    ("mor: UPDATE {t}.branch_audit SET v = v * 2 WHERE k IN ('audit', 'd')", False),
    ("mor: SELECT * FROM {t} VERSION AS OF 'audit'", True),
    ("mor: SELECT name, type FROM {t}.refs", True),
    ("cow: SHOW TBLPROPERTIES {t}", False),
    ("SELECT * FROM {t}", True),
]


def iceberg_jar() -> pathlib.Path:
    return sql_corpus.maven_jar(ICEBERG_ARTIFACT, ROOT / ".cache" / "jars")


def iceberg_session(order, warehouse):
    """A local session with a hadoop Iceberg catalog `ice` under warehouse: without planguard
    (order None), or with planguard listed before (first) or after (last) Iceberg's extensions and
    the broken test rules."""
    builder = (base_builder().appName("planguard-iceberg-tests")
               # Spark's default, as users run MERGE: small sources are broadcast.
               .config("spark.sql.autoBroadcastJoinThreshold", "10485760")
               .config("spark.ui.showConsoleProgress", "false")
               .config(f"spark.sql.catalog.{CATALOG}", "org.apache.iceberg.spark.SparkCatalog")
               .config(f"spark.sql.catalog.{CATALOG}.type", "hadoop")
               .config(f"spark.sql.catalog.{CATALOG}.warehouse", str(warehouse)))
    jars = [str(iceberg_jar())]
    if order is None:
        extensions = [ICEBERG]
    else:
        assert TESTS_JAR.exists(), TESTS_JAR
        planguard.configure(builder)
        jars += builder._options["spark.jars"].split(",") + [str(TESTS_JAR)]
        extensions = ([planguard.EXTENSION_CLASS, ICEBERG, *BROKEN] if order == "first"
                      else [ICEBERG, *BROKEN, planguard.EXTENSION_CLASS])
    return (builder.config("spark.jars", ",".join(jars))
            .config("spark.sql.extensions", ",".join(extensions)).getOrCreate())


def run_workload(spark, suffix: str) -> dict:
    """Runs WORKLOAD on each table (named after suffix), every result collected; returns
    `table#index` -> rows of each compared statement."""
    results = {}
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.db").collect()
    for table, (mode, partitioning) in TABLES.items():
        name = f"db.{table}_{suffix}"
        t = f"{CATALOG}.{name}"
        for index, (template, compared) in enumerate(WORKLOAD):
            only, text = (template[:3], template[5:]) if template[3:5] == ": " else ("", template)
            if only and only != table:
                continue
            values = dict(t=t, name=name, cat=CATALOG, mode=mode, partitioning=partitioning,
                          view=f"{table}_{suffix}_changes")
            if "{snap" in text or "{at" in text:
                snapshots = spark.sql(f"SELECT snapshot_id, CAST(committed_at AS STRING) "
                                      f"FROM {t}.snapshots ORDER BY committed_at").collect()
                values.update(snap=[r[0] for r in snapshots], at=[r[1] for r in snapshots])
            rows = corpus.rows(spark.sql(text.format(**values)))
            if compared:
                results[f"{table}#{index}"] = rows
    return results


def aqe_key(aqe: bool) -> str:
    return "aqe-on" if aqe else "aqe-off"


def run_baseline(out: pathlib.Path) -> None:
    """Writes the plain session's results to out (atomically), or its error to out.failed."""
    with results_file(out) as results, tempfile.TemporaryDirectory() as warehouse:
        plain = iceberg_session(None, warehouse)
        for adaptive in (True, False):
            plain.conf.set("spark.sql.adaptive.enabled", str(adaptive).lower())
            results[aqe_key(adaptive)] = run_workload(
                plain, f"wl_{aqe_key(adaptive).replace('-', '_')}")
        plain.stop()


def baseline_rows(path: pathlib.Path, timeout: float = 1200) -> dict:
    """The baseline's results, once its process has written them."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        failed = path.with_suffix(".failed")
        assert not failed.exists(), "the baseline failed:\n" + failed.read_text()[-3000:]
        assert time.monotonic() < deadline, f"no baseline in {path} after {timeout} s"
        time.sleep(1)
    return json.loads(path.read_text())


# --- In the main pytest process: the baseline and this module in each order, all at once -------

@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> dict:
    """Runs the baseline and this module with planguard first and last, three processes at once
    (the two orders wait for the baseline's rows); returns order -> (exit code, output)."""
    iceberg_jar()  # fetched once, before the processes that read it start
    folder = tmp_path_factory.mktemp("iceberg")
    baseline = folder / "baseline.json"
    commands = {"baseline": ([sys.executable, __file__, "baseline", str(baseline)], {})}
    for order in ("first", "last"):
        commands[order] = ([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            __file__], {"PLANGUARD_ICEBERG_ORDER": order,
                                        "PLANGUARD_ICEBERG_BASELINE": str(baseline)})
    started = {}
    for name, (command, env) in commands.items():
        with (folder / f"{name}.log").open("w") as log:
            started[name] = subprocess.Popen(command, cwd=ROOT,
                                             env=with_root_on_path(dict(os.environ, **env)),
                                             stdout=log, stderr=subprocess.STDOUT)
    finished = {}
    for name, process in started.items():
        try:
            finished[name] = process.wait(timeout=1500)
        except subprocess.TimeoutExpired:
            process.kill()
            finished[name] = process.wait()
        if name == "baseline" and finished[name] != 0 and \
                not baseline.with_suffix(".failed").exists():
            baseline.with_suffix(".failed").write_text(f"exit code {finished[name]}")
    return {name: (code, (folder / f"{name}.log").read_text()) for name, code in finished.items()}


@pytest.mark.skipif(ORDER is not None, reason="this process runs one order")
@pytest.mark.parametrize("order", ["first", "last"])
def test_iceberg_session(sessions, order):
    """This module's Iceberg tests with planguard listed first or last, in a process of its own."""
    code, output = sessions[order]
    assert code == 0, output[-8000:]
    assert re.search(r"\d+ passed", output) and "process of its own" not in output, output[-3000:]


# --- In a process of its own (PLANGUARD_ICEBERG_ORDER set): the Iceberg session ---------------

own_process = pytest.mark.skipif(ORDER is None, reason="runs in a process of its own, through "
                                 "test_iceberg_session")


@pytest.fixture(scope="module")
def iceberg(tmp_path_factory):
    session = iceberg_session(ORDER, tmp_path_factory.mktemp("iceberg-warehouse"))
    session.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.db").collect()
    yield session
    session.stop()


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> pathlib.Path:
    if BASELINE:
        return pathlib.Path(BASELINE)
    out = tmp_path_factory.mktemp("iceberg") / "baseline.json"
    subprocess.run([sys.executable, __file__, "baseline", str(out)], cwd=ROOT, check=True,
                   timeout=1200, env=with_root_on_path(dict(os.environ)))
    return out


@pytest.fixture(params=[True, False], ids=["adaptive", "not-adaptive"])
def aqe(iceberg, request):
    if not request.param and ORDER == "last" and not FULL:
        pytest.skip("planguard last: adaptive execution on alone in CI (`dev/test full`: both)")
    with switched(iceberg, "spark.sql.adaptive.enabled", str(request.param).lower()):
        yield request.param


@contextlib.contextmanager
def switched(spark, key: str, value: str):
    """Sets a session conf for the block, then restores it."""
    previous = spark.conf.get(key, None)
    spark.conf.set(key, value)
    try:
        yield
    finally:
        if previous is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, previous)


@own_process
def test_planguard_is_listed_in_its_place(iceberg):
    assert planguard.installed(iceberg)
    extensions = iceberg.sparkContext.getConf().get("spark.sql.extensions").split(",")
    assert extensions.index(planguard.EXTENSION_CLASS) == (0 if ORDER == "first" else 4)
    assert extensions.index(ICEBERG) == (1 if ORDER == "first" else 0)


@own_process
def test_iceberg_workload_runs_without_a_violation_and_as_without_planguard(iceberg, aqe,
                                                                            baseline):
    """WORKLOAD as a user runs it, fail mode, every result collected: planguard records nothing,
    not even a warning, and every compared statement has the plain session's rows."""
    expected = baseline_rows(baseline)[aqe_key(aqe)]
    before = planguard.violation_count(iceberg)
    actual = run_workload(iceberg, f"wl_{aqe_key(aqe).replace('-', '_')}")
    assert planguard.violation_count(iceberg) == before, planguard.violations(iceberg)[-3:]
    assert actual.keys() == expected.keys()
    different = [key for key in expected if expected[key] != actual[key]]
    assert different == [], [(key, expected[key], actual[key]) for key in different]


def guarded_table(spark, mode: str, aqe: bool) -> str:
    t = f"{CATALOG}.db.guarded_{mode[:5].replace('-', '_')}_{aqe_key(aqe).replace('-', '_')}"
    spark.sql(f"DROP TABLE IF EXISTS {t}").collect()
    spark.sql(f"CREATE TABLE {t} (a INT, b BIGINT) USING iceberg PARTITIONED BY (bucket(2, a)) "
              f"TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = '{mode}', "
              f"'write.update.mode' = '{mode}', 'write.merge.mode' = '{mode}')").collect()
    spark.sql(f"INSERT INTO {t} VALUES (1, 2), (2, 4)").collect()
    return t


def committed(spark, t: str):
    """The table's snapshot count and rows."""
    return (spark.sql(f"SELECT count(*) FROM {t}.snapshots").collect()[0][0],
            sorted(tuple(r) for r in spark.table(t).collect()))


AGGREGATE = "SELECT CAST(id % 3 AS INT) AS a, count(*) AS b FROM range(0, 100, 1, 4) GROUP BY 1"


@own_process
@pytest.mark.parametrize("mode", ["copy-on-write", "merge-on-read"])
def test_a_failing_check_commits_nothing_to_an_iceberg_table(iceberg, aqe, mode):
    """The tests jar's physical rule that removes the exchange under a final aggregate (each
    partition would write its own groups), which neither Spark nor Iceberg validates: an INSERT,
    an INSERT OVERWRITE and a MERGE whose source aggregates fail with InvariantViolation
    (DISTRIBUTION) before Iceberg commits, and the table's snapshots and rows are unchanged."""
    t = guarded_table(iceberg, mode, aqe)
    before = committed(iceberg, t)
    with switched(iceberg, REMOVE_EXCHANGE, "true"):
        for statement in [
                f"INSERT INTO {t} {AGGREGATE}",
                f"INSERT OVERWRITE {t} {AGGREGATE}",
                f"MERGE INTO {t} AS t USING ({AGGREGATE}) AS s ON t.a = s.a "
                "WHEN MATCHED AND s.b > 33 THEN DELETE WHEN MATCHED THEN UPDATE SET b = s.b "
                "WHEN NOT MATCHED THEN INSERT *"]:
            with pytest.raises(planguard.InvariantViolation) as caught:
                iceberg.sql(statement).collect()
            assert caught.value.invariant == "DISTRIBUTION", statement
            assert caught.value.rule.startswith("planguard.testing.RemoveFinalAggregateExchange")
    assert committed(iceberg, t) == before


@own_process
def test_swapped_root_columns_commit_nothing_to_an_iceberg_table(iceberg, aqe):
    """The tests jar's optimizer rule that reorders the root projection of the written query.

    A v2 write command whose query it reorders no longer resolves, so with Spark's defaults Spark's
    own plan-change validation stops an INSERT and an INSERT OVERWRITE inside the optimizer, before
    planguard's check. With that validation off (as before Spark 4), Iceberg's write-schema check
    stops them while the optimizer builds the write, and planguard (OPTIMIZER_SCHEMA) stops an
    UPDATE and a DELETE of a copy-on-write table and a DELETE of a merge-on-read table. (Spark 3.5,
    which has no such validation, gives Iceberg the copy-on-write UPDATE's reordered columns, which
    its check stops; a copy-on-write DELETE's written query there is a filter, which the rule
    leaves as it is.) MERGE's written query is not a projection once optimized (MergeRows; for an
    insert-only MERGE, a left anti join), so the rule leaves it as it is. Nothing is committed by a
    stopped statement.
    """
    cow, mor = guarded_table(iceberg, "copy-on-write", aqe), guarded_table(iceberg, "merge-on-read",
                                                                           aqe)
    rows = "SELECT CAST(id AS INT) AS a, id * 2 AS b FROM range(5)"
    stopped = [(f"INSERT INTO {cow} {rows}", "PLAN_VALIDATION_FAILED_RULE_IN_BATCH"),
               (f"INSERT OVERWRITE {cow} {rows}", "PLAN_VALIDATION_FAILED_RULE_IN_BATCH"),
               (f"UPDATE {cow} SET b = b + 1 WHERE a = 1", "PLAN_VALIDATION_FAILED_RULE_IN_BATCH")]
    unvalidated = [(f"INSERT INTO {cow} {rows}", "Cannot write incompatible dataset"),
                   (f"INSERT OVERWRITE {mor} {rows}", "Cannot write incompatible dataset"),
                   (f"UPDATE {cow} SET b = b + 1 WHERE a = 1", planguard.InvariantViolation),
                   (f"DELETE FROM {cow} WHERE a = 1", planguard.InvariantViolation),
                   (f"DELETE FROM {mor} WHERE a = 1", planguard.InvariantViolation)]
    # Spark 3.5 has no plan-change validation. It builds Iceberg's copy-on-write write from the
    # reordered query, which Iceberg's write-schema check refuses; a copy-on-write DELETE's
    # written query is a filter there, no projection: the rule leaves it, and it runs as it should.
    on35 = unvalidated[:2] + [
        (f"UPDATE {cow} SET b = b + 1 WHERE a = 1", "Cannot write incompatible dataset"),
        (f"DELETE FROM {mor} WHERE a = 1", planguard.InvariantViolation)]
    runs = [("false", on35)] if LINE == "3.5" else [("true", stopped), ("false", unvalidated)]
    before = {t: committed(iceberg, t) for t in (cow, mor)}
    with switched(iceberg, SWAP_COLUMNS, "true"):
        for validation, cases in runs:
            with switched(iceberg, SPARK_VALIDATION, validation):
                for statement, expected in cases:
                    with pytest.raises(Exception) as caught:
                        iceberg.sql(statement).collect()
                    if isinstance(expected, str):
                        assert expected in str(caught.value), statement
                        assert not isinstance(caught.value, planguard.InvariantViolation)
                    else:
                        assert isinstance(caught.value, expected), (statement, caught.value)
                        assert caught.value.invariant == "OPTIMIZER_SCHEMA"
                        assert caught.value.rule.startswith("planguard.testing.SwapRootColumns")
        assert {t: committed(iceberg, t) for t in (cow, mor)} == before
        count = planguard.violation_count(iceberg)
        iceberg.sql(f"MERGE INTO {cow} AS t USING ({rows}) AS s ON t.a = s.a "
                    "WHEN MATCHED THEN UPDATE SET b = s.b + 1 WHEN NOT MATCHED THEN INSERT *"
                    ).collect()
        assert planguard.violation_count(iceberg) == count
    assert committed(iceberg, cow) == (before[cow][0] + 1,
                                       [(0, 0), (1, 3), (2, 5), (3, 6), (4, 8)])


if __name__ == "__main__" and sys.argv[1:2] == ["baseline"]:
    run_baseline(pathlib.Path(sys.argv[2]))

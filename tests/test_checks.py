"""planguard's check in a real PySpark session with Delta and broken test rules.

Runs with planguard listed first; test_extension_order.py reruns this file with planguard last.
"""
import datetime

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import planguard
from conftest import FULL

SWAP_COLUMNS = "planguard.testing.SwapRootColumns"
SWAP_JOIN_SIDES = "planguard.testing.SwapRootJoinSides"
REMOVE_EXCHANGE = "planguard.testing.RemoveFinalAggregateExchange"


def projected(spark):
    """A projection over a scan, and one over a shuffled join (adaptive execution plans it)."""
    left = spark.range(20).selectExpr("id AS k", "CAST(id AS INT) AS a")
    right = spark.range(20).selectExpr("id AS k2", "id * 2 AS b")
    return [spark.range(5).selectExpr("CAST(id AS INT) AS a", "id * 2 AS b"),
            left.join(right, F.col("k") == F.col("k2")).select("a", "b")]


def test_session_has_planguard(spark):
    assert planguard.installed(spark)
    extensions = spark.sparkContext.getConf().get("spark.sql.extensions").split(",")
    assert extensions.count(planguard.EXTENSION_CLASS) == 1
    assert extensions[0] == "io.delta.sql.DeltaSparkSessionExtension"


def test_swapped_root_columns_fail(spark, adaptive, conf, warnings):
    conf(SWAP_COLUMNS, "true")
    for df in projected(spark):
        with pytest.raises(planguard.InvariantViolation) as caught:
            df.collect()
        e = caught.value
        assert e.invariant == "OPTIMIZER_SCHEMA"
        assert e.phase == "optimization"
        assert e.rule.startswith("planguard.testing.SwapRootColumns (batch ")
        assert e.expected.fieldNames() == ["a", "b"]
        assert e.actual.fieldNames() == ["b", "a"]
        assert e.getCondition() == "PLANGUARD_OPTIMIZER_SCHEMA"
        assert e.getSqlState() == "XXKPG"
        assert str(e).startswith("[PLANGUARD_OPTIMIZER_SCHEMA] Invariant OPTIMIZER_SCHEMA")
    assert warnings() == []


def test_swapped_root_columns_warn_once_and_return_rows(spark, adaptive, conf, warnings):
    conf(SWAP_COLUMNS, "true")
    conf("spark.planguard.mode", "warn")
    for df in projected(spark):
        logged = len(warnings())
        rows = df.collect()
        assert len(rows) > 0
        new = warnings()[logged:]
        assert len(new) == 1, new
        assert "[PLANGUARD_OPTIMIZER_SCHEMA]" in new[0]


@pytest.mark.parametrize("key,value", [("spark.planguard.mode", "off"),
                                       ("spark.planguard.check.OPTIMIZER_SCHEMA", "off"),
                                       ("spark.planguard.enabled", "false")])
def test_off_and_kill_switch_pass_silently(spark, adaptive, conf, warnings, key, value):
    conf(SWAP_COLUMNS, "true")
    conf(key, value)
    for df in projected(spark):
        assert df.collect()
    assert warnings() == []


def test_swapped_join_sides_are_legal(spark, adaptive, conf, warnings):
    conf(SWAP_JOIN_SIDES, "true")
    left = spark.range(10).selectExpr("id AS a", "id * 2 AS b")
    right = spark.range(10).selectExpr("id AS x", "id * 3 AS y")
    assert len(left.join(right, F.col("a") == F.col("x")).collect()) == 10
    assert warnings() == []


def test_removed_exchange_under_final_aggregate_fails(spark, adaptive, conf):
    """A group once per partition without the check; DISTRIBUTION stops it with the check."""
    conf(REMOVE_EXCHANGE, "true")

    def groups():  # a new DataFrame each time: Spark caches a failed plan in its DataFrame
        return spark.range(0, 100, 1, 2).selectExpr("id % 10 AS k").groupBy("k").count()

    with pytest.raises(planguard.InvariantViolation) as caught:
        groups().collect()
    e = caught.value
    assert e.invariant == "DISTRIBUTION"
    assert e.rule.startswith("planguard.testing.RemoveFinalAggregateExchange (")
    assert "(ClusteredDistribution)" in e.expected and "(2 partitions)" in e.actual
    assert str(e).startswith("[PLANGUARD_DISTRIBUTION] Invariant DISTRIBUTION broken")
    conf("spark.planguard.check.DISTRIBUTION", "off")
    assert len(groups().collect()) == 20


def test_invalid_conf_is_refused_where_it_is_set_and_the_old_value_stays(spark):
    from pyspark.errors import IllegalArgumentException

    before = spark.conf.get("spark.planguard.mode")
    for set_it in (lambda: spark.conf.set("spark.planguard.mode", "fial"),
                   lambda: spark.sql("SET spark.planguard.mode = fial")):
        with pytest.raises(IllegalArgumentException) as caught:
            set_it()
        assert caught.value.getCondition() == "PLANGUARD_INVALID_CONF"
        message = str(caught.value)
        assert "spark.planguard.mode" in message and "'fail', 'warn', 'off'" in message
    assert spark.conf.get("spark.planguard.mode") == before
    assert spark.range(1).count() == 1


def test_failing_check_writes_nothing_to_delta_or_parquet(spark, adaptive, conf, tmp_path):
    conf(SWAP_COLUMNS, "true")
    df = projected(spark)[1]
    for fmt in ["delta", "parquet"]:
        target = tmp_path / fmt
        with pytest.raises(planguard.InvariantViolation):
            df.write.format(fmt).save(str(target))
        # Parquet: not even the directory. Delta opens its transaction log before it plans the
        # query it writes: at most empty log directories, never a data or commit file.
        files = [p for p in target.rglob("*") if p.is_file()] if target.exists() else []
        assert files == []
        assert fmt == "delta" or not target.exists()


def test_legal_delta_and_parquet_writes_pass(spark, adaptive, tmp_path, warnings):
    for df in projected(spark):
        for fmt in ["delta", "parquet"]:
            target = tmp_path / f"{fmt}-{'-'.join(df.columns)}-{df.count()}"
            df.write.format(fmt).mode("overwrite").save(str(target))
            assert spark.read.format(fmt).load(str(target)).count() == df.count()
    assert warnings() == []


def test_legal_sql_inserts_pass(spark, adaptive, tmp_path, warnings):
    """Delta's INSERT plans its query apart from the command (a v1 fallback write)."""
    spark.range(5).createOrReplaceTempView("source")
    spark.sql("DROP TABLE IF EXISTS inserted_parquet")
    for table, fmt in [(f"delta.`{tmp_path / 'delta'}`", "delta"), ("inserted_parquet", "parquet")]:
        spark.sql(f"CREATE TABLE {table} (x BIGINT, y STRING) USING {fmt}")
        spark.sql(f"INSERT INTO {table} SELECT id + 1 AS x, CAST(id AS STRING) AS y FROM source")
        spark.sql(f"INSERT INTO {table} SELECT id AS x, 'a' AS y FROM source WHERE id > 2")
        assert spark.table(table).count() == 7
    assert warnings() == []


def test_configure_refuses_a_running_session(spark):
    with pytest.raises(planguard.ConfigurationError, match="spark.stop"):
        planguard.configure(SparkSession.builder)


def test_violations_are_reported_to_python(spark, conf):
    conf(SWAP_COLUMNS, "true")
    conf("spark.planguard.mode", "warn")
    before = planguard.violation_count(spark)
    projected(spark)[0].collect()
    assert planguard.violation_count(spark) == before + 1
    report = planguard.violations(spark)[-1:]
    assert [(r["id"], r["level"], r["phase"]) for r in report] == \
        [("OPTIMIZER_SCHEMA", "warn", "optimization")]
    assert report[0]["rule"].startswith("planguard.testing.SwapRootColumns")
    assert report[0]["expected"] == "a INT NOT NULL, b BIGINT NOT NULL"
    assert report[0]["actual"] == "b BIGINT NOT NULL, a INT NOT NULL"
    assert report[0]["differences"] and report[0]["plan"] and report[0]["time"] > 0


DELTA_WORKLOAD = [
    "CREATE TABLE {t} (id BIGINT NOT NULL, v INT, k STRING) USING delta "
    "TBLPROPERTIES (delta.enableChangeDataFeed = true)",
    "ALTER TABLE {t} ADD CONSTRAINT v_positive CHECK (v >= 0)",
    "INSERT INTO {t} (id, v, k) VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')",
    "INSERT INTO {t} (id, v, k) SELECT id + 10, CAST(id AS INT), 'd' FROM range(5)",
    "UPDATE {t} SET v = v + 1 WHERE k = 'a'",
    "DELETE FROM {t} WHERE id = 2",
    "MERGE INTO {t} AS t USING (SELECT id, CAST(id * 3 AS INT) AS v FROM range(0, 15, 3)) AS s "
    "ON t.id = s.id WHEN MATCHED AND s.v > 20 THEN DELETE "
    "WHEN MATCHED THEN UPDATE SET v = s.v "
    "WHEN NOT MATCHED THEN INSERT (id, v, k) VALUES (s.id, s.v, 'm')",
    "OPTIMIZE {t}",
    "OPTIMIZE {t} ZORDER BY (v)",
    "SELECT * FROM {t} ORDER BY id",
    "SELECT k, count(*), sum(v) FROM {t} GROUP BY k",
    "DESCRIBE HISTORY {t}",
    "SELECT * FROM {t} VERSION AS OF 2",
    "SELECT _change_type, count(*) FROM table_changes('{name}', 1) GROUP BY _change_type",
    "RESTORE TABLE {t} TO VERSION AS OF 3",
    "SELECT * FROM {t} ORDER BY id",
    "SHOW TBLPROPERTIES {t}",
    "DESCRIBE DETAIL {t}",
]


def test_delta_dml_runs_without_a_violation(spark, adaptive):
    """Delta's commands (MERGE, UPDATE, DELETE, OPTIMIZE, RESTORE, change data feed, constraints)
    as a user runs them, every result collected: planguard records nothing."""
    name = f"delta_dml_{'aqe' if adaptive else 'plain'}"
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    before = planguard.violation_count(spark)
    for statement in DELTA_WORKLOAD:
        spark.sql(statement.format(t=name, name=name)).collect()
    assert planguard.violation_count(spark) == before, planguard.violations(spark)[-3:]
    assert spark.table(name).count() > 0
    spark.sql(f"DROP TABLE {name}")


# Delta's table features, each of which rewrites the plans of reads and writes: generated and
# identity columns (created through DeltaTable's builder, the API Delta documents for them),
# column defaults, column mapping with renamed and dropped columns and a commented column,
# deletion vectors and row tracking, liquid clustering, clones, REPLACE WHERE, VACUUM and MERGE
# with schema evolution. "{t}" is a prefix for the test's tables.
DELTA_FEATURES = [
    "INSERT INTO {t}_gen (id, ts) VALUES (1, TIMESTAMP'2024-01-01 10:00:00'), "
    "(2, TIMESTAMP'2024-01-02 11:00:00')",
    "UPDATE {t}_gen SET ts = TIMESTAMP'2024-02-01 00:00:00' WHERE id = 1",
    "MERGE INTO {t}_gen g USING (SELECT 2L AS id, TIMESTAMP'2024-03-01 00:00:00' AS ts UNION ALL "
    "SELECT 7L, TIMESTAMP'2024-03-02 00:00:00') s ON g.id = s.id "
    "WHEN MATCHED THEN UPDATE SET ts = s.ts WHEN NOT MATCHED THEN INSERT (id, ts) VALUES (s.id, s.ts)",
    "SELECT * FROM {t}_gen WHERE ts > TIMESTAMP'2024-01-15 00:00:00' ORDER BY id",
    "SELECT d, count(*) FROM {t}_gen WHERE d >= DATE'2024-02-01' GROUP BY d",
    "INSERT INTO {t}_ident (v) SELECT CAST(id AS STRING) FROM range(3)",
    "MERGE INTO {t}_ident t USING (SELECT 'z' AS v) s ON t.v = s.v "
    "WHEN NOT MATCHED THEN INSERT (v) VALUES (s.v)",
    "SELECT count(*), count(DISTINCT id) FROM {t}_ident",
    "CREATE TABLE {t}_dflt (id BIGINT, v INT DEFAULT 42) USING delta "
    "TBLPROPERTIES ('delta.feature.allowColumnDefaults' = 'supported')",
    "INSERT INTO {t}_dflt (id) VALUES (1)",
    "UPDATE {t}_dflt SET v = DEFAULT WHERE id = 1",
    "CREATE TABLE {t}_cm (id BIGINT, a STRING, b INT, c DOUBLE COMMENT 'a comment') USING delta "
    "TBLPROPERTIES ('delta.columnMapping.mode' = 'name')",
    "INSERT INTO {t}_cm VALUES (1, 'x', 10, 1.5), (2, 'y', 20, NULL)",
    "ALTER TABLE {t}_cm RENAME COLUMN a TO a2",
    "ALTER TABLE {t}_cm DROP COLUMN b",
    "UPDATE {t}_cm SET a2 = 'u' WHERE id = 1",
    # The MERGE that found "metadata the optimizer fills in": its query casts `c` to its own type.
    "MERGE INTO {t}_cm t USING (SELECT 2L AS id, 'm' AS a2) s ON t.id = s.id "
    "WHEN MATCHED THEN UPDATE SET a2 = s.a2",
    "SELECT id, a2, c, CAST(c AS DOUBLE) AS c2 FROM {t}_cm ORDER BY id",
    "CREATE TABLE {t}_dv (id BIGINT, v INT) USING delta TBLPROPERTIES ("
    "'delta.enableDeletionVectors' = 'true', 'delta.enableRowTracking' = 'true')",
    "INSERT INTO {t}_dv SELECT id, CAST(id % 7 AS INT) FROM range(100)",
    "DELETE FROM {t}_dv WHERE v = 3",
    "UPDATE {t}_dv SET v = v + 100 WHERE id < 10",
    "SELECT id, _metadata.row_id FROM {t}_dv WHERE id < 5 ORDER BY id",
    "MERGE INTO {t}_dv t USING (SELECT id, 1 AS v FROM range(95, 105)) s ON t.id = s.id "
    "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *",
    "CREATE TABLE {t}_cl (id BIGINT, k STRING) USING delta CLUSTER BY (k)",
    "INSERT INTO {t}_cl SELECT id, CAST(id % 5 AS STRING) FROM range(50)",
    "OPTIMIZE {t}_cl",
    "CREATE TABLE {t}_clone SHALLOW CLONE {t}_cl",
    "INSERT INTO {t}_cl REPLACE WHERE k = '1' SELECT id, '1' FROM range(3)",
    "VACUUM {t}_cl RETAIN 0 HOURS",
    "SET spark.databricks.delta.schema.autoMerge.enabled = true",
    "MERGE INTO {t}_dflt t USING (SELECT 1L AS id, 5 AS v, 'new' AS extra UNION ALL "
    "SELECT 2L, 6, 'n2') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * "
    "WHEN NOT MATCHED THEN INSERT *",
    "SET spark.databricks.delta.schema.autoMerge.enabled = false",
]


# Three minutes a setting: in CI adaptive execution on only (the Delta workload above runs both).
@pytest.mark.parametrize("adaptive", [True, False] if FULL else [True], indirect=True,
                         ids=["adaptive", "not-adaptive"] if FULL else ["adaptive"])
def test_delta_table_features_run_without_a_violation(spark, adaptive, conf, tmp_path):
    """Delta's table features as a user runs them, from SQL, the DeltaTable API and a stream,
    every result collected: planguard records nothing, and the rows are Delta's."""
    from delta.tables import DeltaTable, IdentityGenerator

    conf("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    t = f"delta_features_{'aqe' if adaptive else 'plain'}"
    for suffix in ["gen", "ident", "dflt", "cm", "dv", "cl", "clone", "api"]:
        spark.sql(f"DROP TABLE IF EXISTS {t}_{suffix}")
    before = planguard.violation_count(spark)
    (DeltaTable.create(spark).tableName(f"{t}_gen").addColumn("id", "BIGINT")
     .addColumn("ts", "TIMESTAMP").addColumn("d", "DATE", generatedAlwaysAs="CAST(ts AS DATE)")
     .addColumn("n", "STRING", generatedAlwaysAs="concat('x', CAST(id AS STRING))",
                comment="generated").partitionedBy("d").execute())
    (DeltaTable.create(spark).tableName(f"{t}_ident")
     .addColumn("id", "BIGINT", generatedAlwaysAs=IdentityGenerator())
     .addColumn("v", "STRING").execute())
    for statement in DELTA_FEATURES:
        spark.sql(statement.format(t=t)).collect()
    day = datetime.date
    assert [tuple(r) for r in spark.table(f"{t}_gen").orderBy("id").collect()] == [
        (1, datetime.datetime(2024, 2, 1), day(2024, 2, 1), "x1"),
        (2, datetime.datetime(2024, 3, 1), day(2024, 3, 1), "x2"),
        (7, datetime.datetime(2024, 3, 2), day(2024, 3, 2), "x7")]
    assert tuple(spark.sql(f"SELECT count(*), count(DISTINCT id) FROM {t}_ident").first()) \
        == (4, 4)
    assert [tuple(r) for r in spark.sql(f"SELECT id, a2, c FROM {t}_cm ORDER BY id").collect()] \
        == [(1, "u", 1.5), (2, "m", None)]
    # Spark rebuilds the commented column as `first(c) AS c`, without its comment.
    assert spark.table(f"{t}_cm").dropDuplicates(["a2"]).count() == 2
    assert [tuple(r) for r in spark.table(f"{t}_dflt").orderBy("id").collect()] == [
        (1, 5, "new"), (2, 6, "n2")]
    assert spark.table(f"{t}_clone").count() == 50

    # The DeltaTable API and writes with schema evolution.
    spark.range(10).selectExpr("id", "CAST(id AS INT) AS v").write.format("delta") \
        .saveAsTable(f"{t}_api")
    table = DeltaTable.forName(spark, f"{t}_api")
    source = spark.range(5, 15).selectExpr("id", "CAST(id * 10 AS INT) AS v")
    table.alias("t").merge(source.alias("s"), "t.id = s.id").whenMatchedUpdateAll() \
        .whenNotMatchedInsertAll().execute()
    table.update("id < 3", {"v": "v + 1000"})
    table.delete("id = 4")
    spark.range(3).selectExpr("id", "CAST(1 AS INT) AS v", "'e' AS extra").write \
        .format("delta").mode("append").option("mergeSchema", "true").saveAsTable(f"{t}_api")
    assert spark.table(f"{t}_api").count() == 17
    assert spark.read.format("delta").option("versionAsOf", 1).table(f"{t}_api").count() == 15
    assert [r.operation for r in table.history().orderBy("version").collect()] == [
        "CREATE TABLE AS SELECT", "MERGE", "UPDATE", "DELETE", "WRITE"]

    # A stream from one Delta table into another (Delta's sink is a DataSource V1 sink).
    source_path, sink_path = str(tmp_path / "source"), str(tmp_path / "sink")
    spark.range(20).selectExpr("id", "CAST(id AS INT) AS v").write.format("delta") \
        .save(source_path)
    query = (spark.readStream.format("delta").load(source_path).selectExpr("id", "v * 2 AS w")
             .writeStream.format("delta").option("checkpointLocation", str(tmp_path / "ck"))
             .trigger(availableNow=True).start(sink_path))
    query.awaitTermination()
    assert query.exception() is None
    assert spark.read.format("delta").load(sink_path).selectExpr("sum(w)").first()[0] == 380

    assert planguard.violation_count(spark) == before, planguard.violations(spark)[-3:]
    for suffix in ["gen", "ident", "dflt", "cm", "dv", "cl", "clone", "api"]:
        spark.sql(f"DROP TABLE {t}_{suffix}")


def test_a_failing_check_commits_nothing_to_a_delta_table(spark, adaptive, conf):
    """An INSERT and a MERGE whose plan a broken rule changed fail before Delta commits."""
    name = f"delta_guarded_{'aqe' if adaptive else 'plain'}"
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} (a INT, b BIGINT) USING delta")
    spark.sql(f"INSERT INTO {name} VALUES (1, 2)")
    versions = spark.sql(f"DESCRIBE HISTORY {name}").count()
    conf(SWAP_COLUMNS, "true")
    for statement in [f"INSERT INTO {name} SELECT CAST(id AS INT) AS a, id * 2 AS b FROM range(5)",
                      f"INSERT OVERWRITE {name} SELECT CAST(id AS INT) AS a, id * 2 AS b "
                      "FROM range(5)"]:
        with pytest.raises(planguard.InvariantViolation):
            spark.sql(statement)
    conf(SWAP_COLUMNS, "false")
    assert spark.sql(f"DESCRIBE HISTORY {name}").count() == versions
    assert [tuple(r) for r in spark.table(name).collect()] == [(1, 2)]
    spark.sql(f"DROP TABLE {name}")


def strict_schema():
    from pyspark.sql.types import LongType, StructField, StructType
    return StructType([StructField("k", LongType(), False), StructField("v", LongType(), True)])


def test_rows_with_nulls_in_a_not_null_column_are_stopped(spark, adaptive, warnings):
    # createDataFrame(verifySchema=False) trusts the rows: without planguard, Spark reads each
    # null of `k` as 0 (grouped, cached or not).
    rows = [(1, 1), (None, 2), (1, 3), (None, 4)]
    df = spark.createDataFrame(rows, strict_schema(), verifySchema=False)
    for query in (df, df.groupBy("k").count(), df.cache().groupBy("k").count()):
        with pytest.raises(planguard.InvariantViolation) as caught:
            query.collect()
        assert caught.value.invariant == "BATCH_SCHEMA"
        assert "#0 k: a null in a column the operator declares NOT NULL" in str(caught.value)
    df.unpersist()
    assert warnings() == []


def test_a_python_function_returning_null_in_a_not_null_column_is_stopped(spark, adaptive):
    # Spark turns the function's rows into unsafe rows of its declared schema: a null in `k`
    # would come back as 0.
    def produce(frames):
        for frame in frames:
            yield frame.assign(k=None)

    df = spark.range(4).selectExpr("id AS k", "id AS v").mapInPandas(produce, strict_schema())
    with pytest.raises(planguard.InvariantViolation) as caught:
        df.groupBy("k").count().collect()
    assert caught.value.invariant == "BATCH_SCHEMA"
    assert "MapInPandas" in caught.value.rule

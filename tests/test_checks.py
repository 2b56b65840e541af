"""planguard's check in a real PySpark session with Delta and broken test rules.

Runs with planguard listed first; test_extension_order.py reruns this file with planguard last.
"""
import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import planguard

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


def test_invalid_conf_names_key_and_allowed_values(spark, conf):
    conf("spark.planguard.mode", "fial")
    with pytest.raises(Exception) as caught:
        spark.range(1).collect()
    message = str(caught.value)
    assert "PLANGUARD_INVALID_CONF" in message
    assert "spark.planguard.mode" in message and "'fail', 'warn', 'off'" in message


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

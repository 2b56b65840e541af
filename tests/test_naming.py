"""spark.planguard.naming=spec from PySpark's DataFrame API, and NAMING on real writes (Delta
included). The Scala suites (NamingSuite, NamingCheckSuite) hold the full conformance table."""
import os

import pytest
from pyspark.sql import functions as F

import planguard


@pytest.fixture
def t1(spark, conf):
    spark.range(1, 3).selectExpr("CAST(id AS INT) AS id", "'foo' AS a").createOrReplaceTempView("t1")
    return spark.table("t1")


# Delta refuses names with spaces or parentheses unless column mapping is on.
MAPPING = {"delta.columnMapping.mode": "name", "delta.minReaderVersion": "2",
           "delta.minWriterVersion": "5"}


def naming(spark):
    return [v for v in planguard.violations(spark) if v["id"] == "NAMING"]


def test_spec_names_from_pyspark_columns(spark, conf, t1):
    conf("spark.planguard.naming", "spec")
    df = t1.select(-F.col("id"), F.abs(F.col("id")), F.col("id").between(1, 2),
                   F.col("id") + F.abs(-F.col("id")), F.lit("foo_bar"), F.lit(-2),
                   F.upper(F.col("a")), F.col("id").cast("string"))
    assert df.columns == ["(- t1.id)", "abs(t1.id)", "((t1.id >= 1) AND (t1.id <= 2))",
                          "(t1.id + abs((- t1.id)))", "foo_bar", "(- 2)", "upper(t1.a)",
                          "cast(t1.id AS STRING)"]
    assert t1.groupBy("a").agg(F.sum("id"), F.countDistinct("id")).columns == \
        ["a", "sum(t1.id)", "count(DISTINCT t1.id)"]


def test_user_names_are_kept(spark, conf, t1):
    conf("spark.planguard.naming", "spec")
    df = t1.select((F.col("id") + 1).alias("next"), F.col("id").alias("(id + 1)"),
                   F.expr("abs(id) AS `abs(id)`")).withColumn("c", F.col("next") * 2)
    assert df.columns == ["next", "(id + 1)", "abs(id)", "c"]


def test_spark_naming_is_untouched(spark, t1):
    df = t1.select(-F.col("id"), F.abs(F.col("id")), F.col("id").between(1, 2))
    assert df.columns == ["negative(id)", "abs(id)", "((id >= 1) AND (id <= 2))"]


def test_generated_name_written_to_delta_warns(spark, adaptive, t1, warnings, tmp_path):
    before = len(naming(spark))
    path = str(tmp_path / "delta")
    t1.select("id", F.col("id") * 2).write.format("delta").options(**MAPPING).save(path)
    assert spark.read.format("delta").load(path).columns == ["id", "(id * 2)"]
    new = naming(spark)[before:]
    assert [v["level"] for v in new] == ["warn"]
    assert new[0]["differences"] == [
        "#1 (id * 2): named by Spark after its expression; name it yourself"]
    assert any("[PLANGUARD_NAMING]" in line for line in warnings())


def test_spec_qualifier_fails_delta_writes_before_writing(spark, conf, t1, tmp_path):
    conf("spark.planguard.naming", "spec")
    path = str(tmp_path / "delta")
    df = t1.select(F.col("id") + 1)
    with pytest.raises(planguard.InvariantViolation) as caught:
        df.write.format("delta").save(path)
    assert caught.value.invariant == "NAMING"
    assert "carries the relation qualifier t1." in str(caught.value)
    assert not os.path.exists(path)
    with pytest.raises(planguard.InvariantViolation):
        df.write.format("delta").saveAsTable("naming_blocked")
    with pytest.raises(planguard.InvariantViolation):
        spark.sql("CREATE TABLE naming_blocked_sql USING delta AS SELECT id + 1 FROM t1")
    conf("spark.planguard.check.NAMING", "warn")
    df.write.format("delta").options(**MAPPING).save(path)
    assert spark.read.format("delta").load(path).columns == ["(t1.id + 1)"]


def test_aliased_delta_write_is_not_reported(spark, conf, t1, tmp_path):
    conf("spark.planguard.naming", "spec")
    before = len(naming(spark))
    path = str(tmp_path / "delta")
    t1.select((F.col("id") + 1).alias("next")).write.format("delta").save(path)
    assert len(naming(spark)) == before


def test_renamed_generated_names_written_to_delta_are_the_users(spark, conf, adaptive, t1,
                                                                 tmp_path):
    """withColumnRenamed, toDF and selectExpr AS over Spark's names, saved and saveAsTable'd to
    Delta with NAMING=fail: the user's names, written."""
    conf("spark.planguard.check.NAMING", "fail")
    grouped = t1.groupBy("a").agg({"id": "sum"})
    renames = [grouped.withColumnRenamed("sum(id)", "total"), grouped.toDF("a", "total"),
               spark.sql("SELECT a, sum(id) FROM t1 GROUP BY a")
               .selectExpr("a", "`sum(id)` AS total")]
    for i, df in enumerate(renames):
        df.write.format("delta").save(str(tmp_path / f"delta{i}"))
        df.write.format("delta").mode("overwrite").saveAsTable(f"renamed_{i}")
        assert spark.table(f"renamed_{i}").columns == ["a", "total"]


def test_spec_names_of_string_literals_are_their_values(spark, conf):
    """A quote inside a string literal stays in its name; Spark reads 'it''s' as 'it' 's'."""
    conf("spark.planguard.naming", "spec")
    df = spark.sql("""SELECT 'it\\'s', "isn't", 'it''s', 'a"b'""")
    assert df.columns == ["it's", "isn't", "its", 'a"b']
    assert list(df.first()) == ["it's", "isn't", "its", 'a"b']

"""BATCH_SCHEMA at the Arrow boundary, on a real session: every encoding of a declared type is
accepted with its values, every logically different batch fails naming the column."""
import datetime
import decimal

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import planguard
import planguard.arrow

STRINGS = pa.array(["a", None, "a", "bc"])
STRING_VALUES = ["a", None, "a", "bc"]
WHEN = datetime.datetime(2024, 1, 2, 3, 4, 5, 6000)
NTZ_TEXT = "2024-01-02 03:04:05.006"
WHEN_MICROS = int(WHEN.replace(tzinfo=datetime.timezone.utc).timestamp()) * 1_000_000 + 6000


def _list_view(values=pa.int32()):
    """[[1, 2], [3]] as a list view (pyarrow cannot cast a list to one)."""
    return pa.ListViewArray.from_arrays(pa.array([0, 2], pa.int32()), pa.array([2, 1], pa.int32()),
                                        pa.array([1, 2, 3], values))


# (declared type, column in another encoding than Spark's, SQL reading v, expected values)
EQUIVALENT = {
    "large_utf8": ("string", STRINGS.cast(pa.large_string()), "v", STRING_VALUES),
    "string_view": ("string", STRINGS.cast(pa.string_view()), "v", STRING_VALUES),
    "dictionary": ("string", STRINGS.dictionary_encode(), "v", STRING_VALUES),
    "dictionary_large": ("string", STRINGS.cast(pa.large_string()).dictionary_encode(), "v",
                         STRING_VALUES),
    "run_end": ("string", pc.run_end_encode(STRINGS), "v", STRING_VALUES),
    "large_binary": ("binary", pa.array([b"x", None], pa.large_binary()), "hex(v)", ["78", None]),
    "binary_view": ("binary", pa.array([b"x", None], pa.binary_view()), "hex(v)", ["78", None]),
    "fixed_size_binary": ("binary", pa.array([b"xy"], pa.binary(2)), "hex(v)", ["7879"]),
    "int_dictionary": ("int", pa.array([7, 7, None], pa.int32()).dictionary_encode(), "v",
                       [7, 7, None]),
    "decimal256": ("decimal(10,2)", pa.array([decimal.Decimal("1.25")], pa.decimal256(10, 2)),
                   "v", [decimal.Decimal("1.25")]),
    "date64": ("date", pa.array([datetime.date(2024, 1, 2)], pa.date64()), "v",
               [datetime.date(2024, 1, 2)]),
    **{f"ntz_{unit}": ("timestamp_ntz", pa.array([WHEN], pa.timestamp(unit)),
                       "cast(v as string)", [NTZ_TEXT if unit != "s" else NTZ_TEXT[:-4]])
       for unit in ["s", "ms", "ns"]},
    **{f"ltz_{unit}_{tz}": ("timestamp",
                            pa.array([WHEN.replace(tzinfo=datetime.timezone.utc)],
                                     pa.timestamp(unit, tz="UTC")).cast(pa.timestamp(unit, tz=tz)),
                            "unix_micros(v)", [WHEN_MICROS if unit != "s" else WHEN_MICROS - 6000])
       for unit, tz in [("ms", "UTC"), ("ns", "Asia/Tokyo"), ("s", "+01:00")]},
    "duration_ms": ("interval day to second", pa.array([1500], pa.duration("ms")), "v",
                    [datetime.timedelta(seconds=1.5)]),
    "large_list": ("array<int>", pa.array([[1, 2], None], pa.large_list(pa.int32())), "v",
                   [[1, 2], None]),
    "list_view": ("array<int>", _list_view(), "v", [[1, 2], [3]]),
    "struct_of_list_view": ("struct<l: array<bigint>>", pa.StructArray.from_arrays(
        [_list_view(pa.int64())], names=["l"]), "v.l", [[1, 2], [3]]),
    "fixed_size_list": ("array<int>", pa.array([[1, 2]], pa.list_(pa.int32(), 2)), "v",
                        [[1, 2]]),
    "struct_of_dictionary": ("struct<x: string>", pa.StructArray.from_arrays(
        [pa.array(["p", "q"]).dictionary_encode()], names=["x"]), "v.x", ["p", "q"]),
    "map_of_large": ("map<string, bigint>", pa.array(
        [[("k", 1)]], pa.map_(pa.large_string(), pa.int64())), "v['k']", [1]),
}

# (declared schema, batch, column named, declared type, text in the actual type)
REJECTED = {
    "int64_for_int": ("v int", {"v": pa.array([1], pa.int64())}, "v", "INT", "int64"),
    "int_for_string": ("v string", {"v": pa.array([1], pa.int32())}, "v", "STRING", "int32"),
    "tz_for_ntz": ("v timestamp_ntz", {"v": pa.array([WHEN], pa.timestamp("us", tz="UTC"))},
                   "v", "TIMESTAMP_NTZ", "tz=UTC"),
    "naive_for_ltz": ("v timestamp", {"v": pa.array([WHEN], pa.timestamp("us"))}, "v",
                      "TIMESTAMP", "timestamp[us]"),
    "nulls_for_not_null": ("v int not null", {"v": pa.array([1, None], pa.int32())}, "v", "INT",
                           "holds nulls"),
    "decimal_precision": ("v decimal(10,2)", {"v": pa.array([1], pa.decimal128(12, 2))}, "v",
                          "DECIMAL(10,2)", "decimal128(12, 2)"),
    "element_type": ("v array<int>", {"v": pa.array([[1]], pa.list_(pa.int64()))}, "v[]", "INT",
                     "int64"),
    "nested_null": ("v struct<x: int not null>", {"v": pa.StructArray.from_arrays(
        [pa.array([None], pa.int32())], names=["x"])}, "v.x", "INT", "holds nulls"),
    "missing": ("v int, w int", {"v": pa.array([1], pa.int32())}, "w", "INT", "missing"),
    "extra": ("v int", {"v": pa.array([1], pa.int32()), "w": pa.array([1], pa.int32())}, "w",
              "(not declared)", "not declared"),
    "renamed": ("v int", {"u": pa.array([1], pa.int32())}, "v", "INT", "'u'"),
    "reordered": ("v int, w string", {"w": pa.array(["x"]), "v": pa.array([1], pa.int32())},
                  "v", "INT", "'w'"),
}


@pytest.fixture
def checks():
    planguard.arrow.install()
    yield
    planguard.arrow.uninstall()


def _map_in_arrow(spark, batch, schema):
    def produce(_):
        yield batch
    return spark.range(1, numPartitions=1).mapInArrow(produce, schema)


@pytest.mark.parametrize("case", sorted(EQUIVALENT))
def test_map_in_arrow_accepts_every_encoding_with_its_values(spark, checks, conf, case):
    conf("spark.sql.session.timeZone", "UTC")
    declared, column, read, expected = EQUIVALENT[case]
    batch = pa.RecordBatch.from_arrays([column], ["v"])
    rows = _map_in_arrow(spark, batch, f"v {declared}").selectExpr(f"{read} AS r").collect()
    assert [r.r for r in rows] == expected


@pytest.mark.parametrize("case", sorted(REJECTED))
def test_map_in_arrow_rejects_other_logical_types_naming_the_column(spark, checks, case):
    schema, columns, column, declared, actual = REJECTED[case]
    batch = pa.RecordBatch.from_pydict(columns)
    with pytest.raises(planguard.BatchSchemaViolation) as caught:
        _map_in_arrow(spark, batch, schema).collect()
    e = caught.value
    assert isinstance(e, planguard.InvariantViolation)
    assert (e.invariant, e.phase, e.column, e.declared_type) == (
        "BATCH_SCHEMA", "execution", column, declared)
    assert actual in e.actual_type
    assert "mapInArrow" in e.rule and "[PLANGUARD_BATCH_SCHEMA]" in str(e)


def test_without_planguard_spark_fails_late_or_accepts_silently(spark):
    """What the wrappers replace (docs/invariants.md, BATCH_SCHEMA): Spark's own behaviour."""
    dictionary = pa.RecordBatch.from_arrays([STRINGS.dictionary_encode()], ["v"])
    with pytest.raises(Exception, match="getUTF8String"):
        _map_in_arrow(spark, dictionary, "v string").collect()
    renamed = pa.RecordBatch.from_pydict({"u": pa.array([1], pa.int32())})
    assert _map_in_arrow(spark, renamed, "v int").collect()[0].v == 1


def test_checked_wraps_one_function(spark, adaptive):
    def produce(_):
        yield pa.RecordBatch.from_arrays([STRINGS.dictionary_encode()], ["v"])
    wrapped = planguard.arrow.checked(produce, "v string")
    df = spark.range(4, numPartitions=2).mapInArrow(wrapped, "v string")
    assert sorted(map(str, (r.v for r in df.collect()))) == sorted(map(str, STRING_VALUES * 2))


def test_apply_in_arrow_normalises_and_rejects(spark, checks, adaptive):
    df = spark.createDataFrame([(1, "x"), (1, "y"), (2, "z")], "k long, s string")

    def upper(table):
        s = pc.utf8_upper(table["s"]).cast(pa.large_string())
        return pa.table({"k": table["k"], "s": s.combine_chunks().dictionary_encode()})

    out = df.groupBy("k").applyInArrow(upper, "k long, s string").collect()
    assert sorted((r.k, r.s) for r in out) == [(1, "X"), (1, "Y"), (2, "Z")]

    def with_key(key, table):
        return pa.table({"k": pa.array([key[0].as_py()], pa.int32())})

    with pytest.raises(planguard.BatchSchemaViolation) as caught:
        df.groupBy("k").applyInArrow(with_key, "k long").collect()
    assert (caught.value.column, caught.value.declared_type) == ("k", "BIGINT")


def test_cogrouped_apply_in_arrow(spark, checks):
    left = spark.createDataFrame([(1, "x")], "k long, s string")
    right = spark.createDataFrame([(1, "y")], "k long, s string")

    def merge(key, lt, rt):
        s = pa.concat_arrays([lt["s"].combine_chunks(), rt["s"].combine_chunks()])
        return pa.table({"k": pa.array([key[0].as_py()] * len(s), pa.int64()),
                         "s": s.cast(pa.string_view())})

    grouped = left.groupBy("k").cogroup(right.groupBy("k"))
    out = grouped.applyInArrow(merge, "k long, s string").collect()
    assert sorted((r.k, r.s) for r in out) == [(1, "x"), (1, "y")]
    with pytest.raises(planguard.BatchSchemaViolation) as caught:
        grouped.applyInArrow(merge, "k int, s string").collect()
    assert (caught.value.column, caught.value.declared_type) == ("k", "INT")


def test_pandas_values_must_fit_the_declared_types(spark, checks):
    import pandas as pd

    def fits(frames):
        for _ in frames:
            yield pd.DataFrame({"v": [1, 2]})  # int64 in pandas, INT declared: the values fit

    assert [r.v for r in spark.range(1).mapInPandas(fits, "v int").collect()] == [1, 2]

    def overflows(frames):
        for _ in frames:
            yield pd.DataFrame({"v": [2 ** 40]})

    with pytest.raises(planguard.BatchSchemaViolation) as caught:
        spark.range(1).mapInPandas(overflows, "v int").collect()
    assert caught.value.column == "v" and "int64" in caught.value.actual_type

    def zoned(key, frame):
        return pd.DataFrame({"t": pd.to_datetime(["2024-01-01"]).tz_localize("UTC")})

    with pytest.raises(planguard.BatchSchemaViolation) as caught:
        spark.range(2).groupBy("id").applyInPandas(zoned, "t timestamp_ntz").collect()
    assert caught.value.column == "t" and "UTC" in caught.value.actual_type


def test_create_data_frame_from_arrow(spark, checks):
    table = pa.table({"s": STRINGS.cast(pa.string_view()), "i": pa.array([1, 2, 3, 4])})
    rows = spark.createDataFrame(table).collect()
    assert [r.s for r in rows] == STRING_VALUES and [r.i for r in rows] == [1, 2, 3, 4]
    with pytest.raises(planguard.BatchSchemaViolation) as caught:
        spark.createDataFrame(table, "s string, i int")
    assert (caught.value.column, caught.value.actual_type) == ("i", "int64")


def test_install_is_idempotent_and_undone():
    planguard.arrow.install()
    planguard.arrow.install()
    from pyspark.sql.classic.dataframe import DataFrame
    assert DataFrame.mapInArrow._planguard_original.__name__ == "mapInArrow"
    assert not hasattr(DataFrame.mapInArrow._planguard_original, "_planguard_original")
    planguard.arrow.uninstall()
    assert not hasattr(DataFrame.mapInArrow, "_planguard_original")


def test_an_operator_lying_about_its_schema_raises_in_python(spark, conf, adaptive):
    """BATCH_SCHEMA on the JVM: the violation a task raises reaches Python as InvariantViolation."""
    conf("planguard.testing.DropLastFieldExec", "true")
    with pytest.raises(planguard.InvariantViolation) as caught:
        spark.range(5).selectExpr("cast(id as int) as a", "id * 2 as b").collect()
    e = caught.value
    assert (e.invariant, e.phase) == ("BATCH_SCHEMA", "execution")
    assert e.expected.names == ["a", "b"] and e.actual.names == ["a"]
    assert e.rule == "operator DropLastField (planguard.testing.DropLastFieldExec)"

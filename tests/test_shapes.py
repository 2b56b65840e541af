"""Every shape that crosses from the JVM to Python is declared once: each JSON object the JVM
sends has exactly the fields of the Python dataclass that reads it, under the same names, and
every word the JVM invents is declared in Python. A round trip per shape: what Python reads,
written back, is what the JVM sent."""
import dataclasses
import enum
import json

import pyarrow as pa
import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

import planguard
import planguard.arrow
from planguard import _stages, _violations
from planguard._check import report as _check_report

# A broken optimizer rule of planguard's tests (built_jars.TESTS_JAR), on when set.
SWAP_COLUMNS = "planguard.testing.SwapRootColumns"


def written_back(value):
    """A dataclass read from the JVM's JSON, as that JSON: the inverse of the reader."""
    if dataclasses.is_dataclass(value):
        return {f.name: written_back(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [written_back(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, StructType):
        return value.jsonValue()
    return value


# Each enumeration of words the JVM sends, by the JVM package that declares it under the same name.
WORDS = {"planguard.stages": [_stages.StageKind, _stages.ExchangeKind, _stages.PartitioningKind,
                              _stages.ReadOperator],
         "planguard.statements": [_check_report.StatementKind, _check_report.VerdictStatus]}


def test_every_word_the_jvm_sends_is_declared_in_python(spark):
    for package, enumerations in WORDS.items():
        for words in enumerations:
            jvm = spark._jvm.__getattr__(f"{package}.{words.__name__}")
            assert jvm.values().mkString("\n").split("\n") == [w.value for w in words], words


def test_a_stage_graph_reads_back_as_the_jvm_sent_it(spark, conf):
    conf("spark.sql.adaptive.enabled", "true")
    big = spark.range(100).selectExpr("id % 10 AS k", "id AS v")
    other = spark.range(50).selectExpr("id % 10 AS k2", "id AS w")
    small = spark.createDataFrame([(1, "a")], "n BIGINT, name STRING")
    df = (big.join(other.hint("shuffle_merge"), F.col("k") == F.col("k2"))
          .join(F.broadcast(small), F.col("k") == F.col("n"))
          .where(F.col("v") > spark.range(5).agg(F.avg("id")).first()[0])
          .where("v > (SELECT min(id) FROM range(3))")
          .groupBy("name").count())
    df.collect()  # the final adaptive plan: coalesced shuffle reads
    sent = json.loads(spark._jvm.planguard.stages.Stages.json(df._jdf))
    graph = _stages.from_json(sent)
    assert written_back(graph) == sent
    # The query sends most shapes: every kind of stage, exchange and read but dynamic pruning's.
    stages = graph.stages
    inputs = [i for s in stages for i in s.inputs]
    partitionings = [p for s in stages for p in [s.output] + [i.partitioning for i in s.inputs]]
    assert {s.kind for s in stages} == set(_stages.StageKind)
    assert {i.exchange for i in inputs} >= {"shuffle", "broadcast", "scalar subquery"}
    assert {p.kind for p in partitionings} >= {"HashKeys", "Broadcast", "Collected"}
    assert any(p.coalesced_from for p in partitionings)
    names = {op.name for s in stages for op in s.operators.walk()}
    assert names >= set(_stages.ReadOperator)


def test_a_field_the_python_side_does_not_know_fails_the_read():
    sent = {"kind": "Single", "keys": [], "partitions": 1, "ordering": [], "coalesced_from": None,
            "members": [], "text": "Single", "new": 0}
    with pytest.raises(ValueError, match="Partitioning has fields"):
        _stages._partitioning(sent)
    with pytest.raises(ValueError, match="'Sideways' is not a valid PartitioningKind"):
        _stages._partitioning({**sent, "kind": "Sideways"})


def test_a_violation_record_reads_back_the_same_from_every_report(spark, conf):
    """The log Python reads, `planguard check`'s report (read back whole, with its verdicts),
    the event log's listener event and the rows of SQL's planguard_violations() all carry the
    record as its one writer writes it."""
    conf(SWAP_COLUMNS, "true")
    conf("spark.planguard.mode", "warn")
    spark.range(5).selectExpr("CAST(id AS INT) AS a", "id * 2 AS b").collect()
    logged = planguard.violations(spark)[-1]
    assert set(logged) == set(_violations.Violation.__annotations__)
    assert (logged["id"], logged["rule"].split(" ")[0]) == ("OPTIMIZER_SCHEMA", SWAP_COLUMNS)

    jvm = spark._jvm
    record = jvm.planguard.report.ViolationLog.records(spark._jsparkSession).last()
    event = jvm.planguard.report.PlanGuardViolationEvent(record)
    protocol = jvm.org.apache.spark.util.JsonProtocol
    written = protocol.sparkEventToJsonString(event)
    assert _violations.read(json.loads(written)["violation"]) == logged
    assert protocol.sparkEventFromJson(written).equals(event)  # the history server reads it
    rows = spark.sql("SELECT * FROM planguard_violations()")
    assert rows.columns == list(_violations.Violation.__annotations__)
    assert [_violations.read(row.asDict()) for row in rows.collect()] == \
        planguard.violations(spark)

    sent = jvm.planguard.statements.StatementCheck.json(
        spark._jsparkSession, "SELECT CAST(id AS INT) AS a, id * 2 AS b FROM range(5)")
    report = _check_report.from_json(sent)
    assert written_back(report) == json.loads(sent)
    (verdict,) = [v for v in report.invariants if v.invariant == "OPTIMIZER_SCHEMA"]
    assert verdict.status == _check_report.VerdictStatus.WARN
    (checked,) = verdict.violations
    assert checked == planguard.violations(spark)[-1]
    assert {**checked, "time": 0, "plan": ""} == {**logged, "time": 0, "plan": ""}


@pytest.mark.parametrize("sql,confs", [
    ("SELECT 1 AS x, 2 AS X", {"spark.planguard.check.UNIQUE_FIELD": "fail"}),  # no rule
    ("SELECT CAST(id AS INT) AS a, id * 2 AS b FROM range(3)", {SWAP_COLUMNS: "true"}),
])
def test_a_violation_reads_the_same_from_its_condition_and_parameters(spark, conf, sql, confs):
    """What a Spark Connect client reads (the error's condition and message parameters) gives
    what py4j reads from the Java exception: the violation's record, among the parameters, read
    by the one reader, the record planguard.violations lists."""
    from planguard._errors import _Sent

    for key, value in confs.items():
        conf(key, value)
    with pytest.raises(planguard.InvariantViolation) as caught:
        spark.sql(sql).collect()
    e = caught.value
    sent = planguard.InvariantViolation._from_sent(
        _Sent(e.getCondition(), e.getMessageParameters(), "", e.getSqlState()))
    assert sent.violation == e.violation == planguard.violations(spark)[-1]
    assert (sent.invariant, sent.phase, sent.rule) == (e.invariant, e.phase, e.rule)
    assert (sent.expected, sent.actual) == (e.expected, e.actual)
    assert isinstance(e.expected, StructType) and e.expected.simpleString() == \
        StructType.fromJson(json.loads(e.violation["expected_schema"])).simpleString()
    assert (sent.getCondition(), sent.getSqlState()) == (e.getCondition(), e.getSqlState())


def test_a_violation_record_with_another_field_fails_the_read():
    with pytest.raises(ValueError, match="violation record has fields"):
        _violations.read({"id": "NAMING"})


def test_a_batch_schema_violation_raised_in_python_has_the_jvm_s_message_and_sqlstate(spark):
    batch = pa.RecordBatch.from_pydict({"a": pa.array([1], pa.int64()), "b": ["x"]})
    with pytest.raises(planguard.BatchSchemaViolation) as caught:
        planguard.arrow.conform(batch, "a INT NOT NULL, b STRING", rule="the test's")
    e = caught.value
    errors = spark._jvm.planguard.errors.PlanGuardErrors
    parameters = spark._jvm.org.apache.spark.api.python.PythonUtils.toScalaMap(
        e.getMessageParameters())
    assert e.getMessage() == errors.message(e.getCondition(), parameters)
    assert e.getSqlState() == errors.sqlState(e.getCondition())
    assert e.getMessageParameters()["expected"] == "a INT NOT NULL, b STRING"
    # The driver raises it again from the text Spark carries back from the Python worker.
    again = planguard.BatchSchemaViolation.from_worker(f"Traceback ...\n{e}\n")
    assert (again.getMessage(), again.getMessageParameters()) == \
        (e.getMessage(), e.getMessageParameters())
    assert (again.column, again.declared_type, again.actual_type, again.expected) == \
        ("a", "INT", "int64", e.expected)

"""A query's stages as data: ``planguard.stages(df)``.

The JVM cuts the prepared physical plan at every shuffle, broadcast and subquery
without executing it (``planguard.stages.StageCutter``); this module turns its JSON
(``planguard.stages.StagesJson``) into dataclasses, as ``planguard._shapes`` reads every shape;
the words the JVM invents are the enumerations below, as the JVM declares them
(``planguard/stages/Kinds.scala``).
"""
import json
from dataclasses import dataclass, field
from typing import Optional, Tuple, Union

from py4j.java_gateway import JavaClass
from py4j.protocol import Py4JJavaError
from pyspark.errors.exceptions import captured
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from planguard._configuration_error import ConfigurationError
from planguard._shapes import Word, build


class StageKind(Word):
    SHUFFLE_MAP = "shuffle map"  # writes a shuffle
    BROADCAST = "broadcast"  # is collected and broadcast
    SUBQUERY = "subquery"  # is collected for another stage's expression
    RESULT = "result"  # returns the query's rows (or writes them)


class ExchangeKind(Word):
    SHUFFLE = "shuffle"
    BROADCAST = "broadcast"
    SCALAR_SUBQUERY = "scalar subquery"
    DYNAMIC_PRUNING = "dynamic pruning"
    SUBQUERY = "subquery"


class PartitioningKind(Word):
    HASH_KEYS = "HashKeys"
    SINGLE = "Single"
    ROUND_ROBIN = "RoundRobin"
    RANGE = "Range"
    BROADCAST = "Broadcast"
    KEY_GROUPED = "KeyGrouped"
    COLLECTED = "Collected"  # a subquery's result, on the driver
    COLLECTION = "Collection"  # several at once, e.g. a join's output: its members
    UNKNOWN = "Unknown"  # a partitioning of Spark's that planguard does not describe


class ReadOperator(Word):
    """The operator names of the leaves that read another stage's output."""

    SHUFFLE_READ = "ShuffleRead"
    BROADCAST_READ = "BroadcastRead"


@dataclass(frozen=True)
class Partitioning:
    """How rows are spread at a stage boundary: ``kind`` is a :class:`PartitioningKind`
    (``HashKeys``, ``Single``, ``RoundRobin``, ``Range``, ``Broadcast``, ``KeyGrouped``,
    ``Collected``, ``Collection`` with its ``members``, ``Unknown``); ``text`` is how the JVM
    prints it (``HashKeys{keys=[k], partitions=4}``)."""

    kind: PartitioningKind
    keys: Tuple[str, ...] = ()
    partitions: Optional[int] = None
    ordering: Tuple[str, ...] = ()
    coalesced_from: Optional[int] = None
    members: Tuple["Partitioning", ...] = ()
    text: str = ""

    def __str__(self) -> str:
        return self.text or self.kind


@dataclass(frozen=True)
class Operator:
    """An operator of a stage: Spark's operator name, or a :class:`ReadOperator`; ``inputs`` are
    the positions in ``Stage.inputs`` it reads (a ShuffleRead or BroadcastRead leaf reads one; an
    operator with subqueries reads theirs)."""

    name: str
    args: str
    children: Tuple["Operator", ...] = ()
    inputs: Tuple[int, ...] = ()

    def walk(self):
        """This operator and all below it, depth first."""
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(frozen=True)
class Input:
    """An exchange feeding a stage: ``exchange`` is an :class:`ExchangeKind` (``shuffle``,
    ``broadcast``, ``scalar subquery``, ``dynamic pruning`` or ``subquery``); ``from_stage``
    produces it; ``schema`` is the rows at the boundary; ``reused`` when another stage reads it
    too."""

    exchange: ExchangeKind
    partitioning: Partitioning
    from_stage: int
    schema: StructType
    reused: bool = False
    schema_text: str = field(default="", compare=False)  # as planguard's errors print schemas


@dataclass(frozen=True)
class Stage:
    """One stage: the operators that run in one set of tasks, between its inputs and the
    exchange it writes to. ``kind`` is a :class:`StageKind` (``shuffle map``, ``broadcast``,
    ``subquery`` or ``result``); ``operators`` is the tree of its operators, from its top;
    ``output`` is how it hands its rows on, ``schema`` what they are, ``consumers`` the stages
    that read them."""

    id: int
    kind: StageKind
    operators: Operator
    inputs: Tuple[Input, ...]
    output: Partitioning
    schema: StructType
    consumers: Tuple[int, ...] = ()
    schema_text: str = field(default="", compare=False)  # as planguard's errors print schemas

    def tree(self):
        """The operators as (prefix, operator) lines, the prefix drawing the tree (``├─ ``)."""
        lines = [("", self.operators)]

        def below(op, indent):
            for i, child in enumerate(op.children):
                last = i == len(op.children) - 1
                lines.append((indent + ("└─ " if last else "├─ "), child))
                below(child, indent + ("   " if last else "│  "))

        below(self.operators, "")
        return lines


@dataclass(frozen=True)
class StageGraph:
    """The stages, producers first and the result stage last, and notes on the plan they come
    from (e.g. an adaptive plan's initial plan)."""

    stages: Tuple[Stage, ...]
    notes: Tuple[str, ...] = ()


def stages(query: Union[DataFrame, str], spark: Optional[SparkSession] = None) -> list:
    """The stages of a query, without executing it: a list of :class:`Stage`, producers before
    their consumers, the result stage last.

    ``query`` is a DataFrame (its prepared plan, as ``df.explain()`` prepares it), or one SQL
    statement, planned the way EXPLAIN plans it and never run: an INSERT or a CTAS shows its
    query's stages under its write node and writes nothing. With adaptive execution the stages
    are those of the initial plan until the query runs.
    """
    return list(graph(query, spark).stages)


def graph(query: Union[DataFrame, str], spark: Optional[SparkSession] = None) -> StageGraph:
    """The stages and the notes on them (see :func:`stages`)."""
    session = query.sparkSession if isinstance(query, DataFrame) else spark or \
        SparkSession.getActiveSession()
    if session is None:
        raise ValueError("planguard.stages(sql) needs a SparkSession: pass spark=...")
    jvm = tools(session)
    try:
        text = jvm.stages.Stages.json(query._jdf) if isinstance(query, DataFrame) else \
            jvm.statements.StatementStages.json(session._jsparkSession, query)
    except Py4JJavaError as e:  # as PySpark raises it: InvariantViolation, AnalysisException...
        raise captured.convert_exception(e.java_exception) from None
    return from_json(json.loads(text))


def tools(session: SparkSession):
    """The JVM's ``planguard`` package, once the tools' jar is known to be in the session."""
    jvm = session._jvm.planguard
    if not isinstance(jvm.stages.Stages, JavaClass):
        raise ConfigurationError(
            "planguard.stages, planguard.explain and `planguard check` run in planguard's tools "
            "jar, which this session does not have: start it with "
            "planguard.configure(builder, tools=True), or add `planguard jar --tools` to "
            "spark.jars (--jars).")
    return jvm


def from_json(data: dict) -> StageGraph:
    return build(StageGraph, data, stages=tuple(_stage(s) for s in data["stages"]),
                 notes=tuple(data["notes"]))


def _stage(s: dict) -> Stage:
    return build(Stage, s, kind=StageKind(s["kind"]), operators=_operator(s["operators"]),
                 inputs=tuple(_input(i) for i in s["inputs"]),
                 output=_partitioning(s["output"]), schema=StructType.fromJson(s["schema"]),
                 consumers=tuple(s["consumers"]))


def _operator(o: dict) -> Operator:
    return build(Operator, o, children=tuple(_operator(c) for c in o["children"]),
                 inputs=tuple(o["inputs"]))


def _input(i: dict) -> Input:
    return build(Input, i, exchange=ExchangeKind(i["exchange"]),
                 partitioning=_partitioning(i["partitioning"]),
                 schema=StructType.fromJson(i["schema"]))


def _partitioning(p: dict) -> Partitioning:
    return build(Partitioning, p, kind=PartitioningKind(p["kind"]), keys=tuple(p["keys"]),
                 ordering=tuple(p["ordering"]),
                 members=tuple(_partitioning(m) for m in p["members"]))

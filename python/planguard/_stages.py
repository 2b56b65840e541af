"""A query's stages as data: ``planguard.stages(df)``.

The JVM cuts the prepared physical plan at every shuffle, broadcast and subquery
without executing it (``planguard.stages.StageCutter``); this module turns its JSON into
dataclasses.
"""
import json
from dataclasses import dataclass, field
from typing import Optional, Tuple, Union

from py4j.protocol import Py4JJavaError
from pyspark.errors.exceptions import captured
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType


@dataclass(frozen=True)
class Partitioning:
    """How rows are spread at a stage boundary.

    ``kind`` is ``HashKeys``, ``Single``, ``RoundRobin``, ``Range``, ``Broadcast``,
    ``KeyGrouped``, ``Unknown``, ``Collected`` (a subquery's result, on the driver) or
    ``Collection`` (several at once, e.g. a join's output: ``members``).
    """

    kind: str
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
    """An operator of a stage; ``inputs`` are the positions in ``Stage.inputs`` it reads (a
    ShuffleRead or BroadcastRead leaf reads one; an operator with subqueries reads theirs)."""

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
    """An exchange feeding a stage: ``exchange`` is ``shuffle``, ``broadcast``,
    ``scalar subquery``, ``dynamic pruning`` or ``subquery``; ``from_stage`` produces it;
    ``schema`` is the rows at the boundary; ``reused`` when another stage reads it too."""

    exchange: str
    partitioning: Partitioning
    from_stage: int
    schema: StructType
    reused: bool = False
    schema_text: str = field(default="", compare=False)  # as planguard's errors print schemas


@dataclass(frozen=True)
class Stage:
    """One stage: the operators that run in one set of tasks, between its inputs and the
    exchange it writes to. ``kind`` is ``shuffle map``, ``broadcast``, ``subquery`` or
    ``result``; ``output`` is how it hands its rows on, ``schema`` what they are, ``consumers``
    the stages that read them."""

    id: int
    kind: str
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
    jvm = session._jvm.planguard
    try:
        text = jvm.stages.Stages.json(query._jdf) if isinstance(query, DataFrame) else \
            jvm.statements.StatementStages.json(session._jsparkSession, query)
    except Py4JJavaError as e:  # as PySpark raises it: InvariantViolation, AnalysisException...
        raise captured.convert_exception(e.java_exception) from None
    return from_json(json.loads(text))


def from_json(data: dict) -> StageGraph:
    return StageGraph(tuple(_stage(s) for s in data["stages"]), tuple(data["notes"]))


def _stage(s: dict) -> Stage:
    return Stage(s["id"], s["kind"], _operator(s["root"]), tuple(_input(i) for i in s["inputs"]),
                 _partitioning(s["output"]), StructType.fromJson(s["schema"]),
                 tuple(s["consumers"]), s["schema_text"])


def _operator(o: dict) -> Operator:
    return Operator(o["name"], o["args"], tuple(_operator(c) for c in o["children"]),
                    tuple(o["inputs"]))


def _input(i: dict) -> Input:
    return Input(i["exchange"], _partitioning(i["partitioning"]), i["from"],
                 StructType.fromJson(i["schema"]), i["reused"], i["schema_text"])


def _partitioning(p: dict) -> Partitioning:
    return Partitioning(p["kind"], tuple(p["keys"]), p.get("partitions"), tuple(p["ordering"]),
                        p.get("coalesced_from"), tuple(_partitioning(m) for m in p["members"]),
                        p["text"])

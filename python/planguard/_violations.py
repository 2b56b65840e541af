"""A violation record as the JVM reports it (``planguard.contract.ViolationRecord``, written by
``ViolationRecordJson`` alone): the one reader, for :func:`planguard.violations`, ``planguard
check`` and the errors planguard raises (their record travels among the message parameters)."""
from typing import List, Optional, TypedDict


class Violation(TypedDict):
    """One violation, or an internal error of planguard itself (id ``INTERNAL_ERROR``)."""

    id: str  # the invariant's id
    level: str  # what planguard did: fail, warn, or log (internal errors)
    phase: str
    rule: Optional[str]  # the rule that broke the contract; None when replay found none
    expected: str  # what the contract expects, as text
    actual: str  # what the plan has, as text
    expected_schema: Optional[str]  # the expected schema as Spark's JSON; None: not a schema
    actual_schema: Optional[str]
    differences: List[str]
    plan: str  # the plan's root and its node count
    time: int  # milliseconds since the epoch


def read(record: dict) -> Violation:
    """The record, once its fields are checked to be exactly :class:`Violation`'s: a field the
    JVM adds or drops fails here, not where it is used."""
    if set(record) != set(Violation.__annotations__):
        raise ValueError(f"planguard: the JVM's violation record has fields {sorted(record)}, "
                         f"Python's {sorted(Violation.__annotations__)}: the jar and the "
                         "package do not match")
    return Violation(**record)

"""``planguard check``'s verdicts on one statement, as the JVM sends them
(``planguard.statements.StatementCheck.json``): the same fields under the same names, and the
JVM's words (``StatementKind``, ``VerdictStatus``) as enumerations of the same names."""
import json
from dataclasses import dataclass
from typing import Tuple

from planguard import _violations
from planguard._shapes import Word, build


class StatementKind(Word):
    QUERY = "query"
    WRITE = "write"  # a write of a query's rows
    COMMAND = "command"  # neither: SET, SHOW, CREATE VIEW, ...


class VerdictStatus(Word):
    PASS = "pass"
    FAIL = "fail"  # a violation at fail
    WARN = "warn"  # violations, at warn only
    OFF = "off"  # the invariant is switched off
    NOT_APPLICABLE = "not applicable"  # the reason says why


@dataclass(frozen=True)
class InvariantVerdict:
    invariant: str
    status: VerdictStatus
    reason: str
    violations: Tuple[_violations.Violation, ...]


@dataclass(frozen=True)
class CheckReport:
    kind: StatementKind
    invariants: Tuple[InvariantVerdict, ...]


def from_json(text: str) -> CheckReport:
    data = json.loads(text)
    return build(CheckReport, data, kind=StatementKind(data["kind"]),
                 invariants=tuple(_verdict(v) for v in data["invariants"]))


def _verdict(v: dict) -> InvariantVerdict:
    return build(InvariantVerdict, v, status=VerdictStatus(v["status"]),
                 violations=tuple(map(_violations.read, v["violations"])))

"""planguard's Python exceptions, and how PySpark's error conversion learns to raise them."""
import json

from py4j.java_gateway import is_instance_of
from pyspark.errors.exceptions import captured
from pyspark.sql.types import StructType

_VIOLATION_CLASS = "planguard.errors.InvariantViolation"


class ConfigurationError(RuntimeError):
    """planguard cannot be configured as asked (e.g. a session is already running)."""


class InvariantViolation(captured.CapturedException):
    """A planning contract that a query's plans broke, raised before any row or file.

    Attributes:
        invariant: the invariant id, e.g. ``"OPTIMIZER_SCHEMA"``.
        phase: where the check ran, e.g. ``"optimization"``.
        expected: the schema the contract asks for (a ``StructType``).
        actual: the schema the plan has (a ``StructType``).
        rule: the rule that broke the contract, or None where planguard cannot tell.
    """

    def __init__(self, origin):
        super().__init__(origin=origin)
        self.invariant = origin.invariantId()
        self.phase = origin.phase()
        self.rule = origin.ruleName()
        self.expected = StructType.fromJson(json.loads(origin.expectedJson()))
        self.actual = StructType.fromJson(json.loads(origin.actualJson()))


def _find_violation(gateway, java_exception):
    """The planguard violation in a Java exception's cause chain, if any."""
    seen = 0
    while java_exception is not None and seen < 20:
        if is_instance_of(gateway, java_exception, _VIOLATION_CLASS):
            return java_exception
        java_exception = java_exception.getCause()
        seen += 1
    return None


def _install_conversion():
    """Makes PySpark raise InvariantViolation for planguard's Java violations.

    PySpark converts Java exceptions in ``captured.convert_exception``; planguard wraps it once.
    """
    original = captured.convert_exception
    if getattr(original, "_planguard", False):
        return

    def convert_exception(e):
        from pyspark import SparkContext

        try:
            violation = _find_violation(SparkContext._gateway, e)
        except Exception:  # planguard's classes are not in this JVM
            violation = None
        return InvariantViolation(violation) if violation is not None else original(e)

    convert_exception._planguard = True
    captured.convert_exception = convert_exception


_install_conversion()

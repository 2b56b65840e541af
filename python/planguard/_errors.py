"""planguard's Python exceptions, and how PySpark's error conversion learns to raise them
(:func:`install_error_conversion`: importing planguard changes nothing in PySpark)."""
import json
import threading

from py4j.java_gateway import is_instance_of
from pyspark.errors.exceptions import captured
from pyspark.sql.types import StructType

from planguard import _error_conditions

_VIOLATION_CLASS = "planguard.errors.InvariantViolation"


class InvariantViolation(captured.CapturedException):
    """A planning contract that a query's plans broke, raised before any row or file.

    Attributes:
        invariant: the invariant id, e.g. ``"OPTIMIZER_SCHEMA"``.
        phase: where the check ran, e.g. ``"optimization"``.
        expected: the schema the contract asks for (a ``StructType``); for a contract on
            something else than a schema (DISTRIBUTION, a top-K's ordering), what it asks for
            as text.
        actual: the schema the plan has (a ``StructType``), or what the plan has as text.
        rule: the rule that broke the contract, or None where planguard cannot tell.
    """

    def __init__(self, origin):
        super().__init__(origin=origin)
        self.invariant = origin.invariantId()
        self.phase = origin.phase()
        self.rule = origin.ruleName()
        self.expected = _schema_or_text(origin.expectedJson(), origin.expectedText())
        self.actual = _schema_or_text(origin.actualJson(), origin.actualText())


def _schema_or_text(schema_json, text):
    return StructType.fromJson(json.loads(schema_json)) if schema_json is not None else text


class BatchSchemaViolation(InvariantViolation):
    """BATCH_SCHEMA: a batch a Python function returned to Spark does not have the declared schema.

    Raised where the batch is checked: in the Python worker that runs the function (Spark then
    fails the query, and the driver raises this class again from the worker's message), or on the
    driver for ``createDataFrame``. It needs no JVM, so it is built without a Java origin; its
    message and SQLSTATE are those of the JVM's PLANGUARD_BATCH_SCHEMA (the jar's
    error-conditions.json), with the same message parameters.

    Attributes, besides InvariantViolation's (``actual`` is the Arrow schema, as text):
        column: the column (``a``, ``s.x``, ``l[]``) where the batch departs from the schema.
        declared_type: the column's declared type, as Spark SQL writes it (``INT``).
        actual_type: the column's Arrow type in the batch (``int64``), or what is wrong with it.
    """

    CONDITION = "PLANGUARD_BATCH_SCHEMA"
    # The line str() adds after the message, from which the driver raises again what a worker
    # raised: Spark carries a worker's exception back as its traceback's text, and nothing else.
    _DETAILS = "planguard-details: "

    def __init__(self, parameters: dict, details: dict):
        message = _error_conditions.message(self.CONDITION, parameters)
        Exception.__init__(self, message)
        self._desc, self._stackTrace, self._cause, self._origin = message, "", None, None
        self._parameters, self._details = parameters, details
        self.invariant = "BATCH_SCHEMA"
        self.phase = parameters["phase"]
        self.rule = None if parameters["rule"] == "unknown" else parameters["rule"]
        self.column = details["column"]
        self.declared_type = details["declared_type"]
        self.actual_type = details["actual_type"]
        self.expected = StructType.fromJson(json.loads(details["expected"]))
        self.actual = parameters["actual"]

    @classmethod
    def from_worker(cls, text: str):
        """The violation a Python worker raised, from the message Spark carries back, or None."""
        at = text.rfind(cls._DETAILS) if text else -1
        if at < 0 or f"[{cls.CONDITION}]" not in text:
            return None
        sent = json.loads(text[at + len(cls._DETAILS):].splitlines()[0])
        return cls(sent["parameters"], sent["details"])

    def __str__(self) -> str:
        return self._desc + "\n" + self._DETAILS + json.dumps(
            {"parameters": self._parameters, "details": self._details})

    def getMessage(self) -> str:
        """The message, as the JVM's error formats it (no details line)."""
        return self._desc

    def getCondition(self):
        return self.CONDITION

    def getMessageParameters(self):
        return dict(self._parameters)

    def getSqlState(self):
        return _error_conditions.sql_state(self.CONDITION)


def _find_violation(gateway, java_exception):
    """The planguard violation in a Java exception's cause chain, if any."""
    seen = 0
    while java_exception is not None and seen < 20:
        if is_instance_of(gateway, java_exception, _VIOLATION_CLASS):
            return java_exception
        java_exception = java_exception.getCause()
        seen += 1
    return None


def _worker_violation(java_exception):
    """A BATCH_SCHEMA violation a Python worker raised, found in a Java exception's cause chain."""
    seen = 0
    while java_exception is not None and seen < 20:
        found = BatchSchemaViolation.from_worker(java_exception.getMessage())
        if found is not None:
            return found
        java_exception = java_exception.getCause()
        seen += 1
    return None


def install_error_conversion() -> None:
    """Makes PySpark raise :class:`InvariantViolation` for planguard's violations.

    Without it, a violation reaches Python as PySpark's generic ``CapturedException`` (the same
    message, no ``invariant``/``phase``/``expected``/``actual`` fields), and a BATCH_SCHEMA
    violation raised in a Python worker as ``PythonException``. :func:`configure` calls it; call
    it yourself when planguard is installed another way (``spark-submit --conf``, a cluster's
    defaults). It wraps PySpark's ``captured.convert_exception`` once, for this Python process;
    calling it again does nothing.
    """
    original = captured.convert_exception
    if getattr(original, "_planguard", False):
        return
    # Looking for the violation calls the JVM, and a Java exception thrown by such a call (the
    # ClassNotFoundException of is_instance_of when planguard's jar is not in this JVM) comes back
    # here through PySpark's handler: converted by PySpark alone, never searched again, or every
    # Spark error would recurse without end in a process that imported planguard.
    searching = threading.local()

    def convert_exception(e):
        from pyspark import SparkContext

        if getattr(searching, "active", False):
            return original(e)
        searching.active = True
        try:
            try:
                violation = _find_violation(SparkContext._gateway, e)
            except Exception:  # planguard's classes are not in this JVM
                violation = None
            if violation is not None:
                return InvariantViolation(violation)
            return _worker_violation(e) or original(e)
        finally:
            searching.active = False

    convert_exception._planguard = True
    captured.convert_exception = convert_exception


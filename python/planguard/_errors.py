"""planguard's Python exceptions, and how PySpark's error conversion learns to raise them
(:func:`install_error_conversion`: importing planguard changes nothing in PySpark)."""
import json
import threading
from typing import Dict, NamedTuple, Optional

from py4j.java_gateway import is_instance_of
from pyspark.errors.exceptions import captured
from pyspark.sql.types import StructType

from planguard import _error_conditions

_VIOLATION_CLASS = "planguard.errors.InvariantViolation"
_CONDITION_PREFIX = "PLANGUARD_"
# The rule parameter when planguard found none (the JVM's InvariantViolation.ruleText).
_NO_RULE = ("none (the query as written)", "unknown")


class _Sent(NamedTuple):
    """A violation as the JVM sends it with its error, to be read without a Java object: the
    condition (PLANGUARD_<INVARIANT>), the message parameters (the JVM's
    InvariantViolation.parameters, named in error-conditions.json), the message, the SQLSTATE."""

    condition: str
    parameters: Dict[str, str]
    message: str
    sql_state: Optional[str]


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

    A Spark Connect client gets it too (:func:`install_error_conversion`), read from the error's
    condition and message parameters: there, no schema crosses, and ``expected`` and ``actual``
    are always the texts of the message.
    """

    # What the JVM sent, when there is no Java object to ask; None for one read through py4j (a
    # class attribute: PySpark's __init__ already calls the methods that read it).
    _sent: Optional[_Sent] = None

    def __init__(self, origin):
        super().__init__(origin=origin)
        self.invariant = origin.invariantId()
        self.phase = origin.phase()
        self.rule = origin.ruleName()
        self.expected = _schema_or_text(origin.expectedJson(), origin.expectedText())
        self.actual = _schema_or_text(origin.actualJson(), origin.actualText())

    @classmethod
    def _from_sent(cls, sent: _Sent) -> "InvariantViolation":
        """The violation a Spark Connect client was sent: no Java object to ask, and ``expected``
        and ``actual`` are the message's texts."""
        violation = cls.__new__(cls)
        violation._read_sent(sent)
        return violation

    def _read_sent(self, sent: _Sent) -> None:
        """Reads the fields from what the JVM sent: the one reader of its message parameters."""
        Exception.__init__(self, sent.message)
        self._desc, self._stackTrace, self._cause, self._origin = sent.message, "", None, None
        self._sent = sent
        self.invariant = sent.condition[len(_CONDITION_PREFIX):]
        self.phase = sent.parameters["phase"]
        rule = sent.parameters["rule"]
        self.rule = None if rule in _NO_RULE else rule
        self.expected = sent.parameters["expected"]
        self.actual = sent.parameters["actual"]

    # Without a Java object (a sent violation), PySpark's methods have nothing to ask.
    def __str__(self) -> str:
        return self._desc if self._sent else super().__str__()

    def getMessage(self) -> str:
        return self._desc if self._sent else super().getMessage()

    def getCondition(self):
        if self._sent:
            return self._sent.condition
        # PySpark 3.5 names it the error class.
        return getattr(super(), "getCondition", super().getErrorClass)()

    def getMessageParameters(self):
        return dict(self._sent.parameters) if self._sent else super().getMessageParameters()

    def getSqlState(self):
        return self._sent.sql_state if self._sent else super().getSqlState()

    def getQueryContext(self):
        return [] if self._sent else super().getQueryContext()


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
        self._read_sent(_Sent(self.CONDITION, parameters,
                              _error_conditions.message(self.CONDITION, parameters),
                              _error_conditions.sql_state(self.CONDITION)))
        self._details = details
        self.column = details["column"]
        self.declared_type = details["declared_type"]
        self.actual_type = details["actual_type"]
        self.expected = StructType.fromJson(json.loads(details["expected"]))

    @classmethod
    def from_worker(cls, text: str):
        """The violation a Python worker raised, from the message Spark carries back, or None."""
        at = text.rfind(cls._DETAILS) if text else -1
        if at < 0 or f"[{cls.CONDITION}]" not in text:
            return None
        sent = json.loads(text[at + len(cls._DETAILS):].splitlines()[0])
        return cls(sent["parameters"], sent["details"])

    def __str__(self) -> str:
        """The message (getMessage(): as the JVM's error formats it), then the details line."""
        return self._desc + "\n" + self._DETAILS + json.dumps(
            {"parameters": self._sent.parameters, "details": self._details})


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


def _connect_violation(info, message: str, details) -> Optional[InvariantViolation]:
    """The planguard violation a Spark Connect server sent with an error, or None: read from the
    error's details (``details``, PySpark's FetchErrorDetailsResponse: each error of the cause
    chain with its classes, condition and message parameters), else from the error's own
    metadata (``info``, which drops the parameters beyond spark.connect.grpc.maxMetadataSize)."""
    for error in details.errors if details is not None else ():
        if _VIOLATION_CLASS in error.error_type_hierarchy and error.HasField("spark_throwable"):
            sent = error.spark_throwable
            return InvariantViolation._from_sent(_Sent(
                sent.error_class, dict(sent.message_parameters), error.message,
                sent.sql_state or None))
    metadata = info.metadata
    if _VIOLATION_CLASS in json.loads(metadata.get("classes", "[]")) and \
            "messageParameters" in metadata:
        return InvariantViolation._from_sent(_Sent(
            metadata["errorClass"], json.loads(metadata["messageParameters"]), message,
            metadata.get("sqlState")))
    return None


def install_error_conversion() -> None:
    """Makes PySpark raise :class:`InvariantViolation` for planguard's violations, in a classic
    session and as a Spark Connect client of a server that runs planguard.

    Without it, a violation reaches Python as PySpark's generic ``CapturedException`` (the same
    message, no ``invariant``/``phase``/``expected``/``actual`` fields), over Spark Connect as
    its ``UnknownException``, and a BATCH_SCHEMA violation raised in a Python worker as
    ``PythonException``. :func:`configure` calls it; call it yourself when planguard is
    installed another way (``spark-submit --conf``, a cluster's defaults, a Spark Connect
    server). It wraps PySpark's ``convert_exception`` functions once (the classic one, and the
    Spark Connect client's where its dependencies are installed), for this Python process;
    calling it again does nothing.
    """
    _convert_classic_errors()
    _convert_connect_errors()


def _convert_connect_errors() -> None:
    """Wraps the function that turns a Spark Connect server's error into a Python exception."""
    try:
        from pyspark.sql.connect.client import core
    except Exception:
        # No usable Spark Connect client here (grpcio, pandas or pyarrow missing, or a protobuf
        # its generated code does not load with): the classic conversion alone.
        return
    original = getattr(core, "convert_exception", None)
    if original is None or getattr(original, "_planguard", False):
        return

    def convert_exception(info, truncated_message, resp, *args, **kwargs):
        try:
            violation = _connect_violation(info, truncated_message, resp)
        except Exception:  # details of another shape (another pyspark): PySpark's exception
            violation = None
        return violation or original(info, truncated_message, resp, *args, **kwargs)

    convert_exception._planguard = True
    core.convert_exception = convert_exception


def _convert_classic_errors() -> None:
    """Wraps the function that turns a Java exception (py4j) into a Python exception."""
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


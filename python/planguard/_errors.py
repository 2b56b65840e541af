"""planguard's Python exceptions, and how PySpark's error conversion learns to raise them
(:func:`install_error_conversion`: importing planguard changes nothing in PySpark)."""
import json
import threading
import weakref
from typing import Dict, NamedTuple, Optional

from pyspark.errors.exceptions import captured
from pyspark.sql.types import StructType

from planguard import _error_conditions, _violations

_VIOLATION_CLASS = "planguard.errors.InvariantViolation"
# The message parameter that carries the violation's record (the JVM's InvariantViolation.Payload).
_PAYLOAD = "violation"


class _Sent(NamedTuple):
    """A violation as the JVM sends it with its error, to be read without a Java object: the
    condition (PLANGUARD_<INVARIANT>), the message parameters (among them the violation's record,
    ``_PAYLOAD``), the message, the SQLSTATE."""

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
        violation: the violation's record, as :func:`planguard.violations` lists it.

    Read from the record the JVM sends among the error's message parameters, the same in a
    classic session (through py4j) and as a Spark Connect client (:func:`install_error_conversion`).
    """

    # What the JVM sent, when there is no Java object to ask; None for one read through py4j (a
    # class attribute: PySpark's __init__ already calls the methods that read it).
    _sent: Optional[_Sent] = None

    def __init__(self, origin):
        super().__init__(origin=origin)
        self._read(origin.getMessageParameters().get(_PAYLOAD))

    @classmethod
    def _from_sent(cls, sent: _Sent) -> "InvariantViolation":
        """The violation a Spark Connect client was sent: no Java object to ask."""
        violation = cls.__new__(cls)
        violation._read_sent(sent)
        return violation

    def _read_sent(self, sent: _Sent) -> None:
        Exception.__init__(self, sent.message)
        self._desc, self._stackTrace, self._cause, self._origin = sent.message, "", None, None
        self._sent = sent
        self._read(sent.parameters[_PAYLOAD])

    def _read(self, payload: str) -> None:
        """The fields, from the violation's record: the one reader of what the JVM sends."""
        self.violation = _violations.read(json.loads(payload))
        self.invariant = self.violation["id"]
        self.phase = self.violation["phase"]
        self.rule = self.violation["rule"]
        self.expected = _schema_or_text(self.violation["expected_schema"],
                                        self.violation["expected"])
        self.actual = _schema_or_text(self.violation["actual_schema"], self.violation["actual"])

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
    error-conditions.json), with the same message parameters and the violation's record among
    them, read as the JVM's are.

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
        """``parameters``: the message's, and the violation's record among them (``_PAYLOAD``);
        ``details``: the column, its declared type and its type in the batch."""
        template = {name: value for name, value in parameters.items() if name != _PAYLOAD}
        self._read_sent(_Sent(self.CONDITION, parameters,
                              _error_conditions.message(self.CONDITION, template),
                              _error_conditions.sql_state(self.CONDITION)))
        self._details = details
        self.column = details["column"]
        self.declared_type = details["declared_type"]
        self.actual_type = details["actual_type"]

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
    """The planguard violation in a Java exception's cause chain, if any: one call to the JVM
    (planguard.PlanGuard.violationIn)."""
    return _entry_point(gateway).violationIn(java_exception)


_ENTRY_POINTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _entry_point(gateway):
    """planguard.PlanGuard in the gateway's JVM, looked up once per gateway (py4j asks the JVM
    at each step of a class's name)."""
    found = _ENTRY_POINTS.get(gateway)
    if found is None:
        found = _ENTRY_POINTS[gateway] = gateway.jvm.planguard.PlanGuard
    return found


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
    # Looking for the violation calls the JVM, and a Java exception thrown by such a call (when
    # planguard's jar is not in this JVM) comes back
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


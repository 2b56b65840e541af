"""BATCH_SCHEMA at the Arrow boundary: every batch a Python function hands Spark has the schema
the function declared, compared by logical type (docs/types.md).

PySpark does not check this for ``mapInArrow``: a dictionary-encoded string column fails deep in
the JVM (``Cannot call the method "getUTF8String"``), a renamed column or a time-zoned timestamp
for a ``timestamp_ntz`` column is silently accepted. planguard's wrappers check every batch where
it is produced, in the Python worker:

- another encoding of the declared type (large or view strings and binaries, dictionary or
  run-end encoding, any timestamp or duration unit, decimal256 within Spark's precision, large,
  view and fixed-size lists, date64) is cast to the encoding Spark reads, values unchanged;
- anything else — another type, a missing, extra or renamed column, a null in a non-nullable
  field — raises :class:`planguard.BatchSchemaViolation` naming the column, the declared and the
  actual type.

``install()`` makes ``DataFrame.mapInArrow``/``mapInPandas``, ``applyInArrow``/``applyInPandas``
(grouped and cogrouped) and ``SparkSession.createDataFrame`` (from a ``pyarrow.Table``) check their
batches; ``checked(fn, schema)`` wraps one function. Executors import planguard to run the checks,
so the package must be installed where the Python workers run.
"""
import functools
import inspect
import json
import time
from typing import Callable, Optional, Union

import pyarrow as pa
from pyspark.sql import GroupedData, SparkSession
try:  # The classic (non-Connect) DataFrame: on PySpark 4 it overrides pyspark.sql.DataFrame's
    from pyspark.sql.classic.dataframe import DataFrame  # methods; PySpark 3.5 has only that one.
except ImportError:
    from pyspark.sql.dataframe import DataFrame
from pyspark.sql.pandas.group_ops import PandasCogroupedOps
from pyspark.sql import types as T

from planguard import _arrow_types as types
from planguard._errors import _PAYLOAD, BatchSchemaViolation, install_error_conversion

PHASE = "execution"
_WHAT_TO_DO = ("make the function return the declared columns, in the declared order, with "
               "the declared types (any Arrow encoding of a type is accepted), or declare the "
               "schema it returns; to let the query run unchecked, call it without planguard's "
               "wrapper (planguard.arrow.uninstall()). See docs/types.md.")


def _schema(schema) -> T.StructType:
    """A declared schema as a StructType (PySpark also takes a DDL string)."""
    if isinstance(schema, T.StructType):
        return schema
    from pyspark.sql.types import _parse_datatype_string

    parsed = _parse_datatype_string(schema)
    if not isinstance(parsed, T.StructType):
        raise TypeError(f"a batch schema must be a struct type, not {schema!r}")
    return parsed


def _violation(declared: T.StructType, arrow_schema, column: str, actual: str, rule: str,
               source: str):
    field = _field(declared, column)
    declared_type = types.spark_sql(field.dataType) if field else "(not declared)"
    rule = rule or "the caller of planguard.arrow.conform"
    comparison = f"a batch that {source}, against the declared schema"
    expected, actual_text = _render(declared), str(arrow_schema).replace("\n", ", ")
    difference = f"{column}: declared {declared_type}, actual {actual}"
    # The violation's record (the JVM's ViolationRecord), read by Python as the JVM's are.
    record = {"id": "BATCH_SCHEMA", "level": "fail", "phase": PHASE, "rule": rule,
              "expected": expected, "actual": actual_text, "expected_schema": declared.json(),
              "actual_schema": None, "differences": [difference], "plan": comparison,
              "time": int(time.time() * 1000)}
    # The JVM's BATCH_SCHEMA parameters (planguard.errors.InvariantViolation), for Arrow batches.
    parameters = {"phase": PHASE, "comparison": comparison, "rule": rule, "expected": expected,
                  "actual": actual_text, "differences": difference, "advice": _WHAT_TO_DO,
                  _PAYLOAD: json.dumps(record)}
    details = {"column": column, "declared_type": declared_type, "actual_type": actual}
    return BatchSchemaViolation(parameters, details)


def _render(schema: T.StructType) -> str:
    """A schema as the JVM's errors print it (planguard.schema.SchemaDiff.render)."""
    if not schema.fields:
        return "(no columns)"
    return ", ".join(f"{f.name} {types.spark_sql(f.dataType)}{'' if f.nullable else ' NOT NULL'}"
                     for f in schema.fields)


def _field(declared: T.StructType, column: str):
    """The declared (possibly nested) field a column path names, or None."""
    data_type, field = declared, None
    for part in column.replace("[]", "").split("."):
        if isinstance(data_type, T.MapType):
            data_type = data_type.keyType if part == "key" else data_type.valueType
            field = T.StructField(part, data_type)
            continue
        while isinstance(data_type, T.ArrayType):
            data_type = data_type.elementType
        if not isinstance(data_type, T.StructType) or part not in data_type.names:
            return None
        field = data_type[part]
        data_type = field.dataType
    if column.endswith("[]") and field is not None:
        return T.StructField(column, field.dataType.elementType)
    return field


def _arrow_type_at(arrow_fields, column: str) -> str:
    """The Arrow type at a column path, as text, for the message."""
    t = pa.struct(arrow_fields)
    for part in column.split("."):
        name = part.replace("[]", "")
        t = types.values_type(t)
        if pa.types.is_map(t):
            t = t.key_type if name == "key" else t.item_type
        elif pa.types.is_struct(t) and t.get_field_index(name) >= 0:
            t = t.field(name).type
        else:
            return "(absent)"
        for _ in range(part.count("[]")):
            t = types.values_type(t).value_type
    return str(t)


def conform(data: Union[pa.RecordBatch, pa.Table], schema: Union[T.StructType, str],
            rule: Optional[str] = None, source: str = "a Python function returned",
            by_name: bool = False) -> Union[pa.RecordBatch, pa.Table]:
    """``data`` (a RecordBatch or Table) in Spark's encoding of ``schema``.

    ``by_name``: columns are matched by name, as Spark does for ``applyInArrow``; else by
    position, as for ``mapInArrow``. Raises BatchSchemaViolation when ``data`` is not logically
    of that schema."""
    declared = _schema(schema)
    if by_name and sorted(data.schema.names) == sorted(declared.names):
        data = data.select(declared.names)
    fields = list(data.schema)
    found = types.fields_mismatch(declared, fields)
    if found:
        column, why = found
        actual = _arrow_type_at(fields, column)
        raise _violation(declared, data.schema, column,
                         actual if why == "different type" else
                         why if actual == "(absent)" else f"{actual} ({why})", rule, source)
    columns = []
    for column, f in zip(data.columns, declared.fields):
        try:
            column = types.normalise(column, f.dataType)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise _violation(declared, data.schema, f.name, f"{column.type} (cannot be read as "
                             f"{types.spark_sql(f.dataType)}: {str(e).splitlines()[0]})",
                             rule, source) from None
        path = types.forbidden_nulls(column, f.dataType, f.nullable, f.name)
        if path:
            raise _violation(declared, data.schema, path,
                             f"{_arrow_type_at(fields, path)} (holds nulls; declared NOT NULL)",
                             rule, source)
        columns.append(types.spark_encoding(column, f.dataType))
    target = pa.schema([pa.field(f.name, c.type, f.nullable) for f, c in
                        zip(declared.fields, columns)])
    if isinstance(data, pa.Table):
        return pa.Table.from_arrays(columns, schema=target)
    return pa.RecordBatch.from_arrays(columns, schema=target)


def _name(fn) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)


def _keep_arity(fn, check):
    """A wrapper calling ``check(fn(*args))``, with fn's number of positional parameters:
    PySpark passes the grouping key only to functions that take two (or three) arguments."""
    arity = len(inspect.getfullargspec(fn).args)
    if inspect.ismethod(fn):
        arity -= 1
    if arity == 1:
        def wrapper(a):
            return check(fn(a))
    elif arity == 2:
        def wrapper(a, b):
            return check(fn(a, b))
    elif arity == 3:
        def wrapper(a, b, c):
            return check(fn(a, b, c))
    else:
        raise TypeError(f"planguard cannot wrap {_name(fn)}: it takes {arity} arguments")
    functools.update_wrapper(wrapper, fn, assigned=("__name__", "__qualname__", "__doc__"))
    return wrapper


def checked(fn: Callable, schema: Union[T.StructType, str], api: str = "mapInArrow") -> Callable:
    """``fn`` made to check, and bring to Spark's encoding, every batch it returns.

    ``api`` is the PySpark API the function is for: ``mapInArrow`` (an iterator of RecordBatches
    in and out), ``applyInArrow`` (a Table out), ``mapInPandas`` or ``applyInPandas``."""
    declared = _schema(schema)
    rule = f"the function {_name(fn)} given to {api}"
    source = f"{api}'s function {_name(fn)} returned"
    if api == "mapInArrow":
        def batches(iterator):
            for batch in fn(iterator):
                yield conform(batch, declared, rule, source) if isinstance(
                    batch, pa.RecordBatch) else batch
        return functools.update_wrapper(batches, fn, assigned=("__name__", "__qualname__"))
    if api == "applyInArrow":
        # Spark accepts an empty table without columns, and matches columns by name.
        return _keep_arity(fn, lambda table: conform(table, declared, rule, source, by_name=True)
                           if isinstance(table, pa.Table) and table.num_columns else table)
    if api == "mapInPandas":
        def frames(iterator):
            for frame in fn(iterator):
                yield _check_pandas(frame, declared, rule, source)
        return functools.update_wrapper(frames, fn, assigned=("__name__", "__qualname__"))
    if api == "applyInPandas":
        return _keep_arity(fn, lambda frame: _check_pandas(frame, declared, rule, source))
    raise ValueError(f"unknown api {api!r}")


def _check_pandas(frame, declared: T.StructType, rule: str, source: str):
    """Checks a pandas DataFrame a function returned; Spark converts it to Arrow itself.

    pandas has no logical integer widths (its integers are int64), so a column conforms when its
    values convert to the declared type without loss; the checks Spark's conversion skips by
    default (overflow, a time zone for TIMESTAMP_NTZ, nulls in NOT NULL columns) fail here."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        return frame
    by_name = any(isinstance(c, str) for c in frame.columns)
    names = list(frame.columns)
    for i, f in enumerate(declared.fields):
        if by_name and f.name not in names or not by_name and i >= len(names):
            raise _violation(declared, frame.dtypes.to_dict(), f.name, "(absent)", rule, source)
        series = frame[f.name] if by_name else frame.iloc[:, i]
        if isinstance(f.dataType, T.TimestampNTZType) and isinstance(
                series.dtype, pd.DatetimeTZDtype):
            raise _violation(declared, frame.dtypes.to_dict(), f.name,
                             f"{series.dtype} (a time zone; declared TIMESTAMP_NTZ)", rule, source)
        if isinstance(f.dataType, T.StructType | T.ArrayType | T.MapType | T.TimestampType |
                      T.TimestampNTZType | T.DateType | T.DayTimeIntervalType):
            continue  # Spark's own conversion decides these (pandas holds them as objects)
        try:
            array = pa.Array.from_pandas(series)
            if types.mismatch(f.dataType, array.type, f.name) and types.numeric(array.type):
                array = types.numbers_as(array, f.dataType)
            elif types.mismatch(f.dataType, array.type, f.name):
                raise _violation(declared, frame.dtypes.to_dict(), f.name,
                                 f"{series.dtype} (Arrow {array.type})", rule, source)
            else:
                array = types.normalise(array, f.dataType)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
            raise _violation(declared, frame.dtypes.to_dict(), f.name,
                             f"{series.dtype} ({str(e).splitlines()[0]})", rule, source) from None
        if not f.nullable and array.null_count:
            raise _violation(declared, frame.dtypes.to_dict(), f.name,
                             f"{series.dtype} (holds nulls; declared NOT NULL)", rule, source)
    if by_name:
        extra = [c for c in names if c not in declared.names]
        if extra:
            raise _violation(declared, frame.dtypes.to_dict(), str(extra[0]),
                             f"{frame[extra[0]].dtype} (not declared)", rule, source)
    return frame


_PATCHES = [
    (DataFrame, "mapInArrow"), (DataFrame, "mapInPandas"),
    (GroupedData, "applyInArrow"), (GroupedData, "applyInPandas"),
    (PandasCogroupedOps, "applyInArrow"), (PandasCogroupedOps, "applyInPandas"),
]


def _patched(cls, api: str):
    original = getattr(cls, api)

    @functools.wraps(original)
    def method(self, func, schema, *args, **kwargs):
        return original(self, checked(func, schema, api), schema, *args, **kwargs)

    method._planguard_original = original
    return method


def _create_data_frame(original):
    @functools.wraps(original)
    def create(self, data, schema=None, *args, **kwargs):
        if isinstance(data, pa.Table) and schema is None:
            data = types.readable(data)  # Spark infers the schema, and refuses view encodings
        elif isinstance(data, pa.Table) and isinstance(schema, (T.StructType, str)):
            schema = _schema(schema)
            data = conform(data, schema, "createDataFrame", "createDataFrame was given")
        return original(self, data, schema, *args, **kwargs)

    create._planguard_original = original
    return create


def install() -> None:
    """Makes PySpark's Arrow- and pandas-backed APIs check every batch (idempotent), and PySpark
    raise :class:`BatchSchemaViolation` on the driver for a batch a worker found wrong
    (:func:`planguard.install_error_conversion`)."""
    install_error_conversion()
    for cls, api in _PATCHES:
        if not hasattr(getattr(cls, api), "_planguard_original"):
            setattr(cls, api, _patched(cls, api))
    if not hasattr(SparkSession.createDataFrame, "_planguard_original"):
        SparkSession.createDataFrame = _create_data_frame(SparkSession.createDataFrame)


def uninstall() -> None:
    """Gives PySpark its own methods back."""
    for cls, api in _PATCHES + [(SparkSession, "createDataFrame")]:
        original = getattr(getattr(cls, api), "_planguard_original", None)
        if original is not None:
            setattr(cls, api, original)

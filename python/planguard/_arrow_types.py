"""Arrow's physical encodings of Spark's logical types, and bringing a column to the one
encoding Spark reads.

A Spark type names a class of Arrow types: every string encoding (utf8, large_utf8, string_view,
dictionary or run-end encoded strings) holds the same logical values. ``mismatch`` tells whether an
Arrow type belongs to a Spark type's class; ``normalise`` casts a column of such a type to the
Arrow type Spark itself produces for the Spark type (``to_arrow_type``), which is what every
Arrow-backed PySpark API reads, and finds nulls in non-nullable fields.
"""
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import types as T
from pyspark.sql.pandas.types import to_arrow_type

def _test(name: str):
    """A pyarrow.types test; False for encodings older pyarrow versions do not know."""
    return getattr(pa.types, name, lambda t: False)


_is_string_view, _is_binary_view = _test("is_string_view"), _test("is_binary_view")
_is_list_view, _is_large_list_view = _test("is_list_view"), _test("is_large_list_view")

_PRIMITIVES = {
    T.NullType: pa.types.is_null,
    T.BooleanType: pa.types.is_boolean,
    T.ByteType: pa.types.is_int8,
    T.ShortType: pa.types.is_int16,
    T.IntegerType: pa.types.is_int32,
    T.LongType: pa.types.is_int64,
    T.FloatType: pa.types.is_float32,
    T.DoubleType: pa.types.is_float64,
    T.DateType: lambda t: pa.types.is_date32(t) or pa.types.is_date64(t),
    # Any unit: a duration's unit is an encoding; Spark reads microseconds.
    T.DayTimeIntervalType: pa.types.is_duration,
    T.StringType: lambda t: (pa.types.is_string(t) or pa.types.is_large_string(t)
                             or _is_string_view(t)),
    T.BinaryType: lambda t: (pa.types.is_binary(t) or pa.types.is_large_binary(t)
                             or _is_binary_view(t) or pa.types.is_fixed_size_binary(t)),
}

_LISTS = (pa.types.is_list, pa.types.is_large_list, _is_list_view,
          _is_large_list_view, pa.types.is_fixed_size_list)

# Allowed when casting to Spark's encoding: sub-microsecond digits are dropped, as Spark does
# when it converts pandas; overflow and any other loss still fail.
_LOSSLESS = dict(allow_int_overflow=False, allow_time_truncate=True, allow_time_overflow=False,
                 allow_decimal_truncate=False, allow_float_truncate=False, allow_invalid_utf8=False)


def spark_sql(data_type: T.DataType) -> str:
    """A Spark type as Spark SQL writes it (``INT``, ``ARRAY<STRING>``), for messages."""
    return data_type.simpleString().upper()


def values_type(t: pa.DataType) -> pa.DataType:
    """The type of the values a dictionary or run-end encoded type encodes (else the type)."""
    while pa.types.is_dictionary(t) or pa.types.is_run_end_encoded(t):
        t = t.value_type
    return t


def mismatch(declared: T.DataType, actual: pa.DataType, path: str):
    """None when ``actual`` encodes ``declared``; else ``(path, why)`` for the first difference."""
    actual = values_type(actual)
    if isinstance(declared, T.UserDefinedType):
        return mismatch(declared.sqlType(), actual, path)
    if isinstance(declared, T.TimestampType):
        return None if pa.types.is_timestamp(actual) and actual.tz is not None else (
            path, "a timestamp with a time zone (TIMESTAMP) is not one without (TIMESTAMP_NTZ)"
            if pa.types.is_timestamp(actual) else "different type")
    if isinstance(declared, T.TimestampNTZType):
        return None if pa.types.is_timestamp(actual) and actual.tz is None else (
            path, f"a timestamp with time zone {actual.tz} is not a TIMESTAMP_NTZ"
            if pa.types.is_timestamp(actual) else "different type")
    if isinstance(declared, T.DecimalType):
        same = (pa.types.is_decimal(actual) and actual.precision == declared.precision
                and actual.scale == declared.scale)
        return None if same else (path, "different type")
    if isinstance(declared, T.ArrayType):
        if not any(test(actual) for test in _LISTS):
            return path, "different type"
        return mismatch(declared.elementType, actual.value_type, f"{path}[]")
    if isinstance(declared, T.MapType):
        if not pa.types.is_map(actual):
            return path, "different type"
        return (mismatch(declared.keyType, actual.key_type, f"{path}.key")
                or mismatch(declared.valueType, actual.item_type, f"{path}.value"))
    if isinstance(declared, T.StructType):
        if not pa.types.is_struct(actual):
            return path, "different type"
        return fields_mismatch(declared, [actual.field(i) for i in range(actual.num_fields)], path)
    test = _PRIMITIVES.get(type(declared))
    if test is not None:
        return None if test(actual) else (path, "different type")
    # Types planguard knows no other encoding of: exactly Spark's own.
    return None if actual == to_arrow_type(declared) else (path, "different type")


def fields_mismatch(declared: T.StructType, actual_fields, path: str = ""):
    """The first difference between declared fields and Arrow fields: names, order, types."""
    prefix = f"{path}." if path else ""
    for i in range(max(len(declared.fields), len(actual_fields))):
        if i >= len(actual_fields):
            return f"{prefix}{declared.fields[i].name}", f"missing: the batch has {i} columns"
        if i >= len(declared.fields):
            return f"{prefix}{actual_fields[i].name}", f"not declared (#{i})"
        d, a = declared.fields[i], actual_fields[i]
        if d.name != a.name:
            return f"{prefix}{d.name}", f"#{i} is {a.name!r} {a.type}"
        found = mismatch(d.dataType, a.type, f"{prefix}{d.name}")
        if found:
            return found
    return None


def normalise(column, declared: T.DataType):
    """``column`` (an Array or ChunkedArray whose type ``mismatch`` accepted) in Spark's encoding."""
    if isinstance(column, pa.ChunkedArray):
        target = _nullable(to_arrow_type(declared))
        return pa.chunked_array([normalise(c, declared) for c in column.chunks], type=target)
    while pa.types.is_run_end_encoded(column.type):
        column = pc.run_end_decode(column)
    column = _lists_from_views(column)
    target = _nullable(to_arrow_type(declared))
    if column.type == target:
        return column
    return pc.cast(column, options=pc.CastOptions(target, **_LOSSLESS))


def _lists_from_views(array: pa.Array) -> pa.Array:
    """``array`` with every list view, at any depth, rebuilt as a list: pyarrow's own cast from
    list_view to list makes invalid arrays (offsets one short, pyarrow 26)."""
    t = array.type
    if _is_list_view(t) or _is_large_list_view(t):
        values = _lists_from_views(pc.list_flatten(array))  # in order, null lists skipped
        lengths = pc.list_value_length(array).fill_null(0)
        offsets = pa.concat_arrays([pa.array([0], lengths.type), pc.cumulative_sum(lengths)])
        make = pa.ListArray if _is_list_view(t) else pa.LargeListArray
        return make.from_arrays(offsets, values, mask=array.is_null())
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        values = _lists_from_views(array.values)
        if values is array.values:
            return array
        make = pa.ListArray if pa.types.is_list(t) else pa.LargeListArray
        return make.from_arrays(array.offsets, values, mask=array.is_null())
    if pa.types.is_struct(t):
        fields = [_lists_from_views(array.field(i)) for i in range(t.num_fields)]
        if all(f is array.field(i) for i, f in enumerate(fields)):
            return array
        return pa.StructArray.from_arrays(fields, names=[f.name for f in t], mask=array.is_null())
    return array


def _nullable(t: pa.DataType) -> pa.DataType:
    """``t`` with every nested field nullable: nulls are looked for after the cast
    (``forbidden_nulls``), which names the field, rather than refused by it."""
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(_nullable(t.field(i).type)).with_nullable(True)
                          for i in range(t.num_fields)])
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_nullable(t.value_type)).with_nullable(True))
    if pa.types.is_map(t):
        return pa.map_(t.key_field.with_type(_nullable(t.key_type)),
                       t.item_field.with_type(_nullable(t.item_type)).with_nullable(True))
    return t


def spark_encoding(array, declared: T.DataType):
    """A normalised column (see ``normalise``) with the declared nested nullability, once
    ``forbidden_nulls`` found none where it is forbidden."""
    target = to_arrow_type(declared)
    return array if array.type == target else array.cast(target)


def numeric(t: pa.DataType) -> bool:
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)


def numbers_as(array: pa.Array, declared: T.DataType) -> pa.Array:
    """Numbers as the declared numeric type; raises ArrowInvalid when a value does not fit
    (overflow, a fraction for an integer) or the declared type is not numeric."""
    target = to_arrow_type(declared)
    if not numeric(target):
        raise pa.ArrowInvalid(f"numbers are not {spark_sql(declared)}")
    return pc.cast(array, options=pc.CastOptions.safe(target))


def forbidden_nulls(array, declared: T.DataType, nullable: bool, path: str):
    """The path of the first field holding a null although declared non-nullable, or None.

    ``array`` is in Spark's encoding (see ``normalise``). Nested values count only where their
    parent is valid."""
    if isinstance(array, pa.ChunkedArray):
        for chunk in array.chunks:
            found = forbidden_nulls(chunk, declared, nullable, path)
            if found:
                return found
        return None
    if not nullable and array.null_count:
        return path
    if isinstance(declared, T.StructType):
        valid = array.is_valid()
        for i, f in enumerate(declared.fields):
            child = array.field(i)
            if not f.nullable and pc.sum(pc.and_(child.is_null(), valid)).as_py():
                return f"{path}.{f.name}" if path else f.name
            found = forbidden_nulls(child.filter(valid), f.dataType, True,
                                    f"{path}.{f.name}" if path else f.name)
            if found:
                return found
    elif isinstance(declared, T.ArrayType):
        return forbidden_nulls(array.flatten(), declared.elementType, declared.containsNull,
                               f"{path}[]")
    elif isinstance(declared, T.MapType):
        start, end = array.offsets[0].as_py(), array.offsets[-1].as_py()
        return forbidden_nulls(array.items.slice(start, end - start), declared.valueType,
                               declared.valueContainsNull, f"{path}.value")
    return None


def _without_views(t: pa.DataType) -> pa.DataType:
    """``t`` with view and run-end encodings replaced by ones PySpark maps to Spark types."""
    if pa.types.is_run_end_encoded(t):
        return _without_views(t.value_type)
    if _is_string_view(t):
        return pa.string()
    if _is_binary_view(t):
        return pa.binary()
    if _is_list_view(t) or _is_large_list_view(t) or pa.types.is_list(t) or \
            pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return pa.list_(t.value_field.with_type(_without_views(t.value_type)))
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(_without_views(t.field(i).type))
                          for i in range(t.num_fields)])
    if pa.types.is_map(t):
        return pa.map_(_without_views(t.key_type), t.item_field.with_type(
            _without_views(t.item_type)))
    return t


def readable(table: pa.Table) -> pa.Table:
    """``table`` with view and run-end encoded columns in encodings PySpark reads, values
    unchanged; other columns untouched."""
    columns = []
    for column in table.columns:
        target = _without_views(column.type)
        if target != column.type:
            chunks = column.chunks
            while chunks and pa.types.is_run_end_encoded(chunks[0].type):
                chunks = [pc.run_end_decode(c) for c in chunks]
            column = pa.chunked_array([_lists_from_views(c).cast(target) for c in chunks],
                                      type=target)
        columns.append(column)
    return pa.Table.from_arrays(columns, names=table.schema.names)

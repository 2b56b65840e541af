"""Logical types for your own queries: encodings never change answers (docs/types.md).

``assert_encoding_invariant`` runs a query under every physical variant a user can switch — how
its Parquet inputs are encoded, how they are read, how operators run — and asserts that each
gives the answer of the baseline (Spark's defaults), naming the variants that differ.
"""
import math
import shutil
import tempfile
from typing import TYPE_CHECKING, Callable, Dict, Iterable, Optional, Union

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

# name -> (session confs, Parquet write options, cache the inputs)
VARIANTS = {
    "parquet dictionary encoding off": ({}, {"parquet.enable.dictionary": "false"}, False),
    "vectorized Parquet reader off": (
        {"spark.sql.parquet.enableVectorizedReader": "false"}, {}, False),
    "whole-stage codegen off": ({"spark.sql.codegen.wholeStage": "false"}, {}, False),
    "adaptive execution off": ({"spark.sql.adaptive.enabled": "false"}, {}, False),
    "adaptive execution on": ({"spark.sql.adaptive.enabled": "true"}, {}, False),
    "in-memory columnar cache": ({}, {}, True),
    "Arrow large var types on": (
        {"spark.sql.execution.arrow.useLargeVarTypes": "true"}, {}, False),
}
_BASELINE = ({}, {"parquet.enable.dictionary": "true"}, False)


def assert_encoding_invariant(
        spark: "SparkSession",
        build_df: Callable[[Dict[str, "DataFrame"]], Union["DataFrame", Dict[str, "DataFrame"]]],
        inputs: Optional[Dict[str, "DataFrame"]] = None, ordered: bool = False,
        rel_tol: float = 1e-9, abs_tol: float = 1e-12,
        variants: Optional[Iterable[str]] = None) -> None:
    """Asserts that ``build_df`` answers the same under every variant.

    ``inputs``: name -> DataFrame, each written to Parquet (per variant's encoding) and read back;
    ``build_df(tables)`` gets name -> the DataFrame read back and returns the query, or a dict
    name -> query to check many queries over inputs written once per variant. Rows are compared
    in order when ``ordered``, else as multisets; floats within ``rel_tol``/``abs_tol``.
    ``variants``: names from ``VARIANTS`` (default: all). Raises AssertionError naming each
    variant (and query) whose answer differs from the baseline's, with a row that differs."""
    inputs = inputs or {}
    baseline = _answer(spark, build_df, inputs, *_BASELINE)
    failures = [f"baseline: {query}: {answer}" for query, answer in baseline.items()
                if isinstance(answer, str)]
    for name in variants or VARIANTS:
        if _is_baseline(spark, *VARIANTS[name]):
            continue  # the session already runs the baseline this way
        answer = _answer(spark, build_df, inputs, *VARIANTS[name])
        for query in baseline:
            difference = _difference(baseline[query], answer[query], ordered, rel_tol, abs_tol)
            if difference:
                failures.append(f"{name}: {difference}" if query is None
                                else f"{name}: {query}: {difference}")
    if failures:
        raise AssertionError("the answer depends on the physical encoding (docs/types.md):\n  "
                             + "\n  ".join(failures))


def _is_baseline(spark, confs, write_options, cache) -> bool:
    return (not cache and not write_options
            and all(spark.conf.get(k, None) == v for k, v in confs.items()))


def _answer(spark, build_df, inputs, confs, write_options, cache):
    directory = tempfile.mkdtemp(prefix="planguard-encoding-")
    previous = {k: spark.conf.get(k, None) for k in confs}
    cached = []
    try:
        for key, value in confs.items():
            spark.conf.set(key, value)
        tables = {}
        for name, df in inputs.items():
            path = f"{directory}/{name}"
            df.write.options(**write_options).parquet(path)
            tables[name] = spark.read.parquet(path)
            if cache:
                tables[name] = tables[name].cache()
                tables[name].count()
                cached.append(tables[name])
        built = build_df(tables)
        queries = built if isinstance(built, dict) else {None: built}
        return {name: _rows(df) for name, df in queries.items()}
    finally:
        for df in cached:
            df.unpersist()
        for key, value in previous.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)
        shutil.rmtree(directory, ignore_errors=True)


def _rows(df):
    """The query's rows, or the error it raised (so that one query's failure hides no other)."""
    try:
        return [tuple(row) for row in df.collect()]
    except Exception as e:  # compared with the baseline's answer, reported by the caller
        return f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"


def _difference(expected, actual, ordered, rel_tol, abs_tol):
    """None when the answers agree; else what differs, in words."""
    if isinstance(expected, str):
        return None  # reported once, as the baseline's failure
    if isinstance(actual, str):
        return f"failed: {actual}"
    if len(expected) != len(actual):
        return f"{len(actual)} rows, the baseline {len(expected)}"
    if not ordered:
        expected, actual = sorted(expected, key=_key), sorted(actual, key=_key)
    for i, (e, a) in enumerate(zip(expected, actual)):
        if not _same(e, a, rel_tol, abs_tol):
            return f"row {i} is {a!r}, the baseline's {e!r}"
    return None


def _key(row):
    """A sort key that puts rows equal within float tolerance next to each other."""
    return tuple((v is None, f"{v:.9g}" if isinstance(v, float) else repr(v)) for v in row)


def _same(e, a, rel_tol, abs_tol) -> bool:
    if isinstance(e, float) and isinstance(a, float):
        return (math.isnan(e) and math.isnan(a)) or math.isclose(e, a, rel_tol=rel_tol,
                                                                 abs_tol=abs_tol)
    if isinstance(e, (tuple, list)) and isinstance(a, (tuple, list)):
        return len(e) == len(a) and all(_same(x, y, rel_tol, abs_tol) for x, y in zip(e, a))
    return e == a

"""One answer under every plan: assertions for your own queries.

``assert_encoding_invariant`` runs a query under every physical variant a user can switch — how
its Parquet inputs are encoded, how they are read, how operators run — and asserts that each
gives the answer of the baseline (Spark's defaults), naming the variants that differ
(docs/types.md). ``assert_same_answer`` runs one DataFrame's query under the plans of the
differential mode — optimizer rules excluded, other join strategies, codegen and adaptive
execution flipped, cached inputs computed — and asserts the same rows (docs/pytest.md).
"""
import shutil
import tempfile
from typing import TYPE_CHECKING, Callable, Dict, Iterable, Optional, Union

from planguard import _answers, _confs

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from planguard._differential.second_opinion import Outcome

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
            difference = _answers.difference(baseline[query], answer[query], ordered,
                                             rel_tol, abs_tol)
            if difference:
                failures.append(f"{name}: {difference}" if query is None
                                else f"{name}: {query}: {difference}")
    if failures:
        raise AssertionError("the answer depends on the physical encoding (docs/types.md):\n  "
                             + "\n  ".join(failures))


def assert_same_answer(df: "DataFrame", variants: Optional[Iterable[str]] = None,
                       max_variants: int = 0, rel_tol: float = _answers.REL_TOL,
                       abs_tol: float = _answers.ABS_TOL) -> "Outcome":
    """Asserts that the DataFrame's query returns the same rows under each plan Spark must agree
    with as under the session's own plan: the rows as a multiset, in order where the query sorts
    them (by its leading sort keys that are result columns), floats within ``rel_tol``/
    ``abs_tol``.

    ``variants``: kinds of plans, among ``"codegen"``, ``"adaptive"``, ``"uncached"``,
    ``"distinct"``, ``"joins"`` and ``"rules"`` (default: all); ``max_variants``: at most so
    many run (0: all). The session needs planguard's jar (``planguard.configure``). Raises AssertionError with the
    query, each variant whose rows differ (the rule, when one is excluded), the rows and both
    plans; ValueError when the query's rows may change from run to run (rand, uuid, a limit over
    rows in no order that cuts some, the clock, ...), which are not compared. Returns what ran
    (variants run, planned alike, failed where the query ran)."""
    from planguard._differential import report, second_opinion, variants as kinds

    outcome = second_opinion.second_opinion(df, tuple(variants or kinds.KINDS), max_variants,
                                            rel_tol, abs_tol)
    if outcome.not_compared:
        raise ValueError(f"the query is not compared: {outcome.not_compared}")
    if outcome.differences:
        raise AssertionError(report.differences(outcome))
    return outcome


def _is_baseline(spark, confs, write_options, cache) -> bool:
    return (not cache and not write_options
            and all(spark.conf.get(k, None) == v for k, v in confs.items()))


def _answer(spark, build_df, inputs, confs, write_options, cache):
    directory = tempfile.mkdtemp(prefix="planguard-encoding-")
    cached = []
    try:
        with _confs.set_for(spark, confs):
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
            return {name: _answers.rows(df) for name, df in queries.items()}
    finally:
        for df in cached:
            df.unpersist()
        shutil.rmtree(directory, ignore_errors=True)

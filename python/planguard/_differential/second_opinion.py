"""One query run again under each of its variants (``variants``), each answer compared with the
baseline's: the query as the session runs it."""
import gc
import time
from typing import List, NamedTuple, Tuple

from planguard import _answers, _confs
from planguard._differential import variants as _variants

PLAN_LINES = 60  # lines of a plan a report shows


class Difference(NamedTuple):
    variant: _variants.Variant
    what: str  # what differs, with the rows that do (planguard._answers.difference)
    baseline_plan: str
    variant_plan: str


class Outcome(NamedTuple):
    query: str  # the query's analyzed plan
    not_compared: str  # why the query was not compared ("" when it was)
    differences: List[Difference]
    failed: List[Tuple[_variants.Variant, str]]  # variants that raised where the baseline ran
    ran: int  # variants run and compared
    alike: int  # variants planned as the baseline or an earlier variant was: not run
    cut: int  # variants past the budget: not tried
    seconds: float


class NotInstalled(Exception):
    """The session has no planguard jar, whose classes make the joins, uncached and rules
    variants and tell a deterministic query."""


def identity(df) -> int:
    """The same for two DataFrames of one query (its analyzed plan, canonicalized)."""
    return df._jdf.queryExecution().analyzed().semanticHash()


def second_opinion(df, kinds=_variants.KINDS, max_variants: int = 0,
                   rel_tol: float = _answers.REL_TOL, abs_tol: float = _answers.ABS_TOL
                   ) -> Outcome:
    """Runs the DataFrame's query as the session runs it, then under each variant of ``kinds``
    (at most ``max_variants`` of them run, 0 for all), and compares their rows."""
    _variants.check(kinds)
    try:
        return _compared(df, kinds, max_variants, rel_tol, abs_tol)
    finally:
        # Py4J's proxies are garbage in reference cycles (a JavaObject and the JavaMembers it
        # caches), freed only by Python's cycle collector, which a long run calls rarely: until
        # then the JVM keeps what they name, every variant's executed plan with its broadcast hash
        # tables and shuffles. Without this, the whole corpus ran a 3 GB driver out of memory.
        gc.collect()


def _compared(df, kinds, max_variants, rel_tol, abs_tol) -> Outcome:
    start = time.monotonic()
    spark = df.sparkSession
    jvm = _planguard_classes(spark)
    text = plan_text(df._jdf.queryExecution().analyzed())
    base = _fresh(df)
    query = base._jdf.queryExecution()
    reason = jvm.Determinism.reason(query)
    # A limit over rows in no order at the result (take, first, show) that cuts none of them:
    # every plan returns them all.
    limit = jvm.Determinism.resultLimit(query) if reason else -1
    expected = None if reason and limit < 0 else _answers.rows(base)
    if isinstance(expected, str):
        reason = f"the query failed: {expected}"
    elif expected is not None and len(expected) < limit:
        reason = ""
    if reason:
        return Outcome(text, reason, [], [], 0, 0, 0, time.monotonic() - start)
    baseline_plan = query.executedPlan()
    analyzed = query.analyzed()
    order = ([int(p) for p in jvm.ResultOrder.columns(analyzed).split(",") if p]
             if jvm.ResultOrder.ordered(analyzed) else None)
    # Where a limit or an offset cut the sorted rows: the rows kept there that tie may differ.
    ties_at = [{"first": 0, "last": -1}[end]
               for end in jvm.ResultOrder.cut(analyzed).split(",") if end]
    differences, failed, ran, alike, cut = [], [], 0, 0, 0
    # The canonical forms of the plans run: a variant planned as one of them is not run. Not the
    # plans themselves, which keep what their run made (broadcast hash tables, shuffles).
    run = [_canonical(baseline_plan)]
    candidates = _variants.of(spark, query, kinds)
    for n, variant in enumerate(candidates):
        if max_variants and ran >= max_variants:
            cut = len(candidates) - n
            break
        with _confs.set_for(spark, variant.confs):
            other = _fresh(df)
            try:
                planned = other._jdf.queryExecution().executedPlan()
            except Exception as e:  # reported with the variant, as a run that failed
                failed.append((variant, _first_line(e)))
                continue
            canonical = _canonical(planned)
            if canonical is not None and any(canonical.equals(c) for c in run if c is not None):
                alike += 1
                continue
            run.append(canonical)
            variant = _variants.planned(spark, variant, other._jdf.queryExecution())
            ran += 1
            actual = _answers.rows(other)
        if isinstance(actual, str):
            failed.append((variant, actual))
        else:
            what = _answers.difference(expected, actual, order or None, rel_tol, abs_tol, ties_at)
            if what:
                differences.append(Difference(
                    variant, what, plan_text(baseline_plan),
                    plan_text(other._jdf.queryExecution().executedPlan())))
        # What the variant's run made is freed before the next one runs (see second_opinion).
        del other, planned
        gc.collect()
    return Outcome(text, "", differences, failed, ran, alike, cut, time.monotonic() - start)


def plan_text(plan) -> str:
    lines = plan.toString().rstrip().splitlines()
    if len(lines) > PLAN_LINES:
        lines = lines[:PLAN_LINES] + [f"... ({len(lines) - PLAN_LINES} more lines)"]
    return "\n".join(lines)


def _fresh(df):
    """The DataFrame's query anew: planned from its analyzed plan under the session's confs of
    now (a DataFrame keeps the plan it was first run with)."""
    return df.select("*")


def _canonical(plan):
    """The physical plan's canonical form (two plans whose forms are equal compute the same, as
    `SparkPlan.sameResult` says); None for a plan Spark cannot canonicalize, which is run."""
    try:
        return plan.canonicalized()
    except Exception:  # noqa: BLE001 - not known to be alike: the variant runs
        return None


def _planguard_classes(spark):
    """planguard.differential on the JVM, its optimizer rule installed in the session."""
    try:
        jvm = spark._jvm.planguard.differential
        jvm.PlanVariants.install(spark._jsparkSession)
        return jvm
    except Exception as e:
        raise NotInstalled(
            "the differential mode needs planguard's jar in the session: "
            "planguard.configure(builder), or spark.jars=<planguard.jar_path()>") from e


def _first_line(error: Exception) -> str:
    # An error PySpark does not convert says only which call failed: the JVM's says why.
    text = str(getattr(error, "java_exception", None) or error)
    return (text.strip().splitlines() or [""])[0][:300]

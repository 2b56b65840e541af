"""Two answers to one query compared, as ``planguard.testing`` and the differential mode compare
them: the rows as a multiset, or in the order the query sorts them; floating-point values within
a tolerance (``math.isclose``), NaN equal to NaN."""
import math
from collections import Counter
from typing import Optional, Sequence, Union

REL_TOL, ABS_TOL = 1e-9, 1e-12
SHOWN = 5  # rows shown of each side of a difference


def rows(df) -> Union[list, str]:
    """The query's rows, or the error it raised (so that one query's failure hides no other)."""
    try:
        return [tuple(row) for row in df.collect()]
    except Exception as e:  # compared with the other answer, reported by the caller
        # An error PySpark does not convert says only which call failed: the JVM's says why.
        error = getattr(e, "java_exception", None) or e
        return f"{type(e).__name__}: {(str(error).splitlines() or [''])[0][:300]}"


def difference(expected, actual, order: Union[None, bool, Sequence[int]] = None,
               rel_tol: float = REL_TOL, abs_tol: float = ABS_TOL,
               cut: Sequence[int] = ()) -> Optional[str]:
    """None when the answers agree; else what differs, in words, with the rows that differ.

    ``order``: None or False, the rows as a multiset; True, the rows in order; column positions,
    the rows as a multiset and their sequence of those columns in order (the columns a query
    sorts by: rows that tie on them come in any order). ``cut``: where a limit (the last row kept,
    -1) or an offset (the first, 0) cut the rows sorted by those columns (every sort key among
    them): the rows that tie there with the row kept may be any of those that tie, and are
    compared by their sort keys alone."""
    if isinstance(expected, str):
        return None  # reported once, as the baseline's failure
    if isinstance(actual, str):
        return f"failed: {actual}"
    if cut and order and order is not True and len(expected) == len(actual):
        expected, actual = (_inside(expected, order, cut, rel_tol, abs_tol),
                            _inside(actual, order, cut, rel_tol, abs_tol))
    if order is True:
        if len(expected) != len(actual):
            return f"{len(actual)} rows, the baseline {len(expected)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            if not same(e, a, rel_tol, abs_tol):
                return f"row {i} is {a!r}, the baseline's {e!r}"
        return None
    missing, extra = _unmatched(expected, actual, rel_tol, abs_tol)
    if missing or extra:
        return (f"{len(actual)} rows, the baseline {len(expected)}; "
                f"{len(missing)} of the baseline's rows missing{_shown(missing)}; "
                f"{len(extra)} rows not in the baseline{_shown(extra)}")
    if order:
        keys = [[tuple(row[i] for i in order) for row in side] for side in (expected, actual)]
        for i, (e, a) in enumerate(zip(*keys)):
            if not same(e, a, rel_tol, abs_tol):
                return (f"the same rows in another order: row {i} sorts by {a!r}, the "
                        f"baseline's by {e!r} (sorted by the columns at {list(order)})")
    return None


def _inside(rows: list, order: Sequence[int], cut: Sequence[int], rel_tol: float,
            abs_tol: float) -> list:
    """The rows, those that tie on the sort keys with a row kept where the rows were cut reduced
    to their keys (the other columns None): any of the tied rows may be kept there."""
    if not rows:
        return rows
    ends = [tuple(rows[i][k] for k in order) for i in cut]

    def at_an_end(row) -> bool:
        key = tuple(row[k] for k in order)
        return any(same(key, end, rel_tol, abs_tol) for end in ends)

    return [tuple(v if i in order else None for i, v in enumerate(row)) if at_an_end(row)
            else row for row in rows]


def same(e, a, rel_tol: float = REL_TOL, abs_tol: float = ABS_TOL) -> bool:
    if isinstance(e, float) and isinstance(a, float):
        return (math.isnan(e) and math.isnan(a)) or math.isclose(e, a, rel_tol=rel_tol,
                                                                 abs_tol=abs_tol)
    if isinstance(e, (tuple, list)) and isinstance(a, (tuple, list)):
        return len(e) == len(a) and all(same(x, y, rel_tol, abs_tol) for x, y in zip(e, a))
    if isinstance(e, dict) and isinstance(a, dict):
        return e.keys() == a.keys() and all(same(e[k], a[k], rel_tol, abs_tol) for k in e)
    return e == a


def _unmatched(expected, actual, rel_tol, abs_tol):
    """The rows of each side the other lacks, as multisets: equal rows first, then the rest
    paired within the tolerance."""
    left, right = Counter(map(_normal, expected)), Counter(map(_normal, actual))
    only_left, only_right = left - right, right - left
    missing = [row for row in expected if _take(only_left, row)]
    extra = [row for row in actual if _take(only_right, row)]
    for row in list(missing):
        match = next((other for other in extra if same(row, other, rel_tol, abs_tol)), None)
        if match is not None:
            missing.remove(row)
            extra.remove(match)
    return missing, extra


def _take(surplus: Counter, row) -> bool:
    """Whether the row is one of a surplus, which it then leaves."""
    key = _normal(row)
    if surplus[key] > 0:
        surplus[key] -= 1
        return True
    return False


def _normal(value):
    """A hashable form, equal for equal values; floats to 9 significant digits."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.9g}"
    if isinstance(value, (tuple, list)):
        return tuple(map(_normal, value))
    if isinstance(value, dict):
        return tuple(sorted(((repr(k), _normal(v)) for k, v in value.items()), key=repr))
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def _shown(rows: list) -> str:
    if not rows:
        return ""
    more = f" and {len(rows) - SHOWN} more" if len(rows) > SHOWN else ""
    return ": " + ", ".join(map(repr, rows[:SHOWN])) + more

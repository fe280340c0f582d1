"""Parameter validation for the notebooks.

Every chapter notebook validates its papermill parameters in its first code
cell with these functions, so that a bad value stops the run with one clear
message naming the parameter and what is allowed, instead of a stack trace
from deep inside numpy.

Examples
--------
>>> check_int("k", 4, low=1)
4
>>> check_choice("table", "adult", ["slides", "adult"])
'adult'
>>> check_number("epsilon", -1, low=0, low_inclusive=False)
Traceback (most recent call last):
...
anonlab.params.ParameterError: parameter 'epsilon' must be > 0, got -1
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = [
    "ParameterError",
    "check_choice",
    "check_int",
    "check_number",
    "check_bool",
    "check_str",
    "check_column",
    "check_columns",
    "check_number_list",
]


class ParameterError(ValueError):
    """A notebook parameter has a wrong type or value.

    The message always names the parameter and says what is allowed.
    """


def _fmt(value: Any) -> str:
    return repr(value)


def check_choice(name: str, value: Any, allowed: Iterable[Any]) -> Any:
    """Check that ``value`` is one of ``allowed``.

    Raises
    ------
    ParameterError
        ``parameter 'table' must be one of 'slides', 'adult'; got 'adlt'``.
    """
    options = list(allowed)
    if value not in options:
        shown = ", ".join(_fmt(o) for o in options)
        raise ParameterError(f"parameter {name!r} must be one of {shown}; got {_fmt(value)}")
    return value


def _check_bounds(
    name: str,
    value: float,
    low: float | None,
    high: float | None,
    low_inclusive: bool,
    high_inclusive: bool,
) -> None:
    if low is not None:
        bad = value < low if low_inclusive else value <= low
        if bad:
            op = ">=" if low_inclusive else ">"
            raise ParameterError(f"parameter {name!r} must be {op} {low}, got {_fmt(value)}")
    if high is not None:
        bad = value > high if high_inclusive else value >= high
        if bad:
            op = "<=" if high_inclusive else "<"
            raise ParameterError(f"parameter {name!r} must be {op} {high}, got {_fmt(value)}")


def check_int(
    name: str,
    value: Any,
    *,
    low: int | None = None,
    high: int | None = None,
) -> int:
    """Check that ``value`` is an integer (not a bool) in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterError(
            f"parameter {name!r} must be an integer, got {_fmt(value)} ({type(value).__name__})"
        )
    _check_bounds(name, value, low, high, True, True)
    return value


def check_number(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
) -> float:
    """Check that ``value`` is a finite real number within the given bounds.

    Integers are accepted and returned as ``float``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParameterError(
            f"parameter {name!r} must be a number, got {_fmt(value)} ({type(value).__name__})"
        )
    if not math.isfinite(value):
        raise ParameterError(f"parameter {name!r} must be a finite number, got {_fmt(value)}")
    _check_bounds(name, value, low, high, low_inclusive, high_inclusive)
    return float(value)


def check_bool(name: str, value: Any) -> bool:
    """Check that ``value`` is ``True`` or ``False``."""
    if not isinstance(value, bool):
        raise ParameterError(f"parameter {name!r} must be True or False, got {_fmt(value)}")
    return value


def check_str(name: str, value: Any) -> str:
    """Check that ``value`` is a non-empty string."""
    if not isinstance(value, str) or not value:
        raise ParameterError(f"parameter {name!r} must be a non-empty string, got {_fmt(value)}")
    return value


def check_column(name: str, value: Any, available: Iterable[str]) -> str:
    """Check that ``value`` names one of the ``available`` columns."""
    columns = list(available)
    if not isinstance(value, str) or value not in columns:
        raise ParameterError(
            f"parameter {name!r}: unknown attribute {_fmt(value)}; available: {', '.join(columns)}"
        )
    return value


def check_columns(
    name: str, value: Any, available: Iterable[str], *, min_len: int = 1
) -> list[str]:
    """Check that ``value`` is a list of distinct names of ``available`` columns."""
    columns = list(available)
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ParameterError(f"parameter {name!r} must be a list of column names, got {_fmt(value)}")
    items = list(value)
    if len(items) < min_len:
        raise ParameterError(f"parameter {name!r} needs at least {min_len} column(s), got {items}")
    unknown = [v for v in items if v not in columns]
    if unknown:
        raise ParameterError(
            f"parameter {name!r}: unknown attribute(s) {unknown}; available: {', '.join(columns)}"
        )
    if len(set(items)) != len(items):
        raise ParameterError(f"parameter {name!r} lists a column twice: {items}")
    return items


def check_number_list(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    integer: bool = False,
    min_len: int = 1,
) -> list[float] | list[int]:
    """Check a non-empty list of numbers (e.g. an epsilon grid), each within bounds."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ParameterError(f"parameter {name!r} must be a list of numbers, got {_fmt(value)}")
    if len(value) < min_len:
        raise ParameterError(f"parameter {name!r} needs at least {min_len} value(s), got {list(value)}")
    out: list[Any] = []
    for i, v in enumerate(value):
        item = f"{name}[{i}]"
        if integer:
            out.append(check_int(item, v, low=None if low is None else int(math.ceil(low)),
                                 high=None if high is None else int(high)))
            if low is not None and not low_inclusive and v <= low:
                raise ParameterError(f"parameter {item!r} must be > {low}, got {v!r}")
        else:
            out.append(check_number(item, v, low=low, high=high, low_inclusive=low_inclusive))
    return out

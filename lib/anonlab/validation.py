"""Validation of parameters and inputs (after scikit-learn's ``utils.validation``).

``check_*`` validate one value and raise :class:`ParameterError` naming the parameter and what is allowed;
:func:`check_random_state` turns a ``seed`` (int, Generator or None) into a generator; :class:`Param` and
:class:`ParameterSpec` declare a chapter's parameters once (checked by the runner, listed by ``python -m anonlab run
CHAPTER --list-parameters``, validated in the notebook by :meth:`ParameterSpec.validate`).

>>> check_number("epsilon", -1, low=0, low_inclusive=False)
Traceback (most recent call last):
...
anonlab.validation.ParameterError: parameter 'epsilon' must be > 0, got -1
>>> spec = ParameterSpec([Param("k", "int", 4, "smallest class size", low=1)])
>>> spec.validate({"k": 5})
{'k': 5}
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "ParameterError",
    "excerpt",
    "Param",
    "ParameterSpec",
    "check_random_state",
    "check_scheduler_address",
    "check_path",
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


#: The longest excerpt of a value an error message quotes (characters): a 100 KB value is not echoed whole.
EXCERPT_CHARS = 80


def excerpt(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """A short ``repr`` of ``value`` for an error message: at most ``limit`` characters, nested and long
    containers elided (``reprlib``), so a huge or deeply nested value costs no time or memory to quote.

    >>> excerpt("x" * 1000)[:12], len(excerpt("x" * 1000)) <= 80
    ("'xxxxxxxxxxx", True)
    >>> excerpt([1, 2]), excerpt(list(range(100)))
    ('[1, 2]', '[0, 1, 2, 3, 4, 5, ...]')
    """
    import reprlib

    r = reprlib.Repr()
    r.maxlevel, r.maxlist, r.maxtuple, r.maxdict, r.maxset = 3, 6, 6, 4, 6
    r.maxstring = r.maxother = r.maxlong = limit
    text = r.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fmt(value: Any) -> str:
    return excerpt(value)


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
    """Check that ``value`` is an integer (not a bool; numpy integers count) in ``[low, high]``.

    Returns it as a Python ``int``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ParameterError(
            f"parameter {name!r} must be an integer, got {_fmt(value)} ({type(value).__name__})"
        )
    value = int(value)
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
        raise ParameterError(f"parameter {name!r} needs at least {min_len} column(s), got {_fmt(items)}")
    unknown = [v for v in items if v not in columns]
    if unknown:
        raise ParameterError(
            f"parameter {name!r}: unknown attribute(s) {_fmt(unknown)}; available: {', '.join(columns)}"
        )
    if len(set(items)) != len(items):
        raise ParameterError(f"parameter {name!r} lists a column twice: {_fmt(items)}")
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
        raise ParameterError(f"parameter {name!r} needs at least {min_len} value(s), got {_fmt(list(value))}")
    out: list[Any] = []
    for i, v in enumerate(value):
        item = f"{name}[{i}]"
        if integer:
            out.append(check_int(item, v, low=None if low is None else int(math.ceil(low)),
                                 high=None if high is None else int(high)))
            if low is not None and not low_inclusive and v <= low:
                raise ParameterError(f"parameter {item!r} must be > {low}, got {_fmt(v)}")
        else:
            out.append(check_number(item, v, low=low, high=high, low_inclusive=low_inclusive))
    return out


def check_str_list(
    name: str, value: Any, *, choices: Iterable[str] | None = None, min_len: int = 1,
    unique: bool = True,
) -> list[str]:
    """Check a list of strings, each one of ``choices`` when given, without repeats."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ParameterError(f"parameter {name!r} must be a list of strings, got {_fmt(value)}")
    items = list(value)
    if len(items) < min_len:
        raise ParameterError(f"parameter {name!r} needs at least {min_len} value(s), got {_fmt(items)}")
    bad = [v for v in items if not isinstance(v, str)]
    if bad:
        raise ParameterError(f"parameter {name!r} must hold strings only, got {_fmt(bad[0])}")
    if choices is not None:
        allowed = list(choices)
        unknown = [v for v in items if v not in allowed]
        if unknown:
            raise ParameterError(
                f"parameter {name!r}: unknown value(s) {_fmt(unknown)}; allowed: {', '.join(map(str, allowed))}"
            )
    if unique and len(set(items)) != len(items):
        raise ParameterError(f"parameter {name!r} lists a value twice: {_fmt(items)}")
    return items


def check_path(name: str, value: Any, *, must_exist: bool = True) -> str:
    """Check a path to a file or folder the user supplies; the message names the parameter."""
    from pathlib import Path

    check_str(name, value)
    if must_exist and not Path(value).expanduser().exists():
        raise ParameterError(f"parameter {name!r}: no file or folder at {_fmt(value)}")
    return value


def check_scheduler_address(name: str, value: Any) -> str:
    """Check that ``value`` is a Dask scheduler address, ``protocol://host:port`` (``tcp``, ``tls``, ``ws``, ``inproc``).

    >>> check_scheduler_address("scheduler", "tcp://127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> check_scheduler_address("scheduler", "bogus")
    Traceback (most recent call last):
    ...
    anonlab.validation.ParameterError: parameter 'scheduler' must be a Dask scheduler address like tcp://host:8786, got 'bogus'
    """
    import re

    if not isinstance(value, str) or not re.fullmatch(r"(tcp|tls|ws|wss|inproc)://[^\s:/]+(:\d{1,5})?/?", value) \
            or (value.startswith(("tcp", "tls", "ws")) and not re.search(r":\d{1,5}/?$", value)):
        raise ParameterError(f"parameter {name!r} must be a Dask scheduler address like tcp://host:8786, "
                             f"got {_fmt(value)}")
    return value


def check_random_state(seed: int | np.random.Generator | None, name: str = "seed") -> np.random.Generator:
    """Turn ``seed`` into a :class:`numpy.random.Generator` (the library's one source of randomness).

    ``None`` gives a fresh, unseeded generator; an integer ``s >= 0`` gives ``numpy.random.default_rng(s)``; a
    generator is returned as it is, so a caller can thread one generator through several draws.

    >>> float(check_random_state(0).random()) == float(np.random.default_rng(0).random())
    True
    >>> g = np.random.default_rng(1); check_random_state(g) is g
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ParameterError(
            f"parameter {name!r} must be an integer >= 0 or a numpy Generator, got {_fmt(seed)}"
        )
    if seed < 0:
        raise ParameterError(f"parameter {name!r} must be >= 0, got {seed}")
    return np.random.default_rng(int(seed))


# ---------------------------------------------------------------------------
# Declared parameters
# ---------------------------------------------------------------------------

KINDS = ("int", "float", "bool", "str", "choice", "int_list", "float_list", "str_list", "path", "any")


@dataclass(frozen=True)
class Param:
    """One declared parameter of a chapter.

    Parameters: ``name``: The variable of the notebook's ``parameters`` cell. ``kind``: One of ``int``, ``float``,
    ``bool``, ``str``, ``choice``, ``int_list``, ``float_list``, ``str_list``, ``path`` (a user-supplied file) or
    ``any`` (no check). ``default``: The value of the ``parameters`` cell (a test checks they agree). ``help``: One
    line: what it means, with its unit. ``low``, ``high``: Bounds of a number or of each item of a number list
    (inclusive unless ``low_inclusive`` / ``high_inclusive`` say otherwise). Every size parameter has a ``high`` so
    that a run that cannot fit is refused. ``choices``: Allowed values (``choice``, ``str`` and ``str_list``).
    ``nullable``: ``None`` is allowed too (e.g. "no file", "all rows"). ``min_len``, ``max_len``: Length bounds of a
    list.
    """

    name: str
    kind: str
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    low_inclusive: bool = True
    high_inclusive: bool = True
    choices: tuple[Any, ...] | None = None
    nullable: bool = False
    min_len: int = 1
    max_len: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Param {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.choices is not None and not isinstance(self.choices, tuple):
            object.__setattr__(self, "choices", tuple(self.choices))

    def check(self, value: Any) -> Any:
        """Validate ``value``; raise :class:`ParameterError` naming the parameter."""
        n = self.name
        if value is None and self.nullable:
            return None
        k = self.kind
        if k == "int":
            check_int(n, value, low=None if self.low is None else int(self.low),
                      high=None if self.high is None else int(self.high))
        elif k == "float":
            check_number(n, value, low=self.low, high=self.high,
                         low_inclusive=self.low_inclusive, high_inclusive=self.high_inclusive)
        elif k == "bool":
            check_bool(n, value)
        elif k == "str":
            check_str(n, value)
            if self.choices is not None:
                check_choice(n, value, self.choices)
        elif k == "choice":
            check_choice(n, value, self.choices or ())
        elif k in ("int_list", "float_list"):
            check_number_list(n, value, low=self.low, high=self.high, low_inclusive=self.low_inclusive,
                              integer=k == "int_list", min_len=self.min_len)
            if self.high is not None and not self.high_inclusive:
                over = [v for v in value if v >= self.high]
                if over:
                    raise ParameterError(f"parameter {n!r}: every value must be < {self.high}, got {_fmt(over[0])}")
        elif k == "str_list":
            check_str_list(n, value, choices=self.choices, min_len=self.min_len)
        elif k == "path":
            check_path(n, value)
        if self.max_len is not None and k.endswith("_list") and len(value) > self.max_len:
            raise ParameterError(f"parameter {n!r} takes at most {self.max_len} values, got {len(value)}")
        return value

    def allowed(self) -> str:
        """What is allowed, in words (for ``--list-parameters``)."""
        parts: list[str] = []
        if self.choices is not None:
            parts.append("one of " + ", ".join(repr(c) for c in self.choices)
                         if not self.kind.endswith("_list") else
                         "items from " + ", ".join(repr(c) for c in self.choices))
        if self.low is not None:
            parts.append((">= " if self.low_inclusive else "> ") + f"{self.low:g}")
        if self.high is not None:
            parts.append(("<= " if self.high_inclusive else "< ") + f"{self.high:g}")
        if self.nullable:
            parts.append("or None")
        return ", ".join(parts)


CrossCheck = Callable[[Mapping[str, Any]], None]


@dataclass(frozen=True)
class ParameterSpec:
    """A chapter's declared parameters, in the order of its ``parameters`` cell.

    ``checks`` are functions of all the values that raise :class:`ParameterError` for combinations no single parameter
    can refuse (e.g. the sensitive attribute must not be a quasi-identifier).
    """

    params: Sequence[Param]
    checks: Sequence[CrossCheck] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"parameter declared twice in {names}")

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.params]

    def __getitem__(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict[str, Any]:
        """Every parameter's default value."""
        return {p.name: p.default for p in self.params}

    def check_names(self, values: Mapping[str, Any]) -> None:
        """Refuse names this chapter does not declare."""
        unknown = sorted(set(values) - set(self.names))
        if unknown:
            raise ParameterError(
                f"unknown parameter(s) {', '.join(unknown)}; this chapter takes: {', '.join(self.names)}"
            )

    def validate(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Check a run's values (missing names take their defaults) and return them all.

        Values are returned as given, not converted: the notebook computes with exactly what the user passed.
        """
        self.check_names(values)
        full = {**self.defaults(), **values}
        for p in self.params:
            p.check(full[p.name])
        for check in self.checks:
            check(full)
        return {p.name: full[p.name] for p in self.params}

    def validate_namespace(self, namespace: Mapping[str, Any]) -> dict[str, Any]:
        """Validate the parameters as they stand in a notebook's namespace (``globals()``)."""
        missing = [n for n in self.names if n not in namespace]
        if missing:
            raise ParameterError(f"the parameters cell does not define {', '.join(missing)}")
        return self.validate({n: namespace[n] for n in self.names})

    def describe(self) -> str:
        """A plain-text table: name, default, allowed values, meaning."""
        rows = [(p.name, repr(p.default), p.allowed(), p.help) for p in self.params]
        w0 = max([len(r[0]) for r in rows] + [4])
        w1 = min(max([len(r[1]) for r in rows] + [7]), 28)
        lines = []
        for name, default, allowed, meaning in rows:
            d = default if len(default) <= w1 else default[: w1 - 1] + "…"
            extra = f" [{allowed}]" if allowed else ""
            lines.append(f"{name:<{w0}}  {d:<{w1}}  {meaning}{extra}")
        return "\n".join(lines)

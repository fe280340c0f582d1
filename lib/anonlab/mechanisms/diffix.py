"""Diffix's sticky noise: a query proxy over an embedded SQL engine.

The mechanism for counting queries as Gadotti et al., *When the signal is in the noise*, USENIX Security 2019 ([G19])
§2 describe Diffix (Aircloak, 2017-2018), over a DuckDB table. For ``Q = SELECT count(*) FROM t WHERE C_1 AND ... AND
C_h`` the answer is Eq. 1, Q(D) + Σ static[C_i] + Σ dynamic_Q[C_i], each layer N(0, 1): static seeded by ``hash(C) XOR
salt``, dynamic by that XOR the hashes of the query set's users. Bucket suppression answers 0 for a query set of at
most one user or below a sticky threshold T ~ N(4, 1/2) (seeded by ``salt XOR`` the users' hashes; the converted
text's "≤ 2" is a glitch for "≤ 1"); answers are rounded to the nearest non-negative integer (§4). Both can be
switched off; the raw answer is N(Q(D), 2h). A query without conditions gets one generic static and dynamic layer,
N(Q(D), 2), as Diffix and pg_diffix never answer exactly (``generic_layer=False`` is Eq. 1 literally, h = 0).

A condition's noise is seeded by its canonical text, what it says about the column: spellings of one condition share
it (``AGE=37``, ``37 = age``, ``age = 37.0``; on an integer column ``age < 30.5``, ``age < 31`` and ``age <= 30.999``
are all ``age <= 30``), while conditions that differ in meaning get independent noise even when they select the same
rows (``age = 37`` vs ``age >= 37 AND age <= 37``, a dummy ``d <> b``, ``col <> v`` for a value no record has): the
property the attacks of [G19] use. Later Diffix versions' range snapping is not modelled.

Accepted SQL (sqlglot, DuckDB dialect): ``SELECT count(*) FROM <table> [WHERE <cond> AND
...]``, ``<cond> := <column> <op> <literal>`` with ``=, <>, !=, <, <=, >, >=``; prepared
statements with ``?`` (:meth:`DiffixProxy.execute`), each bound row one query. Anything else
is refused with :class:`DiffixQueryError` (an allow-list), leaving no state behind. DuckDB's
own parser must read the text as the proxy does, and numbers are compared in the type DuckDB
gives them (refused where a float cannot keep DuckDB's outcome). The PRNG is SplitMix64
(Steele, Lea & Flood 2014) with Box-Muller; ``hash`` is BLAKE2b (8 bytes) for texts and the
SplitMix64 mix for integer user ids. ``mode="bitmaps"`` keeps each condition's row set as a
bitmap (at most ``cache_bytes``; no answer depends on it), ``mode="sql"`` runs one DuckDB
statement per query; the two answer alike (tested).

>>> import pandas as pd
>>> df = pd.DataFrame({"age": [30, 30, 30, 30, 30, 30, 41], "hiv": [0, 1, 0, 0, 1, 0, 1]})
>>> proxy = DiffixProxy(df, table="patients", salt=7)
>>> a = proxy.query("SELECT count(*) FROM patients WHERE age = 30")
>>> a == proxy.query("select COUNT(*) from patients where age=30")   # sticky
True
>>> proxy.query("SELECT count(*) FROM patients WHERE age = 41")       # one user: suppressed
0
>>> proxy.n_queries()
3
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import itertools
import json
import math
import os
import threading
import operator
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Any, Literal

import numpy as np
import pandas as pd

from anonlab.validation import check_random_state

__all__ = [
    "DiffixQueryError",
    "Condition",
    "CountQuery",
    "DiffixProxy",
    "NoiseBreakdown",
    "parse_count_query",
    "splitmix64",
    "prng_normal",
    "condition_hash",
    "uid_hashes",
    "salt_to_uint64",
    "noise_sample",
    "suppression_curve",
]

OPERATORS = ("=", "<>", "<", "<=", ">", ">=")
_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
ColumnKind = Literal["int", "float", "str"]

_U64 = np.uint64
_GOLDEN = _U64(0x9E3779B97F4A7C15)
_GOLDEN2 = _U64((2 * 0x9E3779B97F4A7C15) & ((1 << 64) - 1))
_M1 = _U64(0xBF58476D1CE4E5B9)
_M2 = _U64(0x94D049BB133111EB)
_MASK64 = (1 << 64) - 1
_LANES = np.arange(64)
_FEW_WORDS = 16  # _intersect: from this many candidate words down, AND them as Python integers
_FEW_ROWS = 32  # _intersect: up to this many rows, XOR their hashes in Python
_TEMPLATE_CHARS = 1 << 24  # _template: characters of memoised statements kept at most (then forgotten)
_KEYS_PER_PASS = 2048  # _query_sets: query sets evaluated per pass of bitmaps (the cache may drop others between)
_PY_TYPE = {"int": int, "float": float, "str": str}  # the type of a condition's value, by column kind
_INT_TYPES = frozenset({int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64})
_FLOAT_TYPES = frozenset({float, np.float16, np.float32, np.float64})
_STR_TYPES = frozenset({str, np.str_})
#: By column kind, the types of bound values whose condition id is looked up by value (``_id_of``):
#: a value of one of these types equals a value seen before only if :func:`_condition` makes the same
#: condition of both. Any other value (``True == 1``, ``np.True_``, ``1 + 0j``, ``Fraction(61, 2)``,
#: the float ``2.0**53`` against the integer ``2**53``, a Decimal of another scale) is read afresh
#: every time, so an answer never depends on what the proxy has seen.
_LOOKUP_TYPES: dict[str, frozenset[type]] = {"int": _INT_TYPES | _STR_TYPES, "float": _FLOAT_TYPES | _STR_TYPES,
                                             "str": _STR_TYPES | _INT_TYPES | _FLOAT_TYPES}


class DiffixQueryError(ValueError):
    """The proxy refuses a query (not ``SELECT count(*) ... WHERE cond AND ...``); the message says why."""


# ---------------------------------------------------------------------------
# PRNG and hashes
# ---------------------------------------------------------------------------


def _mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64 output function (Stafford's variant 13), wrapping uint64 arithmetic, on arrays."""
    z = (z ^ (z >> _U64(30))) * _M1
    z = (z ^ (z >> _U64(27))) * _M2
    return z ^ (z >> _U64(31))


def splitmix64(seeds: Any, n: int = 1) -> np.ndarray:
    """First ``n`` outputs of SplitMix64 (Steele, Lea & Flood, OOPSLA 2014) from each seed: shape seeds.shape + (n,).

    >>> hex(int(splitmix64(0)[0]))      # first output of seed 0 (reference value)
    '0xe220a8397b1dcdaf'
    """
    s = np.asarray(seeds, dtype=_U64)
    steps = np.arange(1, n + 1, dtype=_U64) * _GOLDEN
    state = np.atleast_1d(s)[..., None] + steps
    return _mix64(state).reshape(s.shape + (n,))


def prng_normal(seeds: Any) -> np.ndarray:
    """One standard normal per seed: SplitMix64 then Box-Muller, sqrt(-2 ln u1) cos(2π u2).

    u1 = 1 - (o1 >> 11)/2^53, u2 = (o2 >> 11)/2^53 from the first two outputs; same seed, same draw: what makes the
    noise sticky.
    """
    s = np.atleast_1d(np.asarray(seeds, dtype=_U64))
    o1 = _mix64(s + _GOLDEN)
    o2 = _mix64(s + _GOLDEN2)
    u1 = 1.0 - (o1 >> _U64(11)).astype(np.float64) * 2.0**-53
    u2 = (o2 >> _U64(11)).astype(np.float64) * 2.0**-53
    z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
    return z.reshape(np.shape(seeds))


@lru_cache(maxsize=1 << 16)
def condition_hash(text: str) -> int:
    """``hash(C)`` of a condition's canonical text: the first 8 bytes of BLAKE2b, as an integer.

    >>> condition_hash("age = 37") == condition_hash("age = 37")
    True
    """
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


def salt_to_uint64(salt: int | str) -> int:
    """The proxy's secret salt as a 64-bit integer (strings are hashed with BLAKE2b)."""
    if isinstance(salt, bool):
        raise ValueError(f"salt must be an integer or a string, got {salt!r}")
    if isinstance(salt, (int, np.integer)):
        if not 0 <= int(salt) <= _MASK64:
            raise ValueError(f"salt must be an integer in [0, 2**64), got {salt!r}")
        return int(salt)
    if isinstance(salt, str) and salt:
        return condition_hash("salt:" + salt)
    raise ValueError(f"salt must be an integer in [0, 2**64) or a non-empty string, got {salt!r}")


def uid_hashes(uids: Any) -> np.ndarray:
    """``hash(uid)`` of every user id as uint64: SplitMix64's mix for integers, BLAKE2b of the text otherwise."""
    arr = np.asarray(uids)
    if arr.dtype.kind in "iu":
        return splitmix64(arr.astype(np.int64).view(_U64), 1)[..., 0]
    return np.fromiter((condition_hash("uid:" + str(u)) for u in arr.ravel()), dtype=_U64,
                       count=arr.size).reshape(arr.shape)


# ---------------------------------------------------------------------------
# Conditions and parsing
# ---------------------------------------------------------------------------


def _render_literal(value: int | float | str) -> str:
    """The value as written in a condition's canonical text (the text whose hash seeds its noise)."""
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, float):
        return repr(value)
    return str(int(value))


def _sql_literal(value: int | float | str) -> str:
    """The value as a DuckDB literal of its own type: a float as a DOUBLE (``30.5e0``).

    ``30.5`` would be a DECIMAL, and a long one casts an integer column to DECIMAL(38, 20), which fails at 10**18 and
    more.
    """
    if isinstance(value, float):
        text = repr(value)
        return text if "e" in text else text + "e0"
    return _render_literal(value)


@dataclass(frozen=True)
class Condition:
    """One condition ``column op value``; ``text`` is its canonical form, which seeds its noise.

    Spellings of one condition share it (``AGE=37``, ``37 = age``; ``age < 30.5`` and ``age <= 30`` on an integer
    column); different conditions selecting the same rows do not.
    """

    column: str
    op: str
    value: int | float | str
    text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", f"{self.column} {self.op} {_render_literal(self.value)}")

    def sql(self) -> str:
        """The condition as DuckDB SQL with a quoted identifier."""
        col = '"' + self.column.replace('"', '""') + '"'
        return f"{col} {self.op} {_sql_literal(self.value)}"


@dataclass(frozen=True)
class CountQuery:
    """A parsed count query: the table and its conditions (duplicates removed, order kept)."""

    table: str
    conditions: tuple[Condition, ...]

    @property
    def sql(self) -> str:
        """The canonical SQL text of the query."""
        where = " AND ".join(c.text for c in self.conditions)
        return f"SELECT count(*) FROM {self.table}" + (f" WHERE {where}" if where else "")


@dataclass(frozen=True)
class _Slot:
    column: str
    op: str
    value: int | float | str | None  # None: a placeholder
    position: int  # placeholder index, -1 for a literal


class _Plan:
    """A prepared statement read once: its slots and what binding a row of values needs.

    ``pairs`` (column, op) per slot; ``in_order``: the k-th slot takes the k-th value; ``dedupe``/``dup_groups``:
    slots that can bind one condition twice (``<`` as ``<=``, ``>`` as ``>=``); ``conflicts``: columns with both ``=``
    and ``<>`` slots; ``slots`` and ``holes`` are built when first needed.
    """

    __slots__ = ("pairs", "n_placeholders", "in_order", "dedupe", "dup_groups", "conflicts", "_slots", "_holes")

    def __init__(self, pairs: tuple[tuple[str, str], ...], n_placeholders: int, in_order: bool,
                 slots: tuple[_Slot, ...] | None = None) -> None:
        self.pairs = pairs
        self.n_placeholders = n_placeholders
        self.in_order = in_order
        family = tuple((c, _RANGE_FAMILY.get(op, op)) for c, op in pairs)  # `<` and `<=` can bind one condition
        self.dedupe = len(set(family)) < len(family)
        self.dup_groups = _groups_of_repeats(family) if self.dedupe else ()
        self.conflicts = _conflicts(pairs)
        self._slots = slots
        self._holes: tuple[tuple[int, str, str, int], ...] | None = None

    @classmethod
    def of(cls, slots: tuple[_Slot, ...], n_placeholders: int) -> "_Plan":
        """The plan of any parsed statement."""
        in_order = all(s.position == i for i, s in enumerate(slots))
        return cls(tuple((s.column, s.op) for s in slots), n_placeholders, in_order, slots)

    @classmethod
    def of_placeholders(cls, pairs: tuple[tuple[str, str], ...]) -> "_Plan":
        """The plan of ``... WHERE c1 op1 ? AND c2 op2 ? ...`` from its ``(column, op)`` pairs."""
        return cls(pairs, len(pairs), True)

    @property
    def slots(self) -> tuple[_Slot, ...]:
        """The :class:`_Slot` of each condition (for a statement read by :func:`_fast_pairs`, built now)."""
        if self._slots is None:
            self._slots = tuple(_placeholder_slot(c, op, i) for i, (c, op) in enumerate(self.pairs))
        return self._slots

    @property
    def holes(self) -> tuple[tuple[int, str, str, int], ...]:
        """``(slot index, column, op, placeholder index)`` of each ``?``."""
        if self._holes is None:
            self._holes = tuple((i, s.column, s.op, s.position) for i, s in enumerate(self.slots)
                                if s.position >= 0)
        return self._holes


#: The canonical operator of a range on an integer column (:func:`_integer_range`): two slots whose
#: operators map to one can bind one condition (``"age" < ? AND "age" <= ?`` with 31 and 30).
_RANGE_FAMILY = {"<": "<=", ">": ">="}


def _groups_of_repeats(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[int, ...], ...]:
    """The slot indices of each ``(column, op)`` pair that occurs more than once."""
    where: dict[tuple[str, str], list[int]] = {}
    for i, pair in enumerate(pairs):
        where.setdefault(pair, []).append(i)
    return tuple(tuple(g) for g in where.values() if len(g) > 1)


def _no_repeats(groups: tuple[tuple[int, ...], ...], by_slot: list[tuple[int, ...]], n_rows: int) -> bool:
    """No row binds one condition twice: within each group of slots, a row's ids are all different."""
    for group in groups:
        sizes = list(map(len, map(set, zip(*(by_slot[k] for k in group)))))
        if sizes.count(len(group)) != n_rows:
            return False
    return True


def _conflicts(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """For each column with both ``=`` and ``<>`` slots: (indices of its ``=`` slots, of its ``<>`` slots)."""
    ne = {c for c, op in pairs if op == "<>"}
    if not ne or not ne.intersection(c for c, op in pairs if op == "="):
        return ()
    by_column: dict[str, tuple[list[int], list[int]]] = {}
    for i, (c, op) in enumerate(pairs):
        if op in ("=", "<>") and c in ne:
            by_column.setdefault(c, ([], []))[op == "<>"].append(i)
    return tuple((tuple(eq), tuple(neq)) for eq, neq in by_column.values() if eq and neq)


def _kind_of(series: pd.Series) -> ColumnKind:
    if pd.api.types.is_bool_dtype(series) or pd.api.types.is_integer_dtype(series):
        return "int"
    if pd.api.types.is_float_dtype(series):
        return "float"
    return "str"


#: DuckDB reads a numeric literal of digits and one point, at most 38 digits, as a DECIMAL.
_DECIMAL_DIGITS = 38
#: Largest scale of a DECIMAL literal the proxy compares with an integer column: DuckDB casts the
#: column to DECIMAL(20 + scale, scale) for a UBIGINT (20 digits), and a DECIMAL has at most 38 digits.
_MAX_SCALE_FOR_INTEGERS = 18
#: DuckDB compares an integer column with a DOUBLE after casting the column to DOUBLE, which keeps
#: every outcome only while the DOUBLE lies within +-2**53 (a DOUBLE holds every integer up to 2**53).
_DOUBLE_EXACT = 2.0**53
_INTEGER_TEXT = re.compile(r"-?[0-9]+", re.ASCII)
_DECIMAL_TEXT = re.compile(r"-?(?:[0-9]+\.[0-9]*|\.[0-9]+)", re.ASCII)


def _number(text: str) -> int | Decimal | float:
    """A numeric literal in the type DuckDB gives it: INTEGER as int, DECIMAL as Decimal, DOUBLE as float.

    DuckDB ("Literal Types"; ``transform_constant.cpp``): digits are an INTEGER, digits with one point and no exponent
    a DECIMAL(width, scale) up to width 38, anything else a DOUBLE. A digit separator ``_`` is refused.
    """
    if "_" in text:
        raise DiffixQueryError(f"write the number {text!r} without the digit separator '_'")
    if _INTEGER_TEXT.fullmatch(text):
        return int(text)
    if _DECIMAL_TEXT.fullmatch(text) and sum(map(str.isdigit, text)) <= _DECIMAL_DIGITS:
        return Decimal(text)
    try:
        return float(text)
    except ValueError:
        raise DiffixQueryError(f"cannot read the number {text!r}") from None


def _double_for_integers(v: float, column: str) -> int | float:
    """A DOUBLE compared with an integer column: the number with the same outcome for every integer, or refused.

    DuckDB casts the column to DOUBLE, exact within ±2^53 (an integral value is the integer: ``age = 3e1`` is ``age =
    30``); beyond, and beyond 64 bits, refused.
    """
    if abs(v) >= _DOUBLE_EXACT:
        raise DiffixQueryError(
            f"column {column!r} holds integers; DuckDB compares them with the DOUBLE {v!r} after rounding "
            f"them to DOUBLE, which merges integers beyond 2**53: compare it with an integer (digits only) "
            f"within the 64-bit range")
    return int(v) if v.is_integer() else v


def _decimal_value(d: Decimal, column: str, kind: ColumnKind) -> int | float:
    """A DECIMAL literal compared with a numeric column, as DuckDB compares it, or refused.

    Against DOUBLE: the correctly rounded float. Against an integer column DuckDB compares exactly in DECIMAL(digits +
    scale, scale), so a scale above :data:`_MAX_SCALE_FOR_INTEGERS` is refused; an integral value is that integer,
    another the float between the same two integers, refused when none is (``30.0000000000000001``).
    """
    if not d.is_finite():
        raise DiffixQueryError(f"column {column!r}: the number must be finite, got {d!r}")
    if kind == "float":
        return float(d) + 0.0  # -0.0 is 0.0: the same rows
    scale = max(0, -d.as_tuple().exponent)
    if scale > _MAX_SCALE_FOR_INTEGERS:
        raise DiffixQueryError(
            f"column {column!r} holds integers; DuckDB would compare it with {d} as DECIMAL(38,{scale}), "
            f"which cannot hold large integers: write at most {_MAX_SCALE_FOR_INTEGERS} digits after the point")
    if d == d.to_integral_value():
        return _coerce(int(d), column, kind)
    f = float(d)
    if f.is_integer() or math.floor(f) != math.floor(d):
        raise DiffixQueryError(
            f"column {column!r} holds integers; DuckDB compares them with {d} exactly, but the proxy keeps a "
            f"number as a 64-bit float, which reads it as {f!r}: compare with an integer instead "
            f"(e.g. {column} <= {math.floor(d)} or {column} >= {math.ceil(d)})")
    return f


def _coerce(value: Any, column: str, kind: ColumnKind) -> int | float | str:
    """Check a literal (or bound value) against the column's type; return the int, float or str of its canonical text.

    An int is an INTEGER, a Decimal a DECIMAL (:func:`_decimal_value`), a float a DOUBLE (:func:`_double_for_integers`
    on integer columns).
    """
    if isinstance(value, (bool, np.bool_)) or value is None:
        raise DiffixQueryError(f"column {column!r}: compare with a number or a quoted string, "
                               f"not {value!r}")
    if kind == "str":
        if not isinstance(value, str):
            raise DiffixQueryError(
                f"column {column!r} holds text; compare it with a quoted string, "
                f"e.g. {column} = 'value' (got {value!r})")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise DiffixQueryError(f"column {column!r}: the text {value!r} is not valid Unicode "
                                   "(it holds a lone surrogate)") from None
        if len(value) > MAX_LITERAL_CHARS:
            raise DiffixQueryError(f"column {column!r}: a text value longer than {MAX_LITERAL_CHARS} "
                                   "characters is refused")
        return value
    if isinstance(value, str):
        raise DiffixQueryError(
            f"column {column!r} is numeric; compare it with a number, e.g. {column} = 3 "
            f"(got the string {value!r})")
    if isinstance(value, (int, np.integer)):
        # DuckDB reads wider integers as HUGEINT, whose cast to DOUBLE rounds otherwise than Python's float
        if not (-(2**63) <= int(value) < 2**63):
            raise DiffixQueryError(f"column {column!r}: the integer {value} is outside the 64-bit range")
        return float(value) if kind == "float" else int(value)
    if isinstance(value, Decimal):
        return _decimal_value(value, column, kind)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if not math.isfinite(v):
            raise DiffixQueryError(f"column {column!r}: the number must be finite, got {value!r}")
        return _double_for_integers(v, column) if kind == "int" else v + 0.0  # -0.0 is 0.0: the same rows
    raise DiffixQueryError(f"column {column!r}: unsupported value {value!r} "
                           f"({type(value).__name__})")


#: The 64-bit range of an integer column's values (and of the integers the proxy compares them with).
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _condition(column: str, op: str, value: Any, kind: ColumnKind) -> Condition:
    """The canonical condition ``column op value`` whose text seeds the noise (or refused).

    Values go through :func:`_coerce`; a range on an integer column becomes its integer bound
    (:func:`_integer_range`), so averaging bounds a column cannot tell apart gains nothing.
    """
    if kind == "int" and op in ("<", "<=", ">", ">="):
        op, value = _integer_range(op, value, column)
        return Condition(column, op, value)
    return Condition(column, op, _coerce(value, column, kind))


def _integer_range(op: str, value: Any, column: str) -> tuple[str, int]:
    """A range on an integer column as ``<= k`` or ``>= k`` with an integer k: the same rows for any data.

    ``< v`` is ``<= ceil(v) - 1``, ``<= v`` is ``<= floor(v)``, ``> v`` is ``>= floor(v) + 1``, ``>= v`` is ``>=
    ceil(v)``, computed exactly from the value DuckDB compares. An integer bound keeps its text; a strict bound whose
    integer form would leave 64 bits is kept as written.
    """
    exact: int | Decimal | float
    if isinstance(value, Decimal) and value.is_finite() and value != value.to_integral_value():
        if max(0, -value.as_tuple().exponent) > _MAX_SCALE_FOR_INTEGERS:
            _decimal_value(value, column, "int")  # refuses it: DuckDB's cast of the column would fail
        exact = value  # compared exactly, as DuckDB compares a DECIMAL with integers
    elif isinstance(value, (float, np.floating)) and not isinstance(value, bool) and math.isfinite(value) \
            and not float(value).is_integer():
        exact = _double_for_integers(float(value), column)  # refuses beyond 2**53, else the float itself
    else:
        whole = _coerce(value, column, "int")  # an integer, or refused
        if op in ("<=", ">="):
            return op, int(whole)
        exact = int(whole)
    if op in ("<", "<="):
        k = (math.ceil(exact) - 1) if op == "<" else math.floor(exact)
        canonical = "<="
    else:
        k = (math.floor(exact) + 1) if op == ">" else math.ceil(exact)
        canonical = ">="
    if not _INT64_MIN <= k <= _INT64_MAX:
        if isinstance(exact, int):  # a strict bound at the end of the 64-bit range: no integer form
            return op, exact
        _coerce(k, column, "int")  # refuses it: outside the 64-bit range
    return canonical, int(k)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _fold(name: str) -> str:
    """An identifier as DuckDB matches it: case ignored for ASCII letters only (``"é"`` does not match ``É``)."""
    return name.translate(_ASCII_LOWER)


def _snippet(node: Any) -> str:
    try:
        text = node.sql(dialect="duckdb")
    except Exception:  # pragma: no cover - defensive
        text = str(node)
    return text if len(text) <= 80 else text[:77] + "..."


_ALLOWED = ("SELECT count(*) FROM {table} [WHERE column op value AND ...], "
            "op one of =, <>, <, <=, >, >=")


#: Limits on what the proxy parses (far above what any attack in the book sends).
MAX_SQL_CHARS = 50_000
MAX_CONDITIONS = 256
MAX_NESTING = 32
MAX_LITERAL_CHARS = 1_000
_AND_WORD = re.compile(r"(?i)\bAND\b")


def _check_size(sql: str) -> None:
    """Refuse texts too long, too deeply parenthesised or with too many conditions to be a count query.

    Applied to every statement, the fast readings included; the nesting scan runs only above :data:`MAX_NESTING`
    parentheses, conditions are counted by ``AND`` (over-counting refuses earlier).
    """
    if len(sql) > MAX_SQL_CHARS:
        raise DiffixQueryError(f"the query is {len(sql)} characters long; at most {MAX_SQL_CHARS} are accepted")
    if sql.count("(") > MAX_NESTING:  # fewer opening parentheses cannot nest deeper
        depth = deepest = 0
        for ch in sql:
            if ch == "(":
                depth += 1
                deepest = max(deepest, depth)
            elif ch == ")":
                depth -= 1
        if deepest > MAX_NESTING:
            raise DiffixQueryError(f"the query nests parentheses {deepest} deep; at most {MAX_NESTING} are accepted")
    n_and = len(_AND_WORD.findall(sql))
    if n_and >= MAX_CONDITIONS:
        raise DiffixQueryError(f"the query has {n_and + 1} or more conditions; at most {MAX_CONDITIONS} are accepted")


def _check_tokens(sql: str) -> None:
    """Refuse tokens the parser would silently drop (a unary ``+`` before a literal)."""
    from sqlglot.dialects.duckdb import DuckDB
    from sqlglot.tokens import TokenType

    for tok in DuckDB().tokenize(sql):
        if tok.token_type == TokenType.PLUS:
            raise DiffixQueryError("'+' is not allowed: write the value as a plain literal")


def _allowed_args() -> dict[type, frozenset[str]]:
    """The allow-list: every syntax node a count query may contain, with the arguments it may set."""
    from sqlglot import exp

    compare = frozenset({"this", "expression"})
    return {
        exp.Select: frozenset({"expressions", "from", "from_", "where"}),
        exp.From: frozenset({"this"}), exp.Table: frozenset({"this"}),
        exp.Identifier: frozenset({"this", "quoted"}), exp.Where: frozenset({"this"}),
        exp.And: compare, exp.Paren: frozenset({"this"}),
        exp.EQ: compare, exp.NEQ: compare, exp.LT: compare, exp.LTE: compare, exp.GT: compare,
        exp.GTE: compare, exp.Column: frozenset({"this", "table"}),
        exp.Literal: frozenset({"this", "is_string"}), exp.Neg: frozenset({"this"}),
        exp.Placeholder: frozenset({"this"}), exp.Count: frozenset({"this", "big_int"}),
        exp.Star: frozenset(), exp.Alias: frozenset({"this", "alias"}),
    }


def _check_allowed_nodes(node: Any) -> None:
    """Refuse any syntax the proxy does not understand in full (an allow-list, not a block-list).

    A clause ignored by the proxy (``TABLESAMPLE``, ``PIVOT``, time travel, ...) would be answered as if absent, so
    every node must be of an allowed type and set only allowed arguments.
    """
    allowed = _allowed_args()
    for sub in node.walk():
        kinds = allowed.get(type(sub))
        if kinds is None:
            raise DiffixQueryError(f"{type(sub).__name__.upper()} ({_snippet(sub)!r}) is not allowed; "
                                   f"the proxy answers only {_ALLOWED.format(table='<table>')}")
        extra = sorted(k for k, v in sub.args.items() if v not in (None, False, [], "") and k not in kinds)
        if extra:
            raise DiffixQueryError(f"{', '.join(e.upper() for e in extra)} in {_snippet(sub)!r} is not "
                                   "allowed; the proxy answers only plain count queries")


def _parse_template(sql: str, table: str, columns: Mapping[str, ColumnKind],
                    allow_placeholders: bool) -> tuple[str, tuple[_Slot, ...], int]:
    """Parse and check SQL text; return the table name, the condition slots, the placeholder count."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    allowed = _ALLOWED.format(table=table)
    if not isinstance(sql, str) or not sql.strip():
        raise DiffixQueryError(f"the query must be non-empty SQL text; allowed: {allowed}")
    _check_size(sql)
    try:
        statements = [s for s in sqlglot.parse(sql, read="duckdb") if s is not None]
    except SqlglotError as exc:
        first = str(exc).splitlines()[0]
        raise DiffixQueryError(f"cannot parse the SQL ({first}); allowed: {allowed}") from None
    except RecursionError:
        raise DiffixQueryError("the query is nested too deeply to parse") from None
    _check_tokens(sql)
    for statement in statements:
        _check_allowed_nodes(statement)
    if len(statements) != 1:
        raise DiffixQueryError(f"send exactly one statement, got {len(statements)}; allowed: {allowed}")
    node = statements[0]
    if not isinstance(node, exp.Select):
        raise DiffixQueryError(f"only SELECT count(*) queries are answered, got "
                               f"{type(node).__name__.upper()}; allowed: {allowed}")
    extra = sorted(k for k, v in node.args.items()
                   if v and k not in ("expressions", "from", "from_", "where"))
    if extra:
        raise DiffixQueryError(f"the query uses {', '.join(e.upper() for e in extra)}, which the "
                               f"proxy does not allow; allowed: {allowed}")
    outs = node.expressions
    out = outs[0].this if len(outs) == 1 and isinstance(outs[0], exp.Alias) else (outs[0] if outs else None)
    count_extra = [k for k, v in out.args.items() if v and k not in ("this", "big_int")] \
        if isinstance(out, exp.Count) else []
    if len(outs) != 1 or not isinstance(out, exp.Count) or not isinstance(out.this, exp.Star) \
            or count_extra:
        shown = ", ".join(_snippet(e) for e in outs)
        raise DiffixQueryError(f"the only output allowed is count(*), got SELECT {shown}; "
                               f"row-level output and other aggregates are refused")
    src = node.args.get("from") or node.args.get("from_")
    tbl = src.this if src is not None else None
    if not isinstance(tbl, exp.Table) or tbl.args.get("db") or tbl.args.get("catalog") \
            or tbl.args.get("alias") or tbl.args.get("joins") or tbl.args.get("laterals"):
        raise DiffixQueryError(f"the query must read the table {table!r} directly "
                               f"(FROM {table}), got {_snippet(src) if src is not None else 'no FROM'}")
    if _fold(tbl.name) != _fold(table):
        raise DiffixQueryError(f"unknown table {tbl.name!r}; the proxy serves only {table!r}")

    lookup = {_fold(c): c for c in columns}
    written: list[_Written] = []

    def column_of(e: Any) -> str | None:
        if not isinstance(e, exp.Column):
            return None
        if e.args.get("table") is not None and _fold(e.table) != _fold(table):
            raise DiffixQueryError(f"unknown table {e.table!r} in {_snippet(e)}")
        if e.args.get("db") or e.args.get("catalog"):
            raise DiffixQueryError(f"qualified column {_snippet(e)} is not allowed")
        name = e.name
        if _fold(name) not in lookup:
            raise DiffixQueryError(f"unknown column {name!r}; columns: {', '.join(columns)}")
        return lookup[_fold(name)]

    def literal_of(e: Any) -> str | None:
        """The literal as SQL text (a number with its sign, a quoted string, ``?``), else None."""
        if isinstance(e, exp.Literal):
            return "'" + e.this.replace("'", "''") + "'" if e.is_string else e.this
        if isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal) and not e.this.is_string:
            return "-" + e.this.this
        if isinstance(e, exp.Placeholder) and not e.this:
            if not allow_placeholders:
                raise DiffixQueryError("placeholders (?) are only allowed in prepared statements "
                                       "(DiffixProxy.execute)")
            return "?"
        return None

    ops = {exp.EQ: "=", exp.NEQ: "<>", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}

    def walk(e: Any) -> None:
        if isinstance(e, exp.Paren):
            walk(e.this)
            return
        if isinstance(e, exp.And):
            walk(e.this)
            walk(e.expression)
            return
        op = ops.get(type(e))
        if op is None:
            raise DiffixQueryError(f"condition {_snippet(e)!r} is not allowed: use only "
                                   f"column op value joined by AND (op one of {', '.join(OPERATORS)})")
        left, right = e.this, e.expression
        col, column_first = column_of(left), True
        if col is None:
            col, column_first = column_of(right), False
            if col is None:
                raise DiffixQueryError(f"condition {_snippet(e)!r} must compare one column with one "
                                       f"value")
        literal = literal_of(right if column_first else left)
        if literal is None:
            raise DiffixQueryError(f"condition {_snippet(e)!r} must compare the column with a "
                                   f"literal number or quoted string")
        qualifier = table if (left if column_first else right).args.get("table") is not None else None
        written.append(_Written(col, op, column_first, qualifier, literal))

    where = node.args.get("where")
    if where is not None:
        walk(where.this)
    # DuckDB must read the text as the proxy does; the values are read from DuckDB's own literals
    constants = iter(_duckdb_constants(sql, table, written))
    slots: list[_Slot] = []
    n_placeholders = 0
    for w in written:
        op = w.op if w.column_first else _FLIP[w.op]
        if w.literal == "?":
            slots.append(_Slot(w.column, op, None, n_placeholders))
            n_placeholders += 1
            continue
        kind, text = next(constants)
        value = text if kind == "STRING" else _number(text)
        c = _condition(w.column, op, value, columns[w.column])
        slots.append(_Slot(c.column, c.op, c.value, -1))
    return table, tuple(slots), n_placeholders


@dataclass(frozen=True)
class _Written:
    """A condition as the analyst wrote it: the column, the operator, their order, the literal's SQL text."""

    column: str
    op: str  # as written, e.g. ">" in 30 > age
    column_first: bool
    qualifier: str | None  # the table name, when the column was written table.column
    literal: str  # a number with its sign, a quoted string, or "?"


def _reference_sql(table: str, written: Sequence[_Written]) -> str:
    """The proxy's reading of a query written back as plain SQL DuckDB reads unambiguously.

    Quoted identifiers, single spaces, operators as written, each literal replaced by one of its kind (``'s'``, ``1``,
    ``1.5``, ``?``): it depends only on the query's shape, so DuckDB's tree is memoised; values are compared apart
    (:func:`_duckdb_constants`).
    """
    def quoted(name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def kind_of(literal: str) -> str:
        if literal == "?":
            return "?"
        if literal.startswith("'"):
            return "'s'"
        sign, digits = ("-", literal[1:]) if literal.startswith("-") else ("", literal)
        return sign + ("1" if digits.isascii() and digits.isdigit() else "1.5")

    conds = []
    for w in written:
        col = (quoted(w.qualifier) + "." if w.qualifier else "") + quoted(w.column)
        lit = kind_of(w.literal)
        conds.append(f"{col} {w.op} {lit}" if w.column_first else f"{lit} {w.op} {col}")
    return f"SELECT count(*) FROM {quoted(table)}" + (" WHERE " + " AND ".join(conds) if conds else "")


_REFERENCE_TREES: dict[str, Any] = {}


def _reference_tree(reference: str) -> Any:
    """:func:`_comparable` of DuckDB's tree of a reference text (memoised: one per query shape)."""
    hit = _REFERENCE_TREES.get(reference)
    if hit is None:
        hit = _comparable(_without_aliases(_duckdb_parse_trees(reference)[0]))
        if len(_REFERENCE_TREES) > 4096:
            _REFERENCE_TREES.clear()
        _REFERENCE_TREES[reference] = hit
    return hit


def _without_aliases(tree: dict[str, Any]) -> dict[str, Any]:
    """The tree with the output's alias dropped (``count(*) AS n`` counts what ``count(*)`` counts)."""
    for statement in tree.get("statements", []):
        for output in statement.get("node", {}).get("select_list", []):
            output["alias"] = ""
    return tree


_PARSER_STATE: dict[str, Any] = {}
_PARSER_LOCK = threading.Lock()


def _duckdb_parse_trees(*sqls: str) -> list[dict[str, Any]]:
    """DuckDB's own parse tree of each text, from ``json_serialize_sql`` (nothing is read or run).

    One in-memory connection per process, behind a lock; a failure is ``{"error": true, ...}``.
    """
    import duckdb

    with _PARSER_LOCK:
        if _PARSER_STATE.get("pid") != os.getpid():  # a forked worker opens its own
            _PARSER_STATE.update(pid=os.getpid(), con=duckdb.connect(config={"threads": 1}))
        row = _PARSER_STATE["con"].execute(
            "SELECT " + ", ".join(["json_serialize_sql(?::VARCHAR)"] * len(sqls)), list(sqls)).fetchone()
    return [json.loads(text) for text in row]


def _comparable(tree: Any) -> Any:
    """A DuckDB parse tree without locations, with names folded (:func:`_fold`) and literals reduced to their kind."""
    if isinstance(tree, list):
        return [_comparable(x) for x in tree]
    if not isinstance(tree, dict):
        return tree
    out = {}
    for key, value in tree.items():
        if key.startswith("query_location"):
            continue
        if key in ("column_names", "path"):
            value = [_fold(v) if isinstance(v, str) else v for v in value]
        elif key == "table_name" and isinstance(value, str):
            value = _fold(value)
        elif key == "literal" and isinstance(value, dict):
            value = {"kind": value.get("kind")}
        out[key] = _comparable(value)
    return out


def _constants(tree: Any) -> Iterator[tuple[str, str]]:
    """``(kind, text)`` of every constant of a parse tree, in the order of the text."""
    if isinstance(tree, list):
        for x in tree:
            yield from _constants(x)
    elif isinstance(tree, dict):
        if tree.get("class") == "CONSTANT" and isinstance(tree.get("literal"), dict):
            yield tree["literal"].get("kind", ""), tree["literal"].get("text", "")
            return
        for value in tree.values():
            yield from _constants(value)


def _duckdb_constants(sql: str, table: str, written: Sequence[_Written]) -> list[tuple[str, str]]:
    """Check that DuckDB reads ``sql`` as the proxy does; return DuckDB's constants, in order.

    sqlglot accepts text DuckDB rejects (``SELECT count(*) BY FROM t``) and takes U+0085, U+2028 for spaces; so
    DuckDB's tree of the text must equal its tree of :func:`_reference_sql` (but for the alias and what
    :func:`_comparable` drops) and its strings the proxy's.
    """
    try:
        theirs = _duckdb_parse_trees(sql)[0]
        ours = _reference_tree(_reference_sql(table, written))
    except Exception as exc:  # the text cannot even reach DuckDB's parser (e.g. invalid Unicode)
        raise DiffixQueryError(f"DuckDB cannot read the text ({type(exc).__name__})") from None
    if theirs.get("error"):
        raise DiffixQueryError(f"DuckDB cannot read the text ({theirs.get('error_message', 'no message')}); "
                               f"allowed: {_ALLOWED.format(table=table)}")
    constants = list(_constants(theirs))
    strings = [text for kind, text in constants if kind == "STRING"]
    proxys = [w.literal[1:-1].replace("''", "'") for w in written if w.literal.startswith("'")]
    if _comparable(_without_aliases(theirs)) != ours or strings != proxys:
        names = sorted({repr(n) for n in _column_names(theirs)})
        raise DiffixQueryError("DuckDB reads this text otherwise than the proxy (a character DuckDB does not "
                               "take for a space, a stray keyword ...; DuckDB reads the columns "
                               f"{', '.join(names) or 'none'}); refused")
    return constants


def _column_names(tree: Any) -> Iterator[str]:
    """The column names of a parse tree (for messages)."""
    if isinstance(tree, list):
        for x in tree:
            yield from _column_names(x)
    elif isinstance(tree, dict):
        if tree.get("class") == "COLUMN_REF":
            yield ".".join(map(str, tree.get("column_names", [])))
        for value in tree.values():
            yield from _column_names(value)


def parse_count_query(sql: str, table: str, columns: Mapping[str, ColumnKind]) -> CountQuery:
    """Parse SQL text into a :class:`CountQuery` for ``table`` with ``columns`` {name: "int"/"float"/"str"}.

    ``DiffixQueryError`` for anything outside the grammar, naming what is wrong.

    >>> q = parse_count_query("SELECT COUNT(*) FROM t WHERE 37 < age AND sex = 'F'", "t",
    ...                       {"age": "int", "sex": "str"})
    >>> [c.text for c in q.conditions]  # a strict bound on an integer column is read as the bound it selects
    ['age >= 38', "sex = 'F'"]
    """
    t, slots, n = _parse_template(sql, table, columns, allow_placeholders=False)
    return CountQuery(t, _dedupe(Condition(s.column, s.op, s.value) for s in slots))


def _dedupe(conds: Iterable[Condition]) -> tuple[Condition, ...]:
    seen: dict[str, Condition] = {}
    for c in conds:
        seen.setdefault(c.text, c)
    return tuple(seen.values())


# re.ASCII: \s is only the ASCII whitespace [ \t\n\r\f\v], which DuckDB's tokenizer skips too, and
# IGNORECASE folds only ASCII letters (without it \s takes U+0085 and U+2028, which DuckDB reads as
# parts of an identifier, and 'select' matches a long s, U+017F)
# parts of parts (a quoted name, its spaces, a condition followed by AND) are possessive (*+, ++: no
# backtracking into them, Python 3.11): no way of matching a text depends on giving some back, so the
# readings are the same, and a text that fails fails in linear time (with backtracking, a statement
# with 49,900 spaces before a stray character took seconds to refuse)
_FAST_ONE = r'\s*+("(?:[^"]|"")++")\s*+(<>|!=|<=|>=|=|<|>)\s*+\?\s*+'
_FAST_COND = re.compile(_FAST_ONE, re.ASCII)
_FAST_BODY = re.compile(r'(?:' + _FAST_ONE + r'(?i:AND)(?=[\s"]))*+' + _FAST_ONE + r';?\s*+', re.ASCII)
_FAST_HEAD = re.compile(r'\s*SELECT\s+count\s*\(\s*\*\s*\)\s+FROM\s+([A-Za-z_][A-Za-z0-9_]*)\s+WHERE\s',
                        re.IGNORECASE | re.ASCII)


def _fast_template(sql: str, table: str, columns: Mapping[str, ColumnKind]) -> tuple[_Slot, ...] | None:
    """Read the plain prepared statement ``SELECT count(*) FROM t WHERE "c" op ? AND ...`` by regex, else ``None``.

    Anything else goes through sqlglot (milliseconds per long statement); both agree (tested).
    """
    m = _FAST_HEAD.match(sql)
    if m is None or m.group(1).lower() != table.lower():  # both ASCII: lower() is _fold()
        return None
    if _FAST_BODY.fullmatch(sql, m.end()) is None:
        return None
    lookup = _column_lookup(columns)
    slots: list[_Slot] = []
    for name, op in _FAST_COND.findall(sql, m.end()):
        col = lookup.get(name)
        if col is None:
            col = lookup.get(_fold(name[1:-1].replace('""', '"')))
            if col is None:
                return None  # let the parser produce the error message
        slots.append(_placeholder_slot(col, "<>" if op == "!=" else op, len(slots)))
    return tuple(slots)


def _fast_pairs(sql: str, table: str, columns: Mapping[str, ColumnKind]) -> tuple[tuple[str, str], ...] | None:
    """The ``(column, op)`` pairs of a statement as the attacks write it, else ``None``.

    Split at ``" AND "`` and look each piece up in a table of ``"column" op ?``; any other piece returns ``None`` for
    :func:`_fast_template`, with which it agrees (tested).
    """
    m = _FAST_HEAD.match(sql)
    if m is None or m.group(1).lower() != table.lower():  # both ASCII: lower() is _fold()
        return None
    found = tuple(map(_condition_lookup(columns).get, sql[m.end():].split(" AND ")))
    return None if None in found else found


_SLOTS: dict[tuple[str, str, int], "_Slot"] = {}  # the placeholder slots, shared (they are immutable)
_LOOKUPS: dict[tuple[str, ...], dict[str, str]] = {}
_CONDITION_LOOKUPS: dict[tuple[str, ...], dict[str, tuple[str, str]]] = {}


def _placeholder_slot(column: str, op: str, position: int) -> _Slot:
    """The slot ``column op ?`` taking the ``position``-th value (one shared object per triple)."""
    slot = _SLOTS.get((column, op, position))
    if slot is None:
        slot = _SLOTS[(column, op, position)] = _Slot(column, op, None, position)
    return slot


def _condition_lookup(columns: Mapping[str, ColumnKind]) -> dict[str, tuple[str, str]]:
    """``'"column" op ?'`` (quoted, single spaces) to ``(column, op)``, memoised per set of columns."""
    key = tuple(columns)
    hit = _CONDITION_LOOKUPS.get(key)
    if hit is None:
        hit = {'"' + c.replace('"', '""') + '" ' + op + " ?": (c, "<>" if op == "!=" else op)
               for c in columns for op in ("=", "<>", "!=", "<", "<=", ">", ">=")}
        if len(_CONDITION_LOOKUPS) > 64:
            _CONDITION_LOOKUPS.clear()
        _CONDITION_LOOKUPS[key] = hit
    return hit


def _column_lookup(columns: Mapping[str, ColumnKind]) -> dict[str, str]:
    """Folded (:func:`_fold`) and quoted spellings of each column, to its name (memoised per set of columns)."""
    key = tuple(columns)
    hit = _LOOKUPS.get(key)
    if hit is None:
        hit = {_fold(c): c for c in columns}
        hit.update({'"' + c.replace('"', '""') + '"': c for c in columns})
        if len(_LOOKUPS) > 64:
            _LOOKUPS.clear()
        _LOOKUPS[key] = hit
    return hit


# ---------------------------------------------------------------------------
# The proxy
# ---------------------------------------------------------------------------


@dataclass
class _CacheBudget:
    """The bytes of row bitmaps a proxy keeps (shared with its copies, which share the bitmaps) and the limit."""

    limit: int
    used: int = 0
    template_chars: int = 0  # characters of the prepared statements whose readings are memoised


@dataclass
class NoiseBreakdown:
    """The data owner's view of one answer (never shown to an analyst).

    ``true_count`` Q(D); ``layers`` (``condition``, ``static``, ``dynamic`` per condition); ``noisy`` Eq. 1 before
    suppression and rounding; ``threshold`` T; ``suppressed``; ``answer``.
    """

    query: CountQuery
    true_count: int
    layers: pd.DataFrame
    noisy: float
    threshold: float
    suppressed: bool
    answer: float


def _check_row_lengths(rows: list[Sequence[Any]], n: int) -> None:
    """Refuse a batch whose rows do not each bind the statement's ``n`` placeholders (the first such row named)."""
    if set(map(len, rows)) - {n}:
        row = next(r for r in rows if len(r) != n)
        raise DiffixQueryError(f"the statement has {n} placeholder(s), got {len(row)} value(s): {tuple(row)!r}")


class DiffixProxy:
    """A Diffix proxy answering noisy ``SELECT count(*)`` queries over one table ([G19] §2).

    ``data``: one row per user (integer, float, text; booleans as 0/1); ``uid_column`` the user ids (default the row
    position; not queryable); same ``salt``, same answers. ``rounding`` and ``bucket_suppression`` as in the module
    docstring; ``threshold_mean``/``threshold_var`` of T ~ N(4, 1/2) (1/2 read as the variance). ``keep_log`` keeps
    each query's SQL and answer (counters are always kept, per ``analyst=``). ``generic_layer`` and
    ``mode``/``cache_bytes`` as in the module docstring. ``true_*`` methods and :meth:`explain` are the owner's view
    and are not counted as queries.
    """

    def __init__(
        self,
        data: pd.DataFrame,
        *,
        table: str = "data",
        uid_column: str | None = None,
        salt: int | str = 0,
        rounding: bool = True,
        bucket_suppression: bool = True,
        threshold_mean: float = 4.0,
        threshold_var: float = 0.5,
        mode: Literal["bitmaps", "sql"] = "bitmaps",
        keep_log: bool = True,
        generic_layer: bool = True,
        cache_bytes: int = 512 * 2**20,
    ) -> None:
        import duckdb

        if not isinstance(data, pd.DataFrame) or data.empty:
            raise ValueError("data must be a non-empty pandas DataFrame")
        if not isinstance(table, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", table):
            raise ValueError(f"table must be a plain SQL name like 'adult', got {table!r}")
        for name, flag in (("rounding", rounding), ("bucket_suppression", bucket_suppression),
                           ("keep_log", keep_log), ("generic_layer", generic_layer)):
            if not isinstance(flag, bool):
                raise ValueError(f"{name} must be True or False, got {flag!r}")
        if mode not in ("bitmaps", "sql"):
            raise ValueError(f"mode must be 'bitmaps' or 'sql', got {mode!r}")
        if not (isinstance(threshold_var, (int, float)) and threshold_var >= 0):
            raise ValueError(f"threshold_var must be >= 0, got {threshold_var!r}")
        if not (isinstance(threshold_mean, (int, float)) and math.isfinite(threshold_mean)):
            raise ValueError(f"threshold_mean must be a finite number, got {threshold_mean!r}")
        if isinstance(cache_bytes, bool) or not isinstance(cache_bytes, (int, np.integer)) or cache_bytes < 0:
            raise ValueError(f"cache_bytes must be an integer >= 0 (bytes of row bitmaps kept), got {cache_bytes!r}")
        if uid_column is not None and uid_column not in data.columns:
            raise ValueError(f"uid_column {uid_column!r} is not a column; columns: {list(data.columns)}")

        self.table = table
        self.salt = salt_to_uint64(salt)
        self.rounding = rounding
        self.bucket_suppression = bucket_suppression
        self.threshold_mean = float(threshold_mean)
        self.threshold_sd = math.sqrt(float(threshold_var))
        self.mode = mode
        self.keep_log = keep_log
        self.generic_layer = generic_layer

        frame = data.drop(columns=[uid_column]) if uid_column is not None else data
        frame = frame.reset_index(drop=True).copy()
        for c in frame.columns:
            if not isinstance(c, str) or not c or c.startswith("__"):
                raise ValueError(f"column names must be non-empty strings not starting with '__', got {c!r}")
            if pd.api.types.is_bool_dtype(frame[c]):
                frame[c] = frame[c].astype("int64")
            elif isinstance(frame[c].dtype, pd.CategoricalDtype):
                frame[c] = frame[c].astype(object)
        self.columns: dict[str, ColumnKind] = {c: _kind_of(frame[c]) for c in frame.columns}
        lowered = [c.lower() for c in self.columns]
        if len(set(lowered)) != len(lowered):
            raise ValueError("column names must differ in more than letter case")
        uids = data[uid_column].to_numpy() if uid_column is not None else np.arange(len(data))
        if len(pd.unique(uids)) != len(uids):
            raise ValueError("user ids must be unique (one record per user)")
        self.n_rows = len(frame)
        self._uid_hash = uid_hashes(uids)
        self._xor_all = int(np.bitwise_xor.reduce(self._uid_hash))
        self._uid_hash_py: list[int] | None = None

        self._con = duckdb.connect(config={"threads": 2})
        try:  # no progress bars on the console for long scans (inside Jupyter this may be refused)
            self._con.execute("SET enable_progress_bar = false")
        except duckdb.Error:
            pass
        frame["__uid_hash"] = self._uid_hash
        frame["__row"] = np.arange(self.n_rows, dtype=np.int64)
        self._con.register("__src", frame)
        self._con.execute(f'CREATE TABLE "{table}" AS SELECT * FROM __src')
        self._con.unregister("__src")

        self._n_words = (self.n_rows + 63) // 64
        # every condition seen gets an integer id; per id: the Condition, its static seed
        # hash(C) XOR salt, its static noise, and (lazily) its row bitmap
        self._ids: dict[str, int] = {}                       # canonical text -> id
        self._conds: list[Condition] = []
        self._seed_arr = np.zeros(0, dtype=_U64)   # per salt: static seed of each condition id
        self._static_arr = np.zeros(0)              # per salt: static[C] of each condition id
        self._masks: dict[int, np.ndarray] = {}              # id -> row bitmap (uint64 words)
        self._nonzero_words: dict[int, np.ndarray] = {}      # id -> indices of words with a row
        self._nnz: dict[int, int] = {}                       # id -> how many such words
        self._budget = _CacheBudget(int(cache_bytes))         # bytes of the bitmaps above (shared by copies)
        self._notnull_words: dict[str, np.ndarray] = {}      # column -> its not-NULL bitmap's nonzero words
        self._notnull_masks: dict[str, np.ndarray] = {}      # column -> rows where it is not NULL
        self._empty: np.ndarray | None = None                # the shared bitmap of no rows
        self._id_of: dict[tuple[str, str], dict[Any, int]] = {}  # (column, op) -> bound value -> id
        self._templates: dict[str, _Plan] = {}
        self._set_memo: dict[tuple[int, ...], tuple[int, int]] = {}  # core ids -> (count, xor)
        self._counts: dict[str, int] = {}
        self._n_suppressed: dict[str, int | None] = {}  # per analyst; None: some answered by a worker
        self._log: list[tuple[str, tuple[int, ...], float]] = []

    # -- public: what an analyst can do -------------------------------------------------

    def query(self, sql: str, analyst: str = "analyst") -> float:
        """Answer one ``SELECT count(*)`` query: the noisy count (an ``int`` when rounding)."""
        answer = float(self.query_many([sql], analyst=analyst)[0])
        return int(answer) if self.rounding else answer

    def query_many(self, sqls: Sequence[str], analyst: str = "analyst") -> np.ndarray:
        """Answer several SQL texts; each counts as one query. Returns an array of answers."""
        if isinstance(sqls, str):
            raise DiffixQueryError("query_many takes a list of SQL texts; use query() for one")
        with self._refusal_leaves_no_state():
            parsed = [parse_count_query(s, self.table, self.columns) for s in sqls]
            return self._answer([tuple(self._register(c) for c in q.conditions) for q in parsed], analyst)

    def execute(self, template: str, rows: Iterable[Sequence[Any]], analyst: str = "analyst") -> np.ndarray:
        """Answer a prepared statement with ``?`` placeholders for each row of ``rows`` (float array).

        Parsed once; each row is one query, answered exactly as the SQL text with its values written in.
        """
        return self.execute_batch([(template, rows)], analyst=analyst)[0]

    def execute_batch(self, statements: Sequence[tuple[str, Iterable[Sequence[Any]]]],
                      analyst: str = "analyst") -> list[np.ndarray]:
        """Answer statements ``[(template, rows), ...]`` as :meth:`execute` does, the noise drawn in one pass."""
        ids_list: list[tuple[int, ...]] = []
        keys: list[tuple[int, ...]] = []
        sizes = []
        with self._refusal_leaves_no_state():
            for template, rows in statements:
                before = len(ids_list)
                self._bind(template, rows, ids_list, keys)
                sizes.append(len(ids_list) - before)
            answers = self._answer(ids_list, analyst, keys)
        return np.split(answers, np.cumsum(sizes)[:-1])

    def _bind(self, template: str, rows: Iterable[Sequence[Any]], out: list[tuple[int, ...]],
              keys: list[tuple[int, ...]]) -> None:
        """Bind every row of values to the template, appending condition ids to ``out`` and set keys to ``keys``.

        One dictionary per (column, op) maps values to condition ids; new values are registered in the order of
        the plain per-row binding (its twin in ``tests/reference_twins.py``), so every condition gets the same id.
        Keys are sorted ids unless ``=`` and ``<>`` slots share a column (:meth:`_conflict_keys`).
        """
        plan = self._template(template)
        n = plan.n_placeholders
        fixed = [] if plan.in_order else [(i, self._register(Condition(s.column, s.op, s.value)))
                                          for i, s in enumerate(plan.slots) if s.position < 0]
        rows = rows if isinstance(rows, list) else list(rows)
        _check_row_lengths(rows, n)
        if not rows:
            return
        if not plan.pairs:
            out.extend(() for _ in rows)
            keys.extend(() for _ in rows)
            return
        raw = self._bind_in_order(plan, rows) if plan.in_order else self._bind_by_column(plan, fixed, rows)
        by_slot = list(zip(*raw)) if plan.dedupe or plan.conflicts else []
        ids_rows = raw
        if plan.dedupe and not _no_repeats(plan.dup_groups, by_slot, len(raw)):
            ids_rows = list(map(tuple, map(dict.fromkeys, raw)))
        out.extend(ids_rows)
        if plan.conflicts:
            keys.extend(self._conflict_keys(plan.conflicts, raw, ids_rows, by_slot))
        else:
            keys.extend(map(tuple, map(sorted, ids_rows)))

    def _bind_in_order(self, plan: _Plan, rows: list[Sequence[Any]]) -> list[tuple[int, ...]]:
        """Each row's condition ids in slot order, for a statement whose k-th slot takes the k-th value.

        One pass of lookups; only slots holding a new value (or a type not looked up) go to :meth:`_bind_new_values`.
        """
        n = len(plan.pairs)
        knowns = [{} if k is None else k for k in map(self._id_of.get, plan.pairs)]
        flat = list(map(dict.get, itertools.cycle(knowns), itertools.chain.from_iterable(rows)))
        types = set(map(type, itertools.chain.from_iterable(rows)))
        kinds = self.columns
        odd = [not types <= _LOOKUP_TYPES[kinds[c]] for c, _ in plan.pairs]
        if None not in flat and not any(odd):
            return list(zip(*[iter(flat)] * n))
        cols = [flat[i::n] for i in range(n)]
        missing = [(i, c, op, i) for i, (c, op) in enumerate(plan.pairs) if odd[i] or None in cols[i]]
        self._bind_new_values(missing, list(zip(*rows)), cols, len(rows) < 8)
        return list(zip(*cols))

    def _bind_by_column(self, plan: _Plan, fixed: list[tuple[int, int]],
                        rows: list[Sequence[Any]]) -> list[tuple[int, ...]]:
        """Each row's condition ids in slot order, looked up column by column, registering new values."""
        cols: list[Any] = [None] * len(plan.pairs)
        for i, cid in fixed:
            cols[i] = itertools.repeat(cid, len(rows))
        values = list(zip(*rows))
        missing = []
        for i, col, op, pos in plan.holes:
            known = self._id_of.get((col, op))
            vals = values[pos]
            got = list(map(known.get, vals)) if known is not None else [None] * len(vals)
            if known is None or None in got or not set(map(type, vals)) <= _LOOKUP_TYPES[self.columns[col]]:
                missing.append((i, col, op, pos))
            cols[i] = got
        if missing:
            self._bind_new_values(missing, values, cols, len(rows) < 8)
        return list(zip(*cols))

    def _bind_new_values(self, holes: list[tuple[int, str, str, int]], values: list[tuple[Any, ...]],
                         cols: list[Any], row_by_row: bool) -> None:
        """Register the values of ``holes`` not seen before and put their ids in ``cols``.

        Only types in :data:`_LOOKUP_TYPES` are looked up by value (``True == 1``); others go to :func:`_condition`
        every time, as on a fresh proxy.
        """
        id_of, columns = self._id_of, self.columns
        n_rows = len(values[holes[0][3]])
        cells = ((j, h) for j in range(n_rows) for h in holes) if row_by_row else \
            ((j, h) for h in holes for j in range(n_rows))
        for j, (i, col, op, pos) in cells:
            value = values[pos][j]
            plain = type(value) in _LOOKUP_TYPES[columns[col]]
            if cols[i][j] is not None and plain:
                continue
            known = id_of.get((col, op))
            cid = None if not plain or known is None else known.get(value)
            if cid is None:
                cid = self._register(_condition(col, op, value, columns[col]))
                if plain:
                    if known is None:
                        known = id_of[(col, op)] = {}
                    known[value] = cid
            cols[i][j] = cid

    def _conflict_keys(self, conflicts: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...],
                       raw: list[tuple[int, ...]], ids_rows: list[tuple[int, ...]],
                       by_slot: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """:meth:`_row_core` of every row of a statement with ``=`` and ``<>`` slots on a column; ``by_slot`` the ids.

        One shared key when every ``<>`` slot is dropped in every row (the cloning attack's ``Q_j``), else vectorised
        per ``<>`` slot, or row by row with several ``=`` slots on a column.
        """
        if any(len(eq) > 1 for eq, _ in conflicts):
            return list(map(self._row_core, itertools.repeat(conflicts), raw, ids_rows))
        shared = self._shared_key(conflicts, by_slot)
        if shared is not None:
            return [shared] * len(raw)
        value_of = operator.attrgetter("value")
        conds = self._conds
        drop_cols = []
        for (eq_slot,), ne_slots in conflicts:
            eq_values = list(map(value_of, map(conds.__getitem__, by_slot[eq_slot])))
            for k in ne_slots:
                ne_ids = by_slot[k]
                drop_cols.append([c if v != e else -1 for c, v, e in
                                  zip(ne_ids, map(value_of, map(conds.__getitem__, ne_ids)), eq_values)])
        return [tuple(sorted(set(ids).difference(drop))) for ids, drop in zip(ids_rows, zip(*drop_cols))]

    def _shared_key(self, conflicts: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...],
                    by_slot: list[tuple[int, ...]]) -> tuple[int, ...] | None:
        """The key all rows share (every ``<>`` slot dropped, every other slot constant), else ``None``."""
        ne_slots = {k for _, ne in conflicts for k in ne}
        kept = [by_slot[k] for k in range(len(by_slot)) if k not in ne_slots]
        if any(col.count(col[0]) != len(col) for col in kept):
            return None
        conds = self._conds
        for (eq_slot,), ne in conflicts:  # the = slot holds one condition in every row: one value
            value = conds[by_slot[eq_slot][0]].value
            ne_ids = set(itertools.chain.from_iterable(by_slot[k] for k in ne))
            if any(conds[c].value == value for c in ne_ids):
                return None
        return tuple(sorted({col[0] for col in kept}))

    def _row_core(self, conflicts: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...],
                  raw: tuple[int, ...], ids: tuple[int, ...]) -> tuple[int, ...]:
        """:meth:`_core` of one bound row with ``=`` and ``<>`` slots on one column (``raw`` in slot order).

        Drops each ``col <> b`` whose column's ``=`` slots hold one value a != b; two different ``=`` values (an empty
        set) go to :meth:`_core`.
        """
        conds = self._conds
        drop = []
        for eq_slots, ne_slots in conflicts:
            eq = {raw[e] for e in eq_slots}
            if len(eq) > 1:
                return self._core(ids)
            value = conds[raw[eq_slots[0]]].value
            drop += [raw[k] for k in ne_slots if conds[raw[k]].value != value]
        return tuple(sorted(set(ids).difference(drop))) if drop else tuple(sorted(ids))

    def n_queries(self, analyst: str | None = None) -> int:
        """Queries answered so far, for one analyst or (``None``) for everyone."""
        if analyst is None:
            return sum(self._counts.values())
        return self._counts.get(analyst, 0)

    def log(self, analyst: str | None = None) -> pd.DataFrame:
        """The query log: ``analyst``, canonical ``sql``, ``answer`` (empty if ``keep_log=False``)."""
        rows = [(a, self._sql(ids), ans) for a, ids, ans in self._log
                if analyst is None or a == analyst]
        return pd.DataFrame(rows, columns=["analyst", "sql", "answer"])

    def reset_log(self) -> None:
        """Forget the log and the counters (the noise does not change)."""
        self._log.clear()
        self._counts.clear()
        self._n_suppressed.clear()

    def with_own_counters(self) -> "DiffixProxy":
        """The same proxy (table, salt, kept row sets and noise) with counters and a log of its own."""
        other = copy.copy(self)
        other._counts, other._log, other._n_suppressed = {}, [], {}
        return other

    def count_certain_zeros(self, n: int, analyst: str = "attacker") -> None:
        """Count ``n`` queries an attack did not send because their answer is certain: each selects at most one
        user, which bucket suppression answers 0 outright (needs ``bucket_suppression``).

        They count as answered and suppressed (:meth:`n_queries`, :meth:`suppressed_share`) but are not in the log:
        their text was never written.
        """
        if not self.bucket_suppression:
            raise ValueError("without bucket suppression no answer is certain: the queries must be sent")
        if not isinstance(analyst, str) or not analyst:
            raise ValueError(f"analyst must be a non-empty string, got {analyst!r}")
        self._counts[analyst] = self._counts.get(analyst, 0) + int(n)
        if self._n_suppressed.get(analyst, 0) is not None:
            self._n_suppressed[analyst] = self._n_suppressed.get(analyst, 0) + int(n)

    def record_activity(self, analyst: str, n_queries: int,
                        log: Sequence[tuple[str, float]] = ()) -> None:
        """Add queries answered by a copy of this proxy (``log``: (sql, answer) pairs) to the counters and log."""
        self._counts[analyst] = self._counts.get(analyst, 0) + int(n_queries)
        self._n_suppressed[analyst] = None
        if self.keep_log:
            self._log.extend((analyst, sql, float(a)) for sql, a in log)

    def settings(self) -> dict[str, Any]:
        """The constructor arguments (except the data) that reproduce this proxy's answers."""
        return {"table": self.table, "salt": self.salt, "rounding": self.rounding,
                "bucket_suppression": self.bucket_suppression, "threshold_mean": self.threshold_mean,
                "threshold_var": self.threshold_sd ** 2, "mode": self.mode, "keep_log": self.keep_log,
                "generic_layer": self.generic_layer}

    def with_salt(self, salt: int | str) -> "DiffixProxy":
        """The same data and switches under another salt, with fresh counters and log (cheap: shares the row sets)."""
        other = copy.copy(self)  # shares the table, the condition registry and the row sets
        other.salt = salt_to_uint64(salt)
        other._seed_arr = np.zeros(0, dtype=_U64)
        other._static_arr = np.zeros(0)
        other._counts, other._log, other._n_suppressed = {}, [], {}
        return other

    # -- public: the data owner's view ----------------------------------------------------

    def audit(self, analyst: str | None = None) -> pd.DataFrame:
        """The owner's view of the logged queries (``keep_log=True``): true count, threshold, suppressed, answer."""
        entries, ids_list, counts, thresholds = self._audited(analyst)
        if not ids_list:
            return pd.DataFrame(columns=["analyst", "sql", "true_count", "threshold", "suppressed", "answer"])
        return pd.DataFrame({
            "analyst": [e[0] for e in entries], "sql": [self._sql(i) for i in ids_list],
            "true_count": counts, "threshold": thresholds,
            "suppressed": self._suppressed(counts, thresholds), "answer": [e[2] for e in entries],
        })

    def query_sets(self, analyst: str | None = None) -> pd.DataFrame:
        """The owner's view of each logged query's set: ``analyst``, ``true_count``, ``set_id``, ``answer``.

        ``set_id`` is the XOR of the users' hashes that seeds the dynamic noise (0 for the empty set). Needs
        ``keep_log=True``; not counted as queries.
        """
        entries, ids_list, counts, _ = self._audited(analyst)
        if not ids_list:
            return pd.DataFrame({"analyst": pd.Series(dtype=object), "true_count": np.zeros(0, dtype=np.int64),
                                 "set_id": np.zeros(0, dtype=_U64), "answer": np.zeros(0)})
        _, xors = self._query_sets(ids_list)
        return pd.DataFrame({"analyst": [e[0] for e in entries], "true_count": counts, "set_id": xors,
                             "answer": [e[2] for e in entries]})

    def suppressed_share(self, analyst: str | None = None) -> float:
        """The share of the logged queries that were bucket suppressed (as ``audit(analyst)["suppressed"].mean()``).

        For one analyst whose counts are this proxy's own, the queries counted by :meth:`count_certain_zeros` (not in
        the log) are included, as suppressed.
        """
        n, k = self._counts.get(analyst, 0), self._n_suppressed.get(analyst)
        if analyst is not None and self.keep_log and n and k is not None:
            return k / n
        _, ids_list, counts, thresholds = self._audited(analyst)
        return float(self._suppressed(counts, thresholds).mean()) if ids_list else float("nan")

    def _audited(self, analyst: str | None) -> tuple[list, list, np.ndarray, np.ndarray]:
        """The logged queries of ``analyst`` (all when ``None``): entries, condition ids, true counts, thresholds."""
        entries = [e for e in self._log if analyst is None or e[0] == analyst]
        ids_list = []
        for _, ids, _ in entries:
            if isinstance(ids, str):  # a query recorded from a worker process
                ids = tuple(self._register(c) for c in parse_count_query(ids, self.table, self.columns).conditions)
            ids_list.append(ids)
        if not ids_list:
            return entries, ids_list, np.zeros(0, dtype=np.int64), np.zeros(0)
        counts, xors = self._query_sets(ids_list)
        thresholds = self.threshold_mean + self.threshold_sd * prng_normal(xors ^ _U64(self.salt))
        return entries, ids_list, counts, thresholds

    def true_count(self, sql: str) -> int:
        """The exact count ``Q(D)`` (owner's view; not counted as a query)."""
        with self._refusal_leaves_no_state():
            q = parse_count_query(sql, self.table, self.columns)
            counts, _ = self._query_sets([tuple(self._register(c) for c in q.conditions)])
        return int(counts[0])

    def explain(self, sql: str) -> NoiseBreakdown:
        """Every noise layer of one answer (owner's view; not counted as a query)."""
        with self._refusal_leaves_no_state():
            q = parse_count_query(sql, self.table, self.columns)
            ids = tuple(self._register(c) for c in q.conditions)
            counts, xors = self._query_sets([ids])
            seed_arr, static_arr = self._noise_tables()
        seeds = seed_arr[list(ids)]
        static = static_arr[list(ids)]
        dynamic = prng_normal(seeds ^ _U64(xors[0]))
        texts = [self._conds[i].text for i in ids]
        if not ids and self.generic_layer:
            g = np.array([self._generic_seed()], dtype=_U64)
            static, dynamic = prng_normal(g), prng_normal(g ^ _U64(xors[0]))
            texts = ["(generic layer: the query has no condition)"]
        noisy = counts[0] + static.sum() + dynamic.sum()
        threshold = float(self.threshold_mean + self.threshold_sd * prng_normal(xors ^ _U64(self.salt))[0])
        suppressed = bool(self._suppressed(counts, np.array([threshold]))[0])
        answer = self._finish(np.array([noisy]), np.array([suppressed]))[0]
        layers = pd.DataFrame({"condition": texts, "static": static, "dynamic": dynamic})
        return NoiseBreakdown(q, int(counts[0]), layers, float(noisy), threshold, suppressed,
                              float(answer))

    def __repr__(self) -> str:
        return (f"DiffixProxy(table={self.table!r}, rows={self.n_rows}, columns={len(self.columns)}, "
                f"rounding={self.rounding}, bucket_suppression={self.bucket_suppression}, "
                f"mode={self.mode!r})")

    # -- internals --------------------------------------------------------------------------

    @contextlib.contextmanager
    def _refusal_leaves_no_state(self) -> Iterator[None]:
        """Run a query; if it fails, forget every condition it registered and raise :class:`DiffixQueryError`."""
        n_before = len(self._conds)
        try:
            yield
        except Exception as exc:
            self._forget_conditions_from(n_before)
            if isinstance(exc, DiffixQueryError):
                raise
            raise DiffixQueryError(f"the query could not be answered ({type(exc).__name__}: "
                                   f"{str(exc).splitlines()[0] if str(exc) else 'no message'})") from exc
        except BaseException:  # KeyboardInterrupt: keep the proxy usable, then stop
            self._forget_conditions_from(n_before)
            raise

    def _forget_conditions_from(self, n: int) -> None:
        """Drop every condition with id >= n and everything derived from it."""
        for key in [k for k, known in self._id_of.items() if not known]:
            del self._id_of[key]
        if len(self._conds) <= n:
            return
        for text in [t for t, cid in self._ids.items() if cid >= n]:
            del self._ids[text]
        for key, known in list(self._id_of.items()):
            for value in [v for v, cid in known.items() if cid >= n]:
                del known[value]
            if not known:
                del self._id_of[key]
        for cid in [c for c in self._masks if c >= n]:
            self._drop_mask(cid)
        del self._conds[n:]
        self._seed_arr, self._static_arr = self._seed_arr[:n], self._static_arr[:n]
        self._set_memo.clear()

    def _generic_seed(self) -> int:
        """Static seed of the generic noise layer of a query without conditions."""
        return condition_hash(f"<generic layer of table {self.table}>") ^ self.salt

    def _sql(self, ids: tuple[int, ...] | str) -> str:
        if isinstance(ids, str):
            return ids
        where = " AND ".join(self._conds[i].text for i in ids)
        return f"SELECT count(*) FROM {self.table}" + (f" WHERE {where}" if where else "")

    def _register(self, c: Condition) -> int:
        """Give a condition an integer id (shared registry)."""
        cid = self._ids.get(c.text)
        if cid is None:
            cid = len(self._conds)
            self._ids[c.text] = cid
            self._conds.append(c)
        return cid

    def _noise_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """Per condition id: the static seed ``hash(C) XOR salt`` and ``static[C]``, new ones in one pass."""
        n, done = len(self._conds), self._seed_arr.size
        if done < n:
            seeds = np.fromiter((condition_hash(c.text) ^ self.salt for c in self._conds[done:n]),
                                dtype=_U64, count=n - done)
            self._seed_arr = np.concatenate([self._seed_arr, seeds])
            self._static_arr = np.concatenate([self._static_arr, prng_normal(seeds)])
        return self._seed_arr, self._static_arr

    def _template(self, template: str) -> _Plan:
        hit = self._templates.get(template)
        if hit is None:
            if not isinstance(template, str):
                raise DiffixQueryError(f"the statement must be SQL text, got {type(template).__name__}")
            if len(template) > MAX_SQL_CHARS:
                _check_size(template)  # refuses it before any reading
            pairs = _fast_pairs(template, self.table, self.columns)
            fast = _fast_template(template, self.table, self.columns) if pairs is None else None
            if pairs is not None or fast is not None:
                # the limits of _check_size, which the parser applies, hold for the fast readings too
                # (their statements nest no parentheses)
                n = len(pairs if pairs is not None else fast)
                if n > MAX_CONDITIONS:
                    raise DiffixQueryError(f"the query has {n} conditions; at most {MAX_CONDITIONS} are accepted")
                hit = _Plan.of_placeholders(pairs) if pairs is not None else _Plan.of(fast, n)
            else:
                _, slots, n = _parse_template(template, self.table, self.columns,
                                              allow_placeholders=True)
                hit = _Plan.of(slots, n)
            budget = self._budget
            if len(self._templates) > 100_000 or budget.template_chars > _TEMPLATE_CHARS:  # a memo: bounded
                self._templates.clear()
                budget.template_chars = 0
            self._templates[template] = hit
            budget.template_chars += len(template)
        return hit

    def _ensure_masks(self, ids: Iterable[int]) -> None:
        """Let DuckDB evaluate every condition not yet kept; keep its row set as a bitmap.

        ``col <> v`` is the complement of ``col = v`` among non-NULL rows (three-valued logic).
        """
        ids = list(ids)
        todo: dict[int, Condition] = {}
        negated: list[tuple[int, int]] = []
        masks = self._masks
        for cid in ids:
            if cid in masks or cid in todo:
                continue
            c = self._conds[cid]
            if c.op == "<>":
                eq = self._register(Condition(c.column, "=", c.value))
                if eq not in masks:
                    todo[eq] = self._conds[eq]
                negated.append((cid, eq))
            else:
                todo[cid] = c
        # equalities on one column: a single hash join against the list of values, each value of
        # the column's own type (a float among an integer column's values would make the list
        # DOUBLE, rounding integers beyond 2**53; such a condition is evaluated on its own)
        by_column: dict[str, list[tuple[int, Condition]]] = {}
        others: list[tuple[int, Condition]] = []
        for cid, c in todo.items():
            joined = c.op == "=" and type(c.value) is _PY_TYPE[self.columns[c.column]]
            (by_column.setdefault(c.column, []) if joined else others).append((cid, c))
        for column, items in by_column.items():
            if len(items) < 8:
                others.extend(items)
                continue
            values = pd.DataFrame({"tag": np.arange(len(items), dtype=np.int64),
                                   "val": pd.Series([c.value for _, c in items],
                                                    dtype=object if self.columns[column] == "str" else None)})
            col = '"' + column.replace('"', '""') + '"'
            self._con.register("__values", values)
            try:
                res = self._con.execute(
                    f'SELECT v.tag AS c, t."__row" AS r FROM "{self.table}" t JOIN __values v ON t.{col} = v.val'
                ).fetchnumpy()
            finally:
                self._con.unregister("__values")
            self._store_tagged([cid for cid, _ in items], np.asarray(res["c"]), np.asarray(res["r"]))
        for start in range(0, len(others), 64):
            chunk = others[start:start + 64]
            sql = " UNION ALL ".join(
                f'SELECT {i}::INTEGER AS c, "__row" AS r FROM "{self.table}" WHERE {c.sql()}'
                for i, (_, c) in enumerate(chunk))
            res = self._con.execute(sql).fetchnumpy()
            self._store_tagged([cid for cid, _ in chunk], np.asarray(res["c"]), np.asarray(res["r"]))
        for cid, eq in negated:
            if cid in masks:
                continue
            column = self._conds[cid].column
            if self._nnz[eq] == 0:  # col <> a value no record has: every non-NULL row, one shared bitmap
                self._not_null(column)
                self._keep(cid, self._notnull_masks[column], self._notnull_words[column])
                continue
            words = np.bitwise_and(np.invert(masks[eq]), self._not_null(column))
            self._keep(cid, words, np.flatnonzero(words))
        self._evict(keep=set(ids) | set(todo))

    def _keep(self, cid: int, words: np.ndarray, nonzero: np.ndarray) -> None:
        """Cache the bitmap of condition ``cid`` and its nonzero words, counting their bytes."""
        self._masks[cid] = words
        self._nonzero_words[cid] = nonzero
        self._nnz[cid] = nonzero.size
        self._budget.used += self._owned_bytes(cid)

    def _owned_bytes(self, cid: int) -> int:
        """Bytes of the kept arrays of ``cid`` that are its own (shared read-only bitmaps count elsewhere)."""
        return sum(a.nbytes for a in (self._masks[cid], self._nonzero_words[cid]) if a.flags.writeable)

    def _drop_mask(self, cid: int) -> None:
        """Forget the kept bitmap of ``cid`` (DuckDB evaluates the condition again when needed)."""
        self._budget.used -= self._owned_bytes(cid)
        del self._masks[cid], self._nonzero_words[cid], self._nnz[cid]

    def _evict(self, keep: set[int]) -> None:
        """Above the byte budget, drop the oldest bitmaps to 3/4 of it, except ``keep``'s (no answer changes)."""
        budget = self._budget
        if budget.used <= budget.limit:
            return
        for cid in [c for c in self._masks if c not in keep]:
            if budget.used <= budget.limit * 3 // 4:
                break
            self._drop_mask(cid)

    def _store_tagged(self, cids: list[int], tags: np.ndarray, rows: np.ndarray) -> None:
        """Store the row sets of several conditions returned as (tag, row) pairs."""
        order = np.argsort(tags, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(tags, minlength=len(cids)))])
        for i, cid in enumerate(cids):
            self._store(cid, rows[order[bounds[i]:bounds[i + 1]]])

    def _bitmap(self, rows: np.ndarray) -> np.ndarray:
        bits = np.zeros(self._n_words * 64, dtype=bool)
        bits[rows] = True
        return np.packbits(bits, bitorder="little").view(_U64)

    def _store(self, cid: int, rows: np.ndarray) -> None:
        if rows.size == 0:  # a value no record has: share one empty bitmap
            if self._empty is None:
                self._empty = np.zeros(self._n_words, dtype=_U64)
                self._empty.flags.writeable = False
            self._keep(cid, self._empty, np.zeros(0, dtype=np.int64))
            return
        words = self._bitmap(rows)
        self._keep(cid, words, np.flatnonzero(words))

    def _not_null(self, column: str) -> np.ndarray:
        """Bitmap of the rows where ``column`` is not NULL (padding bits are 0)."""
        if column not in self._notnull_masks:
            col = '"' + column.replace('"', '""') + '"'
            rows = self._con.execute(
                f'SELECT "__row" AS r FROM "{self.table}" WHERE {col} IS NOT NULL').fetchnumpy()["r"]
            words = self._bitmap(np.asarray(rows))
            nonzero = np.flatnonzero(words)
            words.flags.writeable = nonzero.flags.writeable = False  # shared by the <> conditions of no value
            self._notnull_masks[column], self._notnull_words[column] = words, nonzero
        return self._notnull_masks[column]

    def _query_sets(self, ids_list: Sequence[tuple[int, ...]],
                    keys: Sequence[tuple[int, ...]] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Size of each query set and XOR of its users' hashes (``keys`` from :meth:`_core` if known)."""
        n = len(ids_list)
        if self.mode == "sql":
            counts = np.zeros(n, dtype=np.int64)
            xors = np.zeros(n, dtype=_U64)
            for i, ids in enumerate(ids_list):
                where = " AND ".join(self._conds[c].sql() for c in ids)
                sql = f'SELECT count(*), bit_xor("__uid_hash") FROM "{self.table}"' + \
                      (f" WHERE {where}" if where else "")
                cnt, x = self._con.execute(sql).fetchone()
                counts[i] = cnt
                xors[i] = 0 if x is None else int(x)
            return counts, xors
        memo = self._set_memo
        if len(memo) > 200_000:
            memo.clear()
        if keys is None:
            keys = list(map(self._core, ids_list))
        known = dict.fromkeys(keys)  # each distinct key once, in order of first use
        todo = []
        for key in known:
            hit = memo.get(key)
            if hit is None:
                todo.append(key)
            else:
                known[key] = hit
        for start in range(0, len(todo), _KEYS_PER_PASS):  # a pass's bitmaps, then the next (a bounded cache)
            part = todo[start:start + _KEYS_PER_PASS]
            self._ensure_masks({c for key in part for c in key})
            for key in part:
                known[key] = memo[key] = self._intersect(key)
        found = list(map(known.__getitem__, keys))
        counts = np.fromiter(map(operator.itemgetter(0), found), dtype=np.int64, count=n)
        xors = np.fromiter(map(operator.itemgetter(1), found), dtype=_U64, count=n)
        return counts, xors

    def _core(self, ids: tuple[int, ...]) -> tuple[int, ...]:
        """The conditions that decide the query set, sorted: ``col <> b`` beside ``col = a`` is dropped."""
        conds = self._conds
        eq = {}
        for i in ids:
            c = conds[i]
            if c.op == "=":
                eq[c.column] = c.value
        if not eq:
            return tuple(sorted(ids))
        keep = [i for i in ids
                if not (conds[i].op == "<>" and conds[i].column in eq and eq[conds[i].column] != conds[i].value)]
        return tuple(sorted(keep))

    def _intersect(self, ids: tuple[int, ...]) -> tuple[int, int]:
        """Count and XOR of user hashes of the rows satisfying every condition (bitmap AND, sparsest first).

        Below :data:`_FEW_WORDS` words the rest is ANDed as Python integers; the same bits as one NumPy AND per
        condition (``tests/reference_twins.py``).
        """
        if not ids:
            return self.n_rows, self._xor_all
        masks, nzw = self._masks, self._nonzero_words
        order = sorted(ids, key=self._nnz.__getitem__)
        idx = nzw[order[0]]
        if idx.size * 2 > self._n_words:  # dense: plain AND over all words
            w = masks[order[0]].copy()
            for i in order[1:]:
                np.bitwise_and(w, masks[i], out=w)
            idx = np.flatnonzero(w)
            return self._rows_summary(idx, w[idx])
        w = masks[order[0]][idx]
        for step in range(1, len(order)):
            if idx.size <= _FEW_WORDS:
                return self._intersect_few(idx.tolist(), w.tolist(), order[step:])
            np.bitwise_and(w, masks[order[step]][idx], out=w)
            if idx.size > 16:
                keep = np.flatnonzero(w)
                if keep.size < idx.size:
                    idx, w = idx[keep], w[keep]
        keep = np.flatnonzero(w)
        return self._rows_summary(idx[keep], w[keep])

    def _intersect_few(self, idx: list[int], words: list[int], rest: Sequence[int]) -> tuple[int, int]:
        """Finish :meth:`_intersect` on a few words as Python integers, word by word, stopping at an empty word."""
        rest_masks = list(map(self._masks.__getitem__, rest))
        live_idx, live = [], []
        for j, x in zip(idx, words):
            for m in rest_masks:
                x &= m.item(j)
                if not x:
                    break
            else:
                if x:
                    live_idx.append(j)
                    live.append(x)
        if not live:
            return 0, 0
        n = sum(x.bit_count() for x in live)
        if n > _FEW_ROWS:
            return self._rows_summary(np.array(live_idx, dtype=np.int64), np.array(live, dtype=_U64))
        hashes = self._uid_hash_list()
        xor = 0
        for j, x in zip(live_idx, live):
            base = j * 64 - 1
            while x:
                low = x & -x
                xor ^= hashes[base + low.bit_length()]
                x ^= low
        return n, xor

    def _uid_hash_list(self) -> list[int]:
        """The users' hashes as Python integers (built on first use; for XORs of a few rows)."""
        if self._uid_hash_py is None:
            self._uid_hash_py = self._uid_hash.tolist()
        return self._uid_hash_py

    def _rows_summary(self, idx: np.ndarray, w: np.ndarray) -> tuple[int, int]:
        """Count and XOR of user hashes of the rows set in words ``w`` (at word positions ``idx``)."""
        if idx.size == 0:
            return 0, 0
        bits = np.unpackbits(w.view(np.uint8), bitorder="little").view(bool)
        rows = (idx[:, None] * 64 + _LANES).ravel()[bits]
        return int(rows.size), int(np.bitwise_xor.reduce(self._uid_hash[rows]))

    def _suppressed(self, counts: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
        if not self.bucket_suppression:
            return np.zeros(counts.shape, dtype=bool)
        return (counts <= 1) | (counts < thresholds)

    def _finish(self, noisy: np.ndarray, suppressed: np.ndarray) -> np.ndarray:
        out = np.where(suppressed, 0.0, noisy)
        if self.rounding:
            out = np.maximum(np.rint(out), 0.0)
        return out

    def _answer(self, ids_list: Sequence[tuple[int, ...]], analyst: str,
                keys: Sequence[tuple[int, ...]] | None = None) -> np.ndarray:
        """Eq. 1 for a batch: true count + static + dynamic noise, then suppression and rounding."""
        if not isinstance(analyst, str) or not analyst:
            raise ValueError(f"analyst must be a non-empty string, got {analyst!r}")
        n = len(ids_list)
        if n == 0:
            return np.zeros(0)
        counts, xors = self._query_sets(ids_list, keys)
        sizes = list(map(len, ids_list))
        flat = np.fromiter(itertools.chain.from_iterable(ids_list), dtype=np.int64, count=sum(sizes))
        owner = np.repeat(np.arange(n), sizes)
        seed_arr, static_arr = self._noise_tables()
        seeds = seed_arr[flat]
        # one PRNG pass for dynamic_Q[C] (seed ^ xor) and the thresholds (salt ^ xor)
        draws = prng_normal(np.concatenate([seeds ^ xors[owner], xors ^ _U64(self.salt)]))
        m = flat.size
        noisy = counts + np.bincount(owner, weights=static_arr[flat] + draws[:m], minlength=n).astype(float)
        if self.generic_layer:
            bare = np.flatnonzero(np.asarray(sizes) == 0)
            if bare.size:  # no condition to seed a layer: Diffix's generic layer
                g = np.full(bare.size, self._generic_seed(), dtype=_U64)
                noisy[bare] += prng_normal(g) + prng_normal(g ^ xors[bare])
        thresholds = self.threshold_mean + self.threshold_sd * draws[m:]
        suppressed = self._suppressed(counts, thresholds)
        answers = self._finish(noisy, suppressed)
        self._counts[analyst] = self._counts.get(analyst, 0) + n
        if self._n_suppressed.get(analyst, 0) is not None:
            self._n_suppressed[analyst] = self._n_suppressed.get(analyst, 0) + int(np.count_nonzero(suppressed))
        if self.keep_log:
            self._log.extend(zip(itertools.repeat(analyst), ids_list, answers.tolist()))
        return answers


# ---------------------------------------------------------------------------
# Checks of the mechanism
# ---------------------------------------------------------------------------


def noise_sample(proxy: DiffixProxy, h: int, n: int, seed: np.random.Generator | int | None = 0,
                 analyst: str = "noise-check") -> np.ndarray:
    """Answer minus true count for ``n`` new queries of ``h`` (>= 1) conditions each.

    Each condition is ``col <> v`` for a value no record has (Q(D) = N, fresh noise); without rounding and suppression
    a sample of N(0, 2h). ``seed`` draws the values.
    """
    g = check_random_state(seed)
    numeric = [c for c, k in proxy.columns.items() if k in ("int", "float")]
    if isinstance(h, bool) or not isinstance(h, (int, np.integer)) or not 1 <= h <= len(numeric):
        raise ValueError(f"h must be an integer in [1, {len(numeric)}] (numeric columns), got {h!r}")
    cols = numeric[:h]
    template = f"SELECT count(*) FROM {proxy.table} WHERE " + " AND ".join(
        '"' + c.replace('"', '""') + '" <> ?' for c in cols)
    # values far outside any column's range, all distinct: 10**12 + a random 40-bit integer
    vals = 10**12 + g.choice(1 << 40, size=(int(n), h), replace=False) if n * h < (1 << 20) else \
        10**12 + g.integers(0, 1 << 62, size=(int(n), h))
    rows = [tuple(int(v) if proxy.columns[c] == "int" else float(v) for v, c in zip(r, cols)) for r in vals]
    return proxy.execute(template, rows, analyst=analyst) - proxy.n_rows


def suppression_curve(sizes: Sequence[int], n_sets: int = 400, *, salt: int | str = 0,
                      threshold_mean: float = 4.0, threshold_var: float = 0.5) -> pd.DataFrame:
    """Fraction of query sets suppressed by true size against §2's rule: 1 for size <= 1, else P(T > size).

    ``n_sets`` groups per size, rounding off; columns ``size``, ``suppressed``, ``expected``, ``n_sets``.
    """
    from scipy.stats import norm

    sizes = [int(z) for z in sizes]
    if not sizes or min(sizes) < 1:
        raise ValueError(f"sizes must be integers >= 1, got {sizes}")
    grp = np.concatenate([np.repeat(np.arange(n_sets) + 1_000_000 * z, z) for z in sizes])
    proxy = DiffixProxy(pd.DataFrame({"grp": grp}), table="groups", salt=salt, rounding=False,
                        threshold_mean=threshold_mean, threshold_var=threshold_var, keep_log=False)
    rows = []
    sd = math.sqrt(threshold_var)
    for z in sizes:
        answers = proxy.execute("SELECT count(*) FROM groups WHERE grp = ?",
                                [(1_000_000 * z + g,) for g in range(n_sets)])
        expected = 1.0 if z <= 1 else float(1 - norm.cdf(z, threshold_mean, sd)) if sd > 0 else \
            float(z < threshold_mean)
        rows.append({"size": z, "suppressed": float(np.mean(answers == 0)), "expected": expected,
                     "n_sets": n_sets})
    return pd.DataFrame(rows)

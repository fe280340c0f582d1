"""One formatter for every table the book shows: what a reader can read, not a pandas dump.

:func:`book_table_html` renders a DataFrame (or a Series) the way every table of the book reads:

- **no meaningless index**: an index that is only row numbers (0…n−1 in any order, unnamed) is dropped;
  an index that means something (named, or not integers) becomes the first column;
- **column names in words**: ``precision_dependent`` reads "precision dependent", a MultiIndex's levels
  are joined, and :data:`WORDS` spells out the abbreviations the declarations use; row labels that are
  code names (``n_users``) read the same way;
- **intervals as "0.88 [0.80, 0.93]"**: a column ``x`` with its interval beside it (``x ci``, ``x_ci``, or
  ``ci_low``/``ci_high`` right after it) becomes one column, the value and its interval to the digits the
  interval's width supports (:func:`interval_digits`); an interval alone reads "[0.80, 0.93]";
- **numbers** without an interval to four significant digits (:func:`table_number`);
- **missing values as "—"**, with the reason said once under the table (``df.attrs["missing"]``, else
  :data:`MISSING`);
- **long lists folded**: a cell with more than :data:`FOLD_ITEMS` items (or :data:`FOLD_CHARS` characters)
  shows its first items and opens on a click; nothing is cut with "…";
- **no table wider than the column**: cells wrap anywhere (``table.book-table`` in
  ``book/_static/anonlab.css``), and a table of more than :data:`REFLOW_COLUMNS` columns is marked
  ``reflow``: on a phone each row becomes a block of "column: value" lines.

:func:`register` makes it IPython's HTML formatter for DataFrames, Series and Stylers (``df.style``) (the chapter kit calls it
through :func:`anonbook.plotting.table_style`); a DataFrame subclass with its own ``_repr_html_`` (the
verdict and claims tables) keeps it.
"""

from __future__ import annotations

import html
import math
import numbers
import re
from collections.abc import Sequence
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

__all__ = ["table_number", "parameter_text", "WORDS", "MISSING", "FOLD_ITEMS", "FOLD_CHARS", "REFLOW_COLUMNS", "column_label", "interval_digits",
           "value_text", "interval_text", "readable_frame", "book_table_html", "register"]

#: Abbreviations of column names, in words (whole words of a name only).
WORDS = {"ci": "interval", "pi": "PI", "pr": "PR", "pct": "%", "qi": "QI", "qis": "QIs",
         "tpr": "TPR", "fpr": "FPR", "pa": "(attackable)", "auc": "AUC", "sd": "SD", "se": "SE", "pii": "PII",
         "vu": "value-unique"}
#: The reason a missing value is missing, said once under a table that has one (unless the frame says why).
MISSING = "— : no value here (not measured for this row, or not applicable)"
FOLD_ITEMS = 8
FOLD_CHARS = 160
REFLOW_COLUMNS = 4

IDENTIFIER = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)+")
_INTERVAL_SUFFIX = re.compile(r"^(?P<base>.+?)(?:[ _]ci|[ _]interval)$")


def column_label(name: Any) -> str:
    """A column name in words: levels joined, underscores as spaces, :data:`WORDS` spelled out.

    >>> column_label("precision_dependent"), column_label(("adult", "mean_pii")), column_label("pi")
    ('precision dependent', 'adult mean PII', 'PI')
    """
    if isinstance(name, tuple):
        return " ".join(column_label(n) for n in name if str(n) != "")
    words = str(name).replace("_", " ").split()
    return " ".join(WORDS.get(w.lower(), w) for w in words)


def _is_missing(x: Any) -> bool:
    if x is None or x is pd.NA or x is pd.NaT:
        return True
    try:
        return isinstance(x, float) and math.isnan(x)
    except TypeError:
        return False


def _number(x: Any) -> float | None:
    """``x`` as a finite float when it is a real number (not a bool), else None."""
    if isinstance(x, bool) or x is None:
        return None
    if hasattr(x, "item") and getattr(x, "ndim", 1) == 0:
        x = x.item()
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        v = float(x)
        return v if math.isfinite(v) else None
    return None


def _as_pair(x: Any) -> tuple[float, float] | None:
    """``x`` as (low, high) when it is a pair of finite numbers (a tuple, list or array of two)."""
    if isinstance(x, (str, bytes, dict)) or not hasattr(x, "__len__"):
        return None
    try:
        if len(x) != 2:
            return None
        lo, hi = _number(x[0]), _number(x[1])
    except (TypeError, KeyError, IndexError):
        return None
    return (lo, hi) if lo is not None and hi is not None else None


def table_number(x: float) -> str:
    """How a plain table shows a float: four significant digits, thousands grouped, no exponent below a million.

    ``0.123456 -> '0.1235'``, ``12345.6 -> '12,346'``, ``0.0004545 -> '4.545e-04'`` (below 0.001 in
    exponent form, never a run of zeros), ``3e-05 -> '3e-05'``, NaN -> ``'NaN'``.
    """
    if x != x:
        return "NaN"
    if abs(x) >= 1000 and abs(x) < 1e6:
        return f"{x:,.0f}"
    if 0 < abs(x) < 1e-3:
        mantissa, exponent = f"{x:.3e}".split("e")
        return f"{mantissa.rstrip('0').rstrip('.')}e{exponent}"
    return f"{x:.4g}"


def parameter_text(value: Any) -> str:
    """A chapter parameter's value as plain text: its Python literal, and ``None`` as "not set (None)".

    >>> parameter_text(0.5), parameter_text("adult"), parameter_text(None)
    ('0.5', "'adult'", 'not set (None)')
    """
    return "not set (None)" if value is None else repr(value)


def interval_digits(low: float, high: float) -> int:
    """Decimals an interval's width supports: two significant digits of the width (at least 0, at most 6).

    >>> interval_digits(0.80, 0.93), interval_digits(120.0, 480.0), interval_digits(0.5, 0.5)
    (2, 0, 3)
    """
    width = abs(high - low)
    if width == 0 or not math.isfinite(width):
        return 3
    return int(min(6, max(0, 1 - math.floor(math.log10(width)))))


def _fixed(x: float, digits: int) -> str:
    return f"{x:,.{digits}f}" if abs(x) >= 1000 else f"{x:.{digits}f}"


def interval_text(value: float | None, low: float, high: float) -> str:
    """``"0.88 [0.80, 0.93]"`` (or ``"[0.80, 0.93]"`` without a value), to the digits the interval supports.

    >>> interval_text(0.8812, 0.8012, 0.9321), interval_text(None, 0.8012, 0.9321)
    ('0.88 [0.80, 0.93]', '[0.80, 0.93]')
    """
    d = interval_digits(low, high)
    ci = f"[{_fixed(low, d)}, {_fixed(high, d)}]"
    return ci if value is None else f"{_fixed(value, d)} {ci}"


def _fold(items: Sequence[str]) -> str:
    """A long list as its first items with the rest one click away (HTML)."""
    head = ", ".join(items[:3])
    return (f"<details><summary>{head}, … ({len(items)} in all)</summary>"
            + ", ".join(items) + "</details>")


def value_text(x: Any) -> str:
    """One cell as HTML: numbers by :func:`table_number`, a pair of numbers as an interval,
    yes/no for booleans, "—" for a missing value, a long list or text folded (never cut)."""
    if isinstance(x, (list, tuple, set, frozenset)) or (hasattr(x, "tolist") and getattr(x, "ndim", 0) == 1):
        pair = _as_pair(x)
        if pair is not None:
            return interval_text(None, *pair)
        items = [html.escape(str(i)) for i in (sorted(x, key=str) if isinstance(x, (set, frozenset)) else list(x))]
        if not items:
            return "none"
        return _fold(items) if len(items) > FOLD_ITEMS else ", ".join(items)
    if _is_missing(x):
        return "—"
    if isinstance(x, (bool,)) or type(x).__name__ == "bool_":
        return "yes" if bool(x) else "no"
    v = _number(x)
    if v is not None:
        if isinstance(x, numbers.Integral):
            return f"{int(x):,}" if abs(int(x)) >= 10000 else str(int(x))
        return table_number(v)
    text = str(x)
    if len(text) > FOLD_CHARS and ", " in text:
        return _fold([html.escape(t) for t in text.split(", ")])
    return html.escape(text)


def _meaningless_index(index: pd.Index) -> bool:
    """Row numbers only: unnamed integers 0…n−1 in any order."""
    if isinstance(index, pd.MultiIndex) or any(n is not None for n in index.names):
        return False
    if isinstance(index, pd.RangeIndex):
        return True
    if not pd.api.types.is_integer_dtype(index):
        return False
    return sorted(int(i) for i in index) == list(range(len(index)))


def _interval_columns(columns: list[Any]) -> dict[Any, Any]:
    """Value column -> the interval column(s) that belong to it (a column ``x ci`` beside ``x``; a
    ``ci_low``/``ci_high`` pair right after a column)."""
    labels = {c: (" ".join(map(str, c)) if isinstance(c, tuple) else str(c)) for c in columns}
    pairs: dict[Any, Any] = {}
    by_label = {v: k for k, v in labels.items()}
    for c in columns:
        m = _INTERVAL_SUFFIX.match(labels[c])
        if m and m.group("base") in by_label:
            pairs[by_label[m.group("base")]] = c
    for i, c in enumerate(columns[:-1]):
        lo, hi = labels[c].lower(), labels[columns[i + 1]].lower()
        if i > 0 and re.search(r"(^|[ _])(ci[ _])?(low|lo|lower)$", lo) and re.search(r"(high|hi|upper)$", hi):
            pairs[columns[i - 1]] = (c, columns[i + 1])
    return pairs


def readable_frame(df: pd.DataFrame | pd.Series) -> tuple[list[str], list[list[str]], bool]:
    """(column labels, rows of HTML cells, whether a value is missing): the table a reader sees."""
    frame = df.to_frame(name=df.name if df.name is not None else "value") if isinstance(df, pd.Series) else df
    if not _meaningless_index(frame.index):
        names = [n for n in frame.index.names]
        levels = [n if n is not None else ("index" if frame.index.nlevels == 1 else f"level_{i}")
                  for i, n in enumerate(names)]
        frame = frame.reset_index()
        for lev in levels:  # row labels that are code names (n_users) read as words, as column names do
            if lev in frame.columns:
                frame[lev] = frame[lev].map(lambda v: column_label(v) if isinstance(v, str)
                                            and IDENTIFIER.fullmatch(v) else v)
        if all(n is None for n in names):
            frame = frame.rename(columns={"index": ""})
        unnamed = {lev for lev, n in zip(levels, names) if n is None}  # pandas' "level_0": no header
    else:
        unnamed = set()
    columns = list(frame.columns)
    pairs = _interval_columns(columns)
    absorbed = {x for v in pairs.values() for x in (v if isinstance(v, tuple) else (v,))}
    shown = [c for c in columns if c not in absorbed]
    labels = ["" if c in unnamed else column_label(c) for c in shown]
    rows, missing = [], False
    for _, r in frame.iterrows():
        cells = []
        for c in shown:
            x = r[c]
            if c in pairs:
                pair = (_number(r[pairs[c][0]]), _number(r[pairs[c][1]])) if isinstance(pairs[c], tuple) \
                    else _as_pair(r[pairs[c]])
                v = _number(x)
                if pair is not None and None not in pair and v is not None:
                    cells.append(interval_text(v, *pair))  # type: ignore[arg-type]
                    continue
            text = value_text(x)
            missing = missing or text == "—"
            cells.append(text)
        rows.append(cells)
    return labels, rows, missing


#: A cell with a word longer than this (a sha256, a file path) may break inside it; other words stay whole.
LONG_TOKEN = 20


def _long_token(cell: str) -> str:
    """``' class="long-token"'`` for a cell holding a word of more than :data:`LONG_TOKEN` characters."""
    words = re.sub(r"<[^>]+>", " ", cell).split()
    return ' class="long-token"' if any(len(w) > LONG_TOKEN for w in words) else ""


def book_table_html(df: pd.DataFrame | pd.Series) -> str:
    """The book's HTML table of ``df`` (see the module docstring)."""
    labels, rows, missing = readable_frame(df)
    reflow = len(labels) > REFLOW_COLUMNS
    head = "".join(f"<th>{html.escape(lab)}</th>" for lab in labels)
    body = "".join("<tr>" + "".join(f'<td data-label="{html.escape(lab, quote=True)}"{_long_token(cell)}>{cell}</td>'
                                    for lab, cell in zip(labels, r)) + "</tr>" for r in rows)
    cls = "book-table reflow" if reflow else "book-table"
    note = ""
    if missing:
        why = (df.attrs or {}).get("missing", MISSING)
        note = f'<p class="book-table-note">{html.escape(why)}</p>'
    return f'<div class="book-table-wrap"><table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}</div>'


def _format(obj: Any) -> str | None:
    """IPython's HTML for a DataFrame or Series: a subclass's own ``_repr_html_`` first, else the book's table."""
    own = getattr(type(obj), "_repr_html_", None)
    if isinstance(obj, pd.DataFrame) and own is not None and own is not pd.DataFrame._repr_html_:
        return obj._repr_html_()
    return book_table_html(obj)


def register() -> bool:
    """Make :func:`book_table_html` IPython's HTML for DataFrames and Series; False outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    ip = get_ipython()
    if ip is None:
        return False
    formatter = ip.display_formatter.formatters["text/html"]
    formatter.for_type(pd.DataFrame, _format)
    formatter.for_type(pd.Series, _format)
    formatter.for_type(Styler, lambda st: book_table_html(st.data))  # df.style.format(...): the same table
    return True

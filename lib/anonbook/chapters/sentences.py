"""Sentences that compare, chosen from the numbers and recorded with them.

A chapter's prose must be true at every valid parameter, so a sentence that
compares (above/below, holds/fails, a list that may be empty) is never typed
for the default run: the chapter hands the numbers to :func:`compare` or
:func:`listing`, which choose the wording from them, and the kit
(:meth:`~anonbook.chapters.kit.ChapterRun.glue_sentence`) glues the text for
the page and records the sentence, its numbers and the relation it asserts
in the run's ``results.json`` (``"sentences"``). :func:`check` recomputes the
relation from the recorded numbers; ``tests/test_random_parameters.py`` runs
each chapter at random valid parameters and checks every recorded sentence.

>>> s = compare("bar", 6.39e-167, 1e-06, {"above": "{left:.3g} is above the bar {right:g}",
...                                        "at or below": "{left:.3g} is at or below the bar {right:g}"})
>>> s.text, s.relation, check(s.as_dict())
('6.39e-167 is at or below the bar 1e-06', 'at or below', None)
>>> check(dict(s.as_dict(), relation="above"))   # what the old template asserted
'bar: says 6.39e-167 above 1e-06, which is false'
>>> listing("ps", [], some="p = {items}", none="no swept p").text
'no swept p'
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RELATIONS", "Sentence", "compare", "listing", "check", "check_all"]

#: The relations a comparing sentence may assert between its two numbers.
RELATIONS: dict[str, Callable[[float, float], bool]] = {
    "above": operator.gt, "at or above": operator.ge, "below": operator.lt, "at or below": operator.le,
    "equal": operator.eq, "different": operator.ne,
}


@dataclass(frozen=True)
class Sentence:
    """A generated sentence and what it asserts: ``relation`` between ``left`` and ``right``, or a list's items."""

    key: str
    text: str
    relation: str
    left: Any = None
    right: Any = None
    items: tuple[Any, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, Any]:
        """The record kept in ``results.json`` (numbers as plain floats, items as a list)."""
        out: dict[str, Any] = {"key": self.key, "text": self.text, "relation": self.relation}
        if self.relation in ("some", "none"):
            out["items"] = [_plain(v) for v in self.items]
        else:
            out["left"], out["right"] = _plain(self.left), _plain(self.right)
        return out


def _plain(x: Any) -> Any:
    """A NumPy scalar as the Python number it holds; anything else unchanged."""
    return x.item() if hasattr(x, "item") and getattr(x, "ndim", None) == 0 else x


def compare(key: str, left: float, right: float, phrases: Mapping[str, str]) -> Sentence:
    """The first of ``phrases`` (relation -> template with ``{left}`` and ``{right}``) whose relation holds.

    The phrases must between them cover every case (e.g. ``above`` and
    ``at or below``); a pair of numbers none of them fits (or a NaN) is an
    error, never a default sentence.
    """
    unknown = sorted(set(phrases) - set(RELATIONS))
    if unknown:
        raise ValueError(f"sentence {key!r}: unknown relation(s) {unknown}; known: {sorted(RELATIONS)}")
    a, b = float(left), float(right)
    for relation, template in phrases.items():
        if not (math.isnan(a) or math.isnan(b)) and RELATIONS[relation](a, b):
            return Sentence(key, template.format(left=a, right=b), relation, a, b)
    raise ValueError(f"sentence {key!r}: no phrase fits {a!r} against {b!r} (phrases for {list(phrases)})")


def listing(key: str, items: Iterable[Any], *, some: str, none: str,
            fmt: Callable[[Any], str] = lambda v: f"{v:g}", sep: str = ", ") -> Sentence:
    """``some`` with ``{items}`` (the items joined by ``sep``, commas by default) when there are any, else ``none``."""
    values = tuple(_plain(v) for v in items)
    if values:
        return Sentence(key, some.format(items=sep.join(fmt(v) for v in values)), "some", items=values)
    return Sentence(key, none, "none")


def check(record: Mapping[str, Any]) -> str | None:
    """Recompute what a recorded sentence asserts from its recorded numbers: ``None`` if true, else why not."""
    key, relation = record.get("key", "?"), record.get("relation")
    if relation in ("some", "none"):
        items = list(record.get("items") or [])
        if (relation == "some") != bool(items):
            return f"{key}: says the list is {'not ' if relation == 'some' else ''}empty, it has {len(items)} items"
        return None
    if relation not in RELATIONS:
        return f"{key}: unknown relation {relation!r}"
    left, right = record.get("left"), record.get("right")
    try:
        holds = RELATIONS[relation](float(left), float(right))
    except (TypeError, ValueError):
        return f"{key}: numbers {left!r}, {right!r} are not numbers"
    return None if holds else f"{key}: says {left:.3g} {relation} {right:.3g}, which is false"


def check_all(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """:func:`check` of every record; the problems, one line each (empty: every sentence is true)."""
    return [p for p in (check(r) for r in records) if p]

"""An exercise's computed solution as the reader sees it: its preset, its values with intervals, its "why".

:mod:`anonbook.course` runs the solution runs and writes the pages; this
module turns one exercise's runs into text:

* :func:`preset_note` says which preset a solution ran on and how it differs
  from the chapter's default run (read from the declared parameters, so the
  sizes are never typed);
* :func:`cell` shows a glued value with its interval when the run glues one
  (the glue key ``<key>_ci``, computed by the chapter with the library's
  interval functions, e.g. :func:`anonlab.measures.rates.wilson_interval`);
* :func:`fill_explanation` fills an exercise's ``explain`` template from the
  base run's and the variant's glued values, with the direction words
  computed ("rises from 0.12 to 0.19");
* :func:`preset_disagreements` is the check that a solution citing a value the
  chapter also shows, with another value, names the preset it ran on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from anonbook import chapters

__all__ = ["base_label", "preset_note", "cell", "fill_explanation", "placeholders", "number",
           "preset_disagreements", "INTERVAL_SUFFIX"]

#: A value glued as ``key`` has its interval glued as ``key + INTERVAL_SUFFIX`` (a 95 % interval, as text).
INTERVAL_SUFFIX = "_ci"

#: Lists longer than this are shown by their length in a preset note.
SHORT_LIST = 6

#: Defaults that mean something else than their value (``adult_rows = 0``: every record): a preset note
#: adds the parameter's declared meaning.
SPECIAL = (0, None, "", "auto", "all")

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(@base)?(:change|:overlap|:vs:([A-Za-z_][A-Za-z0-9_]*))?\}")


def _show(value: Any) -> str:
    """A parameter value in a preset note: JSON, or ``N values`` for a long list."""
    if isinstance(value, (list, tuple)) and len(value) > SHORT_LIST:
        return f"{len(value)} values"
    return json.dumps(value)


def base_label(e: chapters.Exercise) -> str:
    """The column head of an exercise's base run: which preset the values come from."""
    if e.base == "default":
        return "the chapter's default run (shown above)"
    return "quick preset" if e.base == "quick" else "medium preset"  # its parameters: in the preset note


def preset_note(ch: chapters.Chapter, e: chapters.Exercise) -> str:
    """One sentence: the preset the solution ran on and each parameter in which it differs from the chapter's run.

    The differences are read from the declaration (the base parameters
    against the declared defaults; a default in :data:`SPECIAL`, such as 0
    for "every record", with its declared meaning).
    """
    if e.base == "default":
        return "Ran on the chapter's default parameters: the base column is the run shown above."
    defaults = ch.parameters.defaults()
    base = ch.parameters.validate(e.base_parameters(ch.quick))
    diffs = [f"`{k} = {_show(v)}` (the chapter: `{_show(defaults[k])}`"
             + (f"; {ch.parameters[k].help})" if defaults[k] in SPECIAL else ")")
             for k, v in base.items() if k != "use_cache" and v != defaults.get(k)]
    which = "the quick preset" if e.base == "quick" else "a medium preset (the quick preset with " + ", ".join(
        f"`{k} = {_show(v)}`" for k, v in dict(e.base).items()) + ")"  # type: ignore[union-attr]
    if not diffs:
        return f"Ran on {which}, which here equals the chapter's default parameters."
    return (f"Ran on {which}, not on the chapter's default run above: it differs in " + "; ".join(diffs)
            + ". Values cited from the chapter can therefore differ from the ones above.")


def text(data: Mapping[str, Any] | None) -> str:
    """A glued value as short text (numbers rounded to 4 significant digits); ``—`` when missing."""
    if not data:
        return "—"
    raw = data.get("text/markdown") or data.get("text/plain") or ""
    raw = "".join(raw) if isinstance(raw, list) else str(raw)
    raw = raw.strip().strip("'\"")
    try:
        x = float(raw)
        return f"{x:.4g}" if not x.is_integer() or abs(x) >= 1e15 else str(int(x))
    except ValueError:
        return raw.replace("|", "\\|").replace("\n", " ")


def cell(glued: Mapping[str, Mapping[str, Any]], key: str, interval: str | None = None) -> str:
    """The value glued as ``key``, followed by its 95 % interval when the run glues one (``0.9 [0.77, 0.96]``).

    The interval is glued as ``interval`` (an exercise's ``intervals``), by default ``key_ci``.
    """
    value = text(glued.get(key))
    ci = glued.get(interval or key + INTERVAL_SUFFIX)
    if not ci or value == "—":
        return value
    shown = text(ci)
    return f"{value} {shown}" if shown.startswith("[") else f"{value} ({shown})"


def number(shown: str) -> float | None:
    """The first number in a shown value (``"0.25 (95 % ...)"`` -> 0.25), or ``None``."""
    m = re.match(r"\s*(-?\d[\d,]*(?:\.\d+)?(?:[eE]-?\d+)?)", shown)
    if not m:
        return None
    try:
        return float(m.group(1).replace(",", ""))
    except ValueError:
        return None


def _change(before: str, after: str) -> str:
    """The move from ``before`` to ``after`` in words: rises / falls / stays at / changes from ... to ..."""
    a, b = number(before), number(after)
    if before == after:
        return f"stays at {after}"
    if a is None or b is None:
        return f"changes from {before} to {after}"
    if a == b:
        return f"stays at {after}"
    return f"{'rises' if b > a else 'falls'} from {before} to {after}"


def _versus(a: str, b: str) -> str:
    """How ``a`` compares with ``b`` in words: "larger than", "smaller than", "the same as"."""
    x, y = number(a), number(b)
    if x is None or y is None:
        return "the same as" if a == b else "different from"
    return "the same as" if x == y else ("larger than" if x > y else "smaller than")


def _bounds(shown: str) -> tuple[float, float] | None:
    """``(low, high)`` of an interval shown as ``[0.01, 0.24]`` or ``5 to 7``, or ``None``."""
    nums = re.findall(r"-?\d+(?:\.\d+)?", shown)
    return (float(nums[0]), float(nums[1])) if len(nums) == 2 else None


def _overlap(base: str, variant: str) -> str:
    """Whether two 95 % intervals overlap, in words (the base run's and the variant's)."""
    a, b = _bounds(base), _bounds(variant)
    if a is None or b is None:
        return "their intervals were not measured"
    if a[0] <= b[1] and b[0] <= a[1]:
        return f"their 95 % intervals ({base} and {variant}) overlap, so these samples cannot tell the two apart"
    return f"their 95 % intervals ({base} and {variant}) do not overlap"


def placeholders(template: str) -> list[str]:
    """The glue keys an ``explain`` template cites."""
    return [k for m in _PLACEHOLDER.finditer(template) for k in (m.group(1), m.group(4)) if k]


def fill_explanation(template: str, base: Mapping[str, Mapping[str, Any]],
                     variant: Mapping[str, Mapping[str, Any]]) -> str:
    """Fill an ``explain`` template from the base run's and the variant's glued values.

    ``{key}`` is the variant's value, ``{key@base}`` the base run's,
    ``{key:change}`` the move from base to variant in words ("rises from 0.12
    to 0.19", "falls ...", "stays at ..."), ``{key:overlap}`` whether the two
    runs' 95 % intervals of it (glued as ``key_ci``) overlap, ``{a:vs:b}`` (``{a@base:vs:b}``)
    how ``a`` compares with ``b`` in the variant (the base run): "larger
    than", "smaller than", "the same as".
    """
    def one(m: re.Match[str]) -> str:
        key, at_base, how, other = m.groups()
        run = base if at_base else variant
        if other:
            return _versus(text(run.get(key)), text(run.get(other)))
        if how == ":overlap":
            ci = key + INTERVAL_SUFFIX
            return _overlap(text(base.get(ci)), text(variant.get(ci)))
        if how:
            return _change(text(base.get(key)), text(variant.get(key)))
        return text(run.get(key))

    return _PLACEHOLDER.sub(one, template)


def preset_disagreements(ch: chapters.Chapter, published: Mapping[str, Mapping[str, Any]],
                         bases: Mapping[str, Mapping[str, Mapping[str, Any]]], page: str) -> list[str]:
    """Solutions that cite a value the chapter shows, with another value, without naming their preset.

    ``published`` is the chapter's published run's glue, ``bases`` each
    exercise's base-run glue (by exercise key), ``page`` the generated
    exercises page. A base value that differs from the chapter's is fine
    when the column says which preset it is and the page carries the preset
    note that names the differing parameters; a base labelled as the
    chapter's default run must show the chapter's own values.
    """
    problems = []
    for e in ch.exercises:
        glued = bases.get(e.key, {})
        for key in e.answer:
            if key not in published or key not in glued:
                continue
            mine, theirs = text(glued[key]), text(published[key])
            if mine == theirs:
                continue
            if e.base == "default":
                problems.append(f"{e.key}: {key} is {mine} in the column labelled the chapter's run, "
                                f"{theirs} in the chapter")
            elif base_label(e) not in page or preset_note(ch, e) not in page:
                problems.append(f"{e.key}: {key} is {mine} on the {base_label(e)}, {theirs} in the chapter, "
                                "and the solution does not name its preset")
    return problems

"""The chapters: each one's declared parameters, classroom preset and claim measurements.

The four rooms (``data``, ``mechanisms``, ``attacks``, ``measures``) know
nothing of the book. This package is the thin layer between them and the
notebooks: one module per chapter, named ``ch`` + the notebook's name
(``01_syntactic_anonymity`` -> :mod:`anonlab.chapters.ch01_syntactic_anonymity`),
holding

* ``CHAPTER``: a :class:`Chapter` with the declared parameters (one place:
  name, type, range or choices, default, meaning) and the ``quick`` preset
  (the fast settings a class and the test suite use);
* the tested functions that turn the chapter's results into claim
  measurements (``{claim id: Measurement}``), so that deciding a claim is
  library code and the notebook only records.

The notebook validates its parameters with one call::

    from anonlab.chapters import ch01_syntactic_anonymity as chapter
    chapter.CHAPTER.check(globals())

and the runner checks a run against the same declaration before it starts.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..validation import ParameterError, ParameterSpec

__all__ = ["Chapter", "SPINE", "get", "module_name", "has_chapter"]

#: The headings (H2) of every chapter, in order (see the book's introduction).
#: A heading matches when it starts with the entry ("Beyond the paper",
#: "Beyond the slides: Adult").
SPINE = ("The claim", "Parameters", "Setup", "Reproduction", "Verdict", "Beyond the",
         "Exercises", "Provenance")


@dataclass(frozen=True)
class Chapter:
    """A chapter's declaration.

    Attributes
    ----------
    name
        The notebook's name, ``"01_syntactic_anonymity"``.
    title
        The chapter's title (its H1).
    parameters
        The declared parameters.
    quick
        Overrides of the defaults for a fast run (classroom, tests): ``python
        -m anonlab run NAME --quick``. Checked against ``parameters``.
    data
        Names of the manifest's data sets the chapter reads (provenance).
    """

    name: str
    title: str
    parameters: ParameterSpec
    quick: Mapping[str, Any] = field(default_factory=dict)
    data: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        try:
            self.parameters.validate(dict(self.quick))
        except ParameterError as exc:
            raise ValueError(f"chapter {self.name}: the quick preset is invalid: {exc}") from None

    def check(self, namespace: Mapping[str, Any]) -> dict[str, Any]:
        """Validate the notebook's parameters (its ``globals()``); return them as a dict."""
        return self.parameters.validate_namespace(namespace)

    def quick_parameters(self) -> dict[str, Any]:
        """The quick preset as a full set of parameters."""
        return self.parameters.validate(dict(self.quick))


def module_name(notebook: str) -> str:
    """``01_syntactic_anonymity`` -> ``anonlab.chapters.ch01_syntactic_anonymity``."""
    return f"{__name__}.ch{notebook}"


def has_chapter(notebook: str) -> bool:
    """Is there a chapter module for this notebook?"""
    return importlib.util.find_spec(module_name(notebook)) is not None


def get(notebook: str) -> Chapter:
    """The declaration of a chapter, by notebook name."""
    if not has_chapter(notebook):
        raise KeyError(f"no chapter module {module_name(notebook)} for notebook {notebook!r}")
    return importlib.import_module(module_name(notebook)).CHAPTER

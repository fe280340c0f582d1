"""``glue``: store a value in a notebook's output so that the book can paste it into its prose.

The notebooks' values reach the text through MyST-NB's ``{glue}`` role and
directive. They read the value from a display output whose metadata names it
(``metadata["scrapbook"] = {"name": ..., "mime_prefix": ...}``), written by
``myst_nb.glue``. That function lives in a module which imports Sphinx and
MyST-NB's whole rendering stack (about 1.2 s per notebook run, and again in
every exercise run), so the notebooks call this copy instead: the same five
lines (MyST-NB 1.x, ``myst_nb/ext/glue/__init__.py``, BSD-3-Clause), needing
only IPython. ``tests/test_glue.py`` checks that both produce the same output.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GLUE_PREFIX", "glue"]

#: MIME prefix of a glued value that is stored but not shown in the notebook.
GLUE_PREFIX = "application/papermill.record/"


def glue(name: str, variable: Any, display: bool = True) -> None:
    """Store ``variable``'s display value under ``name`` (what ``{glue}`name``` pastes).

    Parameters
    ----------
    name : str
        A unique name for the value in the notebook.
    variable : object
        Anything IPython can display; what is stored is its display
        representation (text, HTML, an image), not the object.
    display : bool, default True
        Also show the value in the notebook's output.
    """
    from IPython.core.formatters import format_display_data
    from IPython.display import display as ipy_display

    mimebundle, metadata = format_display_data(variable)
    mime_prefix = "" if display else GLUE_PREFIX
    metadata["scrapbook"] = dict(name=name, mime_prefix=mime_prefix)
    ipy_display({mime_prefix + k: v for k, v in mimebundle.items()}, raw=True, metadata=metadata)

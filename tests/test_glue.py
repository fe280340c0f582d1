"""anonbook.glue writes exactly the output myst_nb.glue writes (the book's {glue} role reads it)."""

from __future__ import annotations

import importlib
from unittest import mock

import matplotlib
import numpy as np
import pandas as pd
import pytest

from anonbook import glue as ours

matplotlib.use("Agg")


def _captured(glue_fn, name, value, display):
    calls = []
    target = "IPython.display.display"
    with mock.patch(target, side_effect=lambda *a, **k: calls.append((a, k))):
        glue_fn(name, value, display=display)
    return calls


@pytest.mark.parametrize("value", [3, 0.125, "text", pd.DataFrame({"a": [1, 2]}), np.float64(2.5)])
@pytest.mark.parametrize("display", [True, False])
def test_same_output_as_myst_nb(value, display) -> None:
    myst_glue = importlib.import_module("myst_nb.ext.glue")
    with mock.patch.object(myst_glue, "ipy_display", side_effect=lambda *a, **k: theirs.append((a, k))):
        theirs: list = []
        myst_glue.glue("x", value, display=display)
    mine = _captured(ours.glue, "x", value, display)
    assert mine == theirs and len(mine) == 1
    (bundle,), kw = mine[0]
    assert kw["metadata"]["scrapbook"] == {"name": "x", "mime_prefix": "" if display else ours.GLUE_PREFIX}


def test_not_importing_sphinx() -> None:
    """The point of the copy: gluing does not load Sphinx (checked in a fresh interpreter)."""
    import subprocess
    import sys

    code = ("import sys; from anonbook.glue import glue; glue('x', 1, display=False); "
            "print('sphinx' in sys.modules, 'myst_nb' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split()[-2:] == ["False", "False"]

"""Synthetic data by sequential CART, the default method of synthpop (for [FW24] §4.7's prior framework, chapter 5).

Nowok, Raab and Dibben, J. Stat. Softw. 74(11), 2016; Reiter, J. Off. Stat. 21(3), 2005. The first column is
bootstrapped from its marginal; each next column :math:`x_j` gets a tree fitted on the original data, :math:`x_j \\sim
x_1..x_{j-1}` (at least ``min_leaf`` = 5 rows per leaf, synthpop's ``minbucket``), and each synthetic row draws
:math:`x_j` from the original values of its leaf. Categorical predictors are ordinal-coded; no smoothing. The paper
used SDV's CTGAN (PyTorch); ``py-synthpop`` 0.1.2 needs pandas < 2 (``Series.iteritems``) and NumPy's global state,
``DataSynthesizer`` 0.1.13 fails under NumPy 2 and took 94 s on a 7,088-row sample.

>>> import pandas as pd
>>> df = pd.DataFrame({"a": ["x", "y"] * 50, "b": [1.0, 2.0] * 50})
>>> syn = cart_synthesize(df, seed=0)
>>> syn.shape, sorted(syn["a"].unique()), bool((syn["b"] == syn["a"].map({"x": 1.0, "y": 2.0})).all())
((100, 2), ['x', 'y'], True)
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..validation import check_int, check_random_state

__all__ = ["cart_synthesize", "marginal_synthesize", "SYNTHESIZERS"]


def _codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray | None]:
    """Numeric columns as floats; others as integer codes (with their labels)."""
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        return col.to_numpy(dtype=float), None
    labels, uniques = pd.factorize(col.astype(object).where(col.notna(), "missing").astype(str), sort=True)
    return labels.astype(float), np.asarray(uniques, dtype=object)


def cart_synthesize(data: pd.DataFrame, n: int | None = None, *, min_leaf: int = 5,
                    kinds: Mapping[str, str] | None = None,
                    seed: int | np.random.Generator | None = 0) -> pd.DataFrame:
    """A synthetic copy of ``data`` by sequential CART (synthpop's default method).

    Parameters: ``data`` (pandas.DataFrame): The original rows (for [FW24] §4.7: the members). ``n`` (int, optional):
    Rows to generate (default: as many as ``data``). ``min_leaf`` (int, default 5): Smallest number of original rows
    in a leaf (synthpop's ``minbucket``). ``kinds`` (mapping, optional): ``"categorical"`` forces a numeric column to
    be treated as a category (classification tree); default: numeric columns are numeric. ``seed`` (int or
    numpy.random.Generator): Same seed, same synthetic data.

    Returns: pandas.DataFrame: ``n`` rows, the columns and dtypes of ``data`` (missing categorical values come back as
    the string ``"missing"``).
    """
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    if len(data) == 0 or data.shape[1] == 0:
        raise ValueError("cart_synthesize needs a table with at least one row and one column")
    n = len(data) if n is None else check_int("n", n, low=1, high=10_000_000)
    check_int("min_leaf", min_leaf, low=1)
    rng = check_random_state(seed)
    kinds = dict(kinds or {})
    cols = list(data.columns)
    X = np.empty((len(data), len(cols)))
    labels: dict[str, np.ndarray | None] = {}
    for j, c in enumerate(cols):
        col = data[c]
        if kinds.get(c) == "categorical" and pd.api.types.is_numeric_dtype(col):
            col = col.astype(str)
        X[:, j], labels[c] = _codes(col)
    S = np.empty((n, len(cols)))
    S[:, 0] = X[rng.integers(0, len(data), n), 0]
    for j in range(1, len(cols)):
        tree_cls = DecisionTreeRegressor if labels[cols[j]] is None else DecisionTreeClassifier
        tree = tree_cls(min_samples_leaf=min_leaf, random_state=int(rng.integers(2**31 - 1)))
        tree.fit(X[:, :j], X[:, j])
        leaf_orig = tree.apply(X[:, :j])
        order = np.argsort(leaf_orig, kind="stable")
        sorted_leaf = leaf_orig[order]
        leaf_syn = tree.apply(S[:, :j])
        start = np.searchsorted(sorted_leaf, leaf_syn, side="left")
        count = np.searchsorted(sorted_leaf, leaf_syn, side="right") - start
        pick = start + (rng.random(n) * count).astype(int)
        S[:, j] = X[order[pick], j]
    out = {}
    for j, c in enumerate(cols):
        if labels[c] is None:
            out[c] = S[:, j].astype(data[c].dtype) if pd.api.types.is_integer_dtype(data[c]) else S[:, j]
        else:
            values = labels[c][S[:, j].astype(int)]
            if kinds.get(c) == "categorical" and pd.api.types.is_numeric_dtype(data[c]):
                values = pd.to_numeric(pd.Series(values)).astype(data[c].dtype).to_numpy()
            out[c] = values
    return pd.DataFrame(out, columns=cols)


def marginal_synthesize(data: pd.DataFrame, n: int | None = None, *, seed: int | np.random.Generator | None = 0,
                        **_: object) -> pd.DataFrame:
    """A synthetic copy that keeps each column's distribution and nothing else.

    Every column is an independent bootstrap of the original column: the marginals are right, every relation between
    columns is gone. The crudest synthesizer, useful as the other extreme to CART.

    >>> syn = marginal_synthesize(pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]}), 1000, seed=0)
    >>> sorted(syn["a"].unique().tolist()), syn.shape
    ([1, 2, 3], (1000, 2))
    """
    if len(data) == 0:
        raise ValueError("marginal_synthesize needs at least one row")
    n = len(data) if n is None else check_int("n", n, low=1, high=10_000_000)
    rng = check_random_state(seed)
    return pd.DataFrame({c: data[c].to_numpy()[rng.integers(0, len(data), n)] for c in data.columns})


#: The synthesizers by name: sequential CART (synthpop's default) and independent marginals.
SYNTHESIZERS = {"cart": cart_synthesize, "marginals": marginal_synthesize}

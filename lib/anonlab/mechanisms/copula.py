"""Synthetic data from a Gaussian copula with the columns' own distributions (the ``copulas`` package).

Each column goes to (0, 1) by its empirical distribution (ties at random; categories ordered by frequency, SDV's
frequency encoding), ``copulas.multivariate.GaussianMultivariate`` fits and samples the normal scores' correlation,
and each coordinate comes back through the column's empirical quantile: marginals kept exactly, relations only as far
as a Gaussian dependence describes them. Sklar (1959); Patki, Wedge and Veeramachaneni, IEEE DSAA 2016.

>>> df = pd.DataFrame({"a": np.arange(200.0), "b": ["x"] * 150 + ["y"] * 50})
>>> syn = copula_synthesize(df, 1000, seed=0)
>>> syn.shape, sorted(syn["b"].unique()), bool(syn["a"].isin(df["a"]).all())
((1000, 2), ['x', 'y'], True)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonlab.validation import check_int, check_random_state

__all__ = ["copula_synthesize"]


def _order_key(col: pd.Series) -> np.ndarray:
    """Numbers as themselves; anything else as its frequency rank (most common first)."""
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        return col.to_numpy(dtype=float)
    text = col.astype(object).where(col.notna(), "missing").astype(str)
    counts = text.value_counts(sort=False)
    rank = pd.Series(np.arange(counts.size), index=counts.sort_values(ascending=False, kind="stable").index)
    return text.map(rank).to_numpy(dtype=float)


def copula_synthesize(data: pd.DataFrame, n: int | None = None, *,
                      seed: int | np.random.Generator | None = 0) -> pd.DataFrame:
    """A synthetic copy of ``data`` from a Gaussian copula over its empirical marginals.

    Parameters: ``data`` (pandas.DataFrame): The original rows (the members). ``n`` (int, optional): Rows to generate
    (default: as many as ``data``). ``seed`` (int or numpy.random.Generator): Same seed, same synthetic data (the
    tie-breaking draws and the copula's sampling).

    Returns: pandas.DataFrame: ``n`` rows, the columns and dtypes of ``data``, every value one of the column's
    observed values.
    """
    from copulas.multivariate import GaussianMultivariate

    if len(data) < 2 or data.shape[1] == 0:
        raise ValueError("copula_synthesize needs a table with at least two rows and one column")
    n = len(data) if n is None else check_int("n", n, low=1, high=10_000_000)
    rng = check_random_state(seed)
    size = len(data)
    scores, sorted_values = {}, {}
    for c in data.columns:
        key = _order_key(data[c])
        order = np.lexsort((rng.random(size), key))
        rank = np.empty(size)
        rank[order] = np.arange(size)
        scores[c] = (rank + rng.random(size)) / size
        sorted_values[c] = data[c].to_numpy()[order]
    model = GaussianMultivariate(distribution="copulas.univariate.UniformUnivariate",
                                 random_state=int(rng.integers(2**31 - 1)))
    model.fit(pd.DataFrame(scores))
    u = model.sample(n)
    out = {}
    for c in data.columns:
        pick = np.clip((u[c].to_numpy(dtype=float) * size).astype(np.int64), 0, size - 1)
        out[c] = sorted_values[c][pick]
    return pd.DataFrame(out, columns=data.columns).astype(data.dtypes.to_dict())

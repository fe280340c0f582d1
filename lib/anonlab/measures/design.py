"""The non-member framework's design matrix ([FW24] §4.4), built without scikit-learn's per-fit column machinery.

The matrix of :func:`anonlab.measures.nonmember._pipeline` (continuous attributes standardised, categorical ones
one-hot, ``ColumnTransformer``), entry for entry and with the same sparse-or-dense choice (``sparse_threshold`` 0.3),
from categories coded once per table (:func:`category_codes`: ``pandas.factorize``, sorted as the encoder sorts) and
assembled by :func:`one_hot`; the encoder's Python loops cost about a quarter of a fit. ``tests/test_nonmember.py``
checks matrices and predictions are identical.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["Codes", "category_codes", "one_hot", "Design", "fit_design", "SPARSE_THRESHOLD"]

#: ``ColumnTransformer``'s default: a stacked output with a density below this is kept sparse.
SPARSE_THRESHOLD = 0.3

CATEGORICAL, CONTINUOUS = "categorical", "continuous"


@dataclass(frozen=True)
class Codes:
    """A categorical column coded: ``codes[i]`` is row ``i``'s rank among ``labels`` (sorted prepared strings)."""

    codes: np.ndarray
    labels: tuple[str, ...]


def _prepared_strings(values: pd.Series) -> pd.Series:
    """The strings :func:`anonlab.measures.nonmember._prepare` makes of a categorical column (NaN: "missing")."""
    return values.astype(object).where(values.notna(), "missing").astype(str)


def _codes_by_value(values: pd.Series, uniques: object) -> bool:
    """May rows be grouped by their raw values (equal values surely give equal prepared strings)?

    True for integer and boolean columns and for columns of strings (and NaN); a float or mixed column (``1 == 1.0``,
    ``0.0 == -0.0``) is grouped by its prepared strings instead.
    """
    if values.dtype.kind in "iub":
        return True
    return values.dtype.kind == "O" and all(isinstance(x, str) for x in uniques if not pd.isna(x))


def category_codes(values: pd.Series) -> Codes:
    """Code a categorical column as the one-hot encoder orders it: by its prepared strings, sorted.

    ``OneHotEncoder`` takes a column's categories as ``sorted(set(strings))`` of the prepared strings; here
    ``pandas.factorize`` finds the distinct raw values once, their prepared strings are sorted, and each row gets the
    rank of its string.

    >>> c = category_codes(pd.Series(["b", "a", None, "b"]))
    >>> c.codes.tolist(), c.labels
    ([1, 0, 2, 1], ('a', 'b', 'missing'))
    """
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    if not _codes_by_value(values, uniques):
        codes, uniques = pd.factorize(_prepared_strings(values))
        strings = np.asarray(uniques, dtype=object)
    else:
        first = np.unique(codes, return_index=True)[1]
        strings = _prepared_strings(values.iloc[first]).to_numpy(dtype=object)
    labels = sorted(set(strings))
    rank = {s: i for i, s in enumerate(labels)}
    remap = np.array([rank[s] for s in strings], dtype=np.int64)
    return Codes(remap[codes] if codes.size else codes.astype(np.int64), tuple(labels))


def one_hot(codes: Sequence[np.ndarray], present: Sequence[np.ndarray]) -> object:
    """The one-hot block of rows coded ``codes`` (one array per column) over the categories ``present``.

    ``present[j]`` marks which of column ``j``'s categories the encoder was fitted on (those seen in its training
    rows); a row's category outside them gets no entry (``handle_unknown="ignore"``). The same CSR matrix as
    ``OneHotEncoder.transform``: columns in order, each column's categories in sorted order, float64 ones, int32
    indices.
    """
    from scipy import sparse

    n = codes[0].size
    sizes = [int(p.sum()) for p in present]
    offsets = np.cumsum([0] + sizes)
    cols = np.empty((n, len(codes)), dtype=np.int64)
    mask = np.empty((n, len(codes)), dtype=bool)
    for j, (c, p) in enumerate(zip(codes, present)):
        rank = np.where(p, np.cumsum(p) - 1, -1)
        r = rank[c]
        mask[:, j] = r >= 0
        cols[:, j] = r + offsets[j]
    indptr = np.empty(n + 1, dtype=np.int32)
    indptr[0] = 0
    np.sum(mask, axis=1, out=indptr[1:], dtype=indptr.dtype)
    np.cumsum(indptr[1:], out=indptr[1:])
    return sparse.csr_matrix((np.ones(indptr[-1]), cols.ravel()[mask.ravel()].astype(np.int32), indptr),
                             shape=(n, int(offsets[-1])), dtype=np.float64)


@dataclass
class Design:
    """A fitted design: the scaler of the continuous columns, the categories kept, and the output format."""

    scaler: object | None
    present: list[np.ndarray]
    sparse_output: bool

    def matrix(self, numeric: pd.DataFrame | None, codes: Sequence[np.ndarray]) -> object:
        """The design matrix of rows given by their prepared continuous columns and category codes."""
        blocks = []
        if self.scaler is not None:
            blocks.append(self.scaler.transform(numeric))
        if codes:
            blocks.append(one_hot(codes, self.present))
        return _stack(blocks, self.sparse_output)


def _stack(blocks: list, sparse_output: bool) -> object:
    """``ColumnTransformer._hstack``: a CSR stack of the blocks when sparse, else a dense ``numpy.hstack``."""
    from scipy import sparse

    if sparse_output:
        return sparse.hstack(blocks).tocsr()
    return np.hstack([b.toarray() if sparse.issparse(b) else b for b in blocks])


def _density(blocks: list) -> float | None:
    """The stacked output's density if some block is sparse (``ColumnTransformer.fit_transform``), else None."""
    from scipy import sparse

    if not any(sparse.issparse(b) for b in blocks):
        return None
    nnz = sum(b.nnz if sparse.issparse(b) else b.shape[0] * b.shape[1] for b in blocks)
    return nnz / sum(b.shape[0] * b.shape[1] for b in blocks)


def fit_design(numeric: pd.DataFrame | None, codes: Sequence[np.ndarray], n_categories: Sequence[int]
               ) -> tuple[Design, object]:
    """Fit the design on training rows; return it and their matrix (``ColumnTransformer.fit_transform``).

    ``numeric``: the prepared continuous known columns (``None`` if there are none); ``codes``: the categorical known
    columns' codes (:func:`category_codes`) on these rows, ``n_categories`` their number of labels. The scaler is
    scikit-learn's ``StandardScaler``; the categories kept are those present in the rows.
    """
    from sklearn.preprocessing import StandardScaler

    blocks, scaler = [], None
    if numeric is not None:
        scaler = StandardScaler()
        blocks.append(scaler.fit_transform(numeric))
    present = [np.bincount(c, minlength=k) > 0 for c, k in zip(codes, n_categories)]
    if codes:
        blocks.append(one_hot(codes, present))
    density = _density(blocks)
    design = Design(scaler, present, density is not None and density < SPARSE_THRESHOLD)
    return design, _stack(blocks, design.sparse_output)


def coded_columns(frames: Sequence[pd.DataFrame], columns: Sequence[str], memo: dict | None = None
                  ) -> dict[str, tuple[list[np.ndarray], int]]:
    """Code each categorical column over several tables at once: per column, the codes of each table and the count.

    Coding the tables together gives one category order for all of them (a target's category unseen in training then
    has a code the design does not keep). ``memo`` (``{key: (frames, value)}``, held by a caller whose frames are not
    changed meanwhile) keeps each column's codes for the next fit.
    """
    out = {}
    sizes = [len(f) for f in frames]
    cuts = np.cumsum(sizes)[:-1]
    for col in columns:
        key = ("codes", *map(id, frames), col)
        if memo is not None and key in memo:
            out[col] = memo[key][1]
            continue
        both = pd.concat([f[col] for f in frames], ignore_index=True)
        c = category_codes(both)
        out[col] = (np.split(c.codes, cuts), len(c.labels))
        if memo is not None:
            memo[key] = (tuple(frames), out[col])
    return out


def design_pair(train: pd.DataFrame, targets: pd.DataFrame, known: Sequence[str], kinds: Mapping[str, str],
                prepare: object, memo: dict | None = None) -> tuple[object, object]:
    """The matrices of the training rows and of the targets, as the pipeline's ``ColumnTransformer`` makes them.

    ``prepare`` is :func:`anonlab.measures.nonmember._prepare` (the continuous columns are prepared by it, so their
    floats are the pipeline's); ``memo``: see :func:`coded_columns`.
    """
    nums = [c for c in known if kinds[c] == CONTINUOUS]
    cats = [c for c in known if kinds[c] == CATEGORICAL]
    num_tr = prepare(train[nums], kinds) if nums else None
    num_te = prepare(targets[nums], kinds) if nums else None
    coded = coded_columns([train, targets], cats, memo)
    design, x_train = fit_design(num_tr, [coded[c][0][0] for c in cats], [coded[c][1] for c in cats])
    return x_train, design.matrix(num_te, [coded[c][0][1] for c in cats])

"""Census-style block tables, published exactly, after swapping (2010) or with DP noise (2020).

Each person type (sex × age bin × race × Hispanic origin, :mod:`anonlab.data.census_blocks`) falls in one cell of each
table, so a table is a 0/1 matrix ``A`` (cells × types) and all blocks' tables are ``T = X @ A.T``. The tables mirror
the 2010 SF1 / PL 94-171 block tables of the Bureau's reconstruction (P1, P12, P5, P11, P12A-I; :func:`table_spec`).
:func:`swap_records` (2010): a share ``swap_rate`` of people have race and Hispanic origin permuted across blocks
within sex × age bins (block sizes, sex × age and voting age kept; the real rate is confidential). :func:`dp_tables`
(2020, simplified): two-sided geometric noise of scale ``Δ/ε`` per cell (``Δ`` the number of tables, ``ε`` per block),
clipped at 0; not the TopDown Algorithm (chapter 4 discusses the difference).

>>> spec = table_spec("sf1")
>>> spec.names[:4]
('P1', 'P12', 'P5', 'P11')
>>> x = np.zeros((1, N_TYPES), dtype=int); x[0, [0, 0 + 14, 643]] = 1
>>> t = tabulate(x, spec)
>>> int(t[0, spec.slices["P1"]].sum()), int(t[0, spec.slices["P5"]].sum())
(3, 3)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..data.census_blocks import (
    N_AGE_BINS,
    N_GROUPS,
    N_RACES,
    N_SEX,
    N_TYPES,
    VOTING_AGE_BIN,
    BlockPopulation,
)
from ..validation import check_choice, check_number, check_random_state

__all__ = ["TABLE_SETS", "TableSpec", "table_spec", "tabulate", "swap_records", "dp_tables",
           "publish", "Publication"]

#: Table sets: the tables published per block.
TABLE_SETS = {
    "pl94": ("P1", "P5", "P11"),
    "sf1_basic": ("P1", "P12", "P5", "P11"),
    "sf1": ("P1", "P12", "P5", "P11", "P12A-G", "P12H", "P12I"),
}


def _type_attributes() -> dict[str, np.ndarray]:
    t = np.arange(N_TYPES)
    group = t % N_GROUPS
    age = (t // N_GROUPS) % N_AGE_BINS
    sex = t // (N_GROUPS * N_AGE_BINS)
    return {"sex": sex, "age_bin": age, "group": group, "race": group // 2, "hispanic": group % 2,
            "adult": (age >= VOTING_AGE_BIN).astype(int)}


def _table_cells(name: str) -> tuple[np.ndarray, int]:
    """Cell index of each type in table ``name`` (-1: not counted) and the number of cells."""
    a = _type_attributes()
    sexage = a["sex"] * N_AGE_BINS + a["age_bin"]
    n_sexage = N_SEX * N_AGE_BINS
    if name == "P1":
        return np.zeros(N_TYPES, dtype=int), 1
    if name == "P12":
        return sexage, n_sexage
    if name == "P5":
        return a["group"], N_GROUPS
    if name == "P11":
        return a["adult"] * N_GROUPS + a["group"], 2 * N_GROUPS
    if name == "P12A-G":
        return a["race"] * n_sexage + sexage, N_RACES * n_sexage
    if name == "P12H":
        return np.where(a["hispanic"] == 1, sexage, -1), n_sexage
    if name == "P12I":
        return np.where((a["race"] == 0) & (a["hispanic"] == 0), sexage, -1), n_sexage
    raise ValueError(f"unknown table {name!r}")


@dataclass(frozen=True)
class TableSpec:
    """A set of published tables as one incidence matrix.

    Attributes: ``names``: The tables, in order. ``matrix``: Sparse 0/1 matrix (cells × person types): ``tables =
    counts @ matrix.T``. ``slices``: Columns of each table in the tabulated array.
    """

    names: tuple[str, ...]
    matrix: sp.csr_matrix
    slices: dict[str, slice]

    @property
    def n_cells(self) -> int:
        return int(self.matrix.shape[0])


def table_spec(table_set: str = "sf1") -> TableSpec:
    """The incidence matrix of a table set (see :data:`TABLE_SETS`).

    >>> table_spec("sf1").n_cells
    503
    """
    check_choice("table_set", table_set, list(TABLE_SETS))
    blocks, slices, start = [], {}, 0
    for name in TABLE_SETS[table_set]:
        cell, n = _table_cells(name)
        keep = cell >= 0
        m = sp.csr_matrix((np.ones(int(keep.sum())), (cell[keep], np.flatnonzero(keep))), shape=(n, N_TYPES))
        blocks.append(m)
        slices[name] = slice(start, start + n)
        start += n
    return TableSpec(tuple(TABLE_SETS[table_set]), sp.vstack(blocks).tocsr(), slices)


def tabulate(type_counts: np.ndarray, spec: TableSpec) -> np.ndarray:
    """All tables of all blocks: ``type_counts @ A.T`` (blocks × cells), integers.

    Each table sums to the block's population, except P12H and P12I (subpopulations).
    """
    x = np.asarray(type_counts)
    return np.asarray((spec.matrix @ x.T).T).astype(np.int64)


def swap_records(pop: BlockPopulation, swap_rate: float, seed: int | np.random.Generator | None = 0
                 ) -> BlockPopulation:
    """Swap race and Hispanic origin of a share of people across blocks, within sex × age bin.

    The people selected (each with probability ``swap_rate``) are grouped by sex × age bin; within a group their
    (race, Hispanic) values are randomly permuted, i.e. moved between the blocks of the group. Block sizes, the sex ×
    age and the voting-age counts are unchanged.

    >>> from anonlab.data.census_blocks import generate_blocks
    >>> pop = generate_blocks(20, seed=0)
    >>> sw = swap_records(pop, 0.5, seed=1)
    >>> bool((sw.people[["block", "sex", "age"]] == pop.people[["block", "sex", "age"]]).all().all())
    True
    """
    check_number("swap_rate", swap_rate, low=0, high=1)
    rng = check_random_state(seed)
    people = pop.people.copy()
    chosen = np.flatnonzero(rng.random(len(people)) < swap_rate)
    if chosen.size:
        stratum = (people["sex"].to_numpy() * N_AGE_BINS + people["age_bin"].to_numpy())[chosen]
        key = rng.random(chosen.size)
        order = np.lexsort((key, stratum))  # chosen people shuffled within each stratum
        by_stratum = np.lexsort((np.arange(chosen.size), stratum))  # in stratum order, stable
        group = people["group"].to_numpy().copy()
        group[chosen[by_stratum]] = group[chosen[order]]
        people["group"] = group
        people["race"] = group // 2
        people["hispanic"] = group % 2
        people["type"] = (people["sex"] * N_AGE_BINS + people["age_bin"]) * N_GROUPS + people["group"]
    return BlockPopulation(people, pop.block_sizes, pop.block_mix, pop.alpha)


def dp_tables(exact: np.ndarray, spec: TableSpec, epsilon: float,
              seed: int | np.random.Generator | None = 0) -> np.ndarray:
    """Exact tables plus discrete Laplace noise of scale ``len(spec.names) / epsilon``, clipped at 0.

    The two-sided geometric mechanism with ``P(noise = k) ∝ exp(-ε|k| / Δ)`` is ε-DP per block for ``Δ`` = number of
    tables (adding or removing one person changes one cell of each table by 1) (Ghosh, Roughgarden & Sundararajan
    2012). Clipping at zero is post-processing.

    >>> t = dp_tables(np.array([[5, 0, 5]]), table_spec("pl94"), 1e9, seed=0)
    >>> t.tolist()
    [[5, 0, 5]]
    """
    check_number("epsilon", epsilon, low=0, low_inclusive=False)
    rng = check_random_state(seed)
    delta = len(spec.names)
    q = np.exp(-epsilon / delta)
    shape = np.shape(exact)
    # difference of two geometric variables on {0, 1, ...} with P(k) ∝ q^k is discrete Laplace
    noise = rng.geometric(1 - q, size=shape) - rng.geometric(1 - q, size=shape)
    return np.maximum(np.asarray(exact) + noise, 0).astype(np.int64)


@dataclass(frozen=True)
class Publication:
    """What the data owner publishes per block, and how.

    ``tables`` (blocks × cells), ``mechanism`` ("exact", "swapping", "dp"), ``parameter`` (swap rate or ε; NaN for
    exact), ``spec``.
    """

    tables: np.ndarray
    mechanism: str
    parameter: float
    spec: TableSpec

    @property
    def exact(self) -> bool:
        """Are the tables consistent counts of a population (exact or swapped)?"""
        return self.mechanism in ("exact", "swapping")

    def group_table(self) -> np.ndarray:
        """The published race × Hispanic table (P5) per block (blocks × 14)."""
        return self.tables[:, self.spec.slices["P5"]]


def publish(pop: BlockPopulation, mechanism: str, *, table_set: str = "sf1", swap_rate: float = 0.0,
            epsilon: float = 1.0, seed: int | np.random.Generator | None = 0) -> Publication:
    """Publish a population's block tables exactly, after swapping, or with DP noise.

    >>> from anonlab.data.census_blocks import generate_blocks
    >>> pub = publish(generate_blocks(5, seed=0), "dp", table_set="pl94", epsilon=2.0)
    >>> pub.tables.shape, pub.mechanism
    ((5, 43), 'dp')
    """
    check_choice("mechanism", mechanism, ["exact", "swapping", "dp"])
    spec = table_spec(table_set)
    if mechanism == "swapping":
        pop = swap_records(pop, swap_rate, seed)
    tables = tabulate(pop.type_counts(), spec)
    if mechanism == "dp":
        tables = dp_tables(tables, spec, epsilon, seed)
    param = {"exact": float("nan"), "swapping": float(swap_rate), "dp": float(epsilon)}[mechanism]
    return Publication(tables, mechanism, param, spec)

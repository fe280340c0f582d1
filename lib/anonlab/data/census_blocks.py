"""Synthetic census blocks: people with block, sex, age, race and Hispanic origin (model: chapter 4, "The synthetic
population").

No package ships the 2010 block tables or microdata, so the population's properties are stated parameters: block sizes
``1 + NegBin(mean - 1, shape)`` capped at ``max_block_size`` (2010: about 50 people per populated block); sex and
single-year age from the 2010 national distribution (Howden & Meyer 2011, C2010BR-03), independent of race and block;
7 races × Hispanic origin = 14 groups with the 2010 national mix (Humes, Jones & Ramirez 2011, C2010BR-02); block
*b*'s mix ``p_b ~ Dirichlet(alpha · national mix)``, :func:`calibrate_alpha` finding the ``alpha`` at which a stated
share of people belong to their block's majority group.

>>> pop = generate_blocks(50, mean_block_size=20, seed=1)
>>> pop.people.columns.tolist()
['block', 'sex', 'age', 'age_bin', 'race', 'hispanic', 'group', 'type']
>>> int(pop.block_sizes.sum()) == len(pop.people)
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..validation import check_int, check_number, check_random_state

__all__ = [
    "RACES",
    "GROUPS",
    "AGE_BIN_EDGES",
    "AGE_BIN_LABELS",
    "N_SEX",
    "N_AGE_BINS",
    "N_RACES",
    "N_GROUPS",
    "N_TYPES",
    "NATIONAL_GROUP_SHARES",
    "AGE_GROUP_SHARES",
    "SHARE_MALE",
    "BlockPopulation",
    "generate_blocks",
    "block_sizes",
    "age_bin",
    "person_type",
    "majority_share",
    "calibrate_alpha",
]

#: Race categories of the 2010 tables: six races alone and "two or more races".
RACES = ("White", "Black", "AIAN", "Asian", "NHPI", "Other", "Two+")
#: The 14 race × Hispanic-origin groups, ``race * 2 + hispanic``.
GROUPS = tuple(f"{r}{', Hispanic' if h else ''}" for r in RACES for h in (0, 1))
#: SF1 table P12's 23 age bins (lower edges; the last bin is 85 and over).
AGE_BIN_EDGES = (0, 5, 10, 15, 18, 20, 21, 22, 25, 30, 35, 40, 45, 50, 55, 60, 62, 65, 67, 70, 75, 80, 85)
AGE_BIN_LABELS = tuple(
    f"{lo}-{hi - 1}" if hi - 1 > lo else f"{lo}"
    for lo, hi in zip(AGE_BIN_EDGES[:-1], AGE_BIN_EDGES[1:])
) + ("85+",)
N_SEX, N_AGE_BINS, N_RACES = 2, len(AGE_BIN_EDGES), len(RACES)
N_GROUPS = 2 * N_RACES
#: Person types: sex × age bin × race × Hispanic origin (the reconstruction's variables).
N_TYPES = N_SEX * N_AGE_BINS * N_GROUPS
VOTING_AGE_BIN = AGE_BIN_EDGES.index(18)

#: 2010 share of the US population in each race × Hispanic group, in percent
#: (C2010BR-02 Table 1 and 2; rows in the order of :data:`GROUPS`:
#: not Hispanic, Hispanic for each race).
NATIONAL_GROUP_SHARES = np.array([
    63.7, 8.7,   # White alone
    12.2, 0.4,   # Black alone
    0.7, 0.2,    # American Indian and Alaska Native alone
    4.7, 0.1,    # Asian alone
    0.15, 0.02,  # Native Hawaiian and Other Pacific Islander alone
    0.2, 6.0,    # Some Other Race alone
    1.9, 1.0,    # Two or more races
]) / 100
NATIONAL_GROUP_SHARES = NATIONAL_GROUP_SHARES / NATIONAL_GROUP_SHARES.sum()
#: 2010 share of the US population in five-year age groups 0-4, ..., 80-84, 85+ (C2010BR-03, Table 1), percent.
AGE_GROUP_SHARES = np.array([6.5, 6.6, 6.7, 7.1, 7.0, 6.8, 6.5, 6.5, 6.8, 7.4, 7.2, 6.4, 5.4,
                             4.0, 3.0, 2.4, 1.9, 1.8]) / 100
AGE_GROUP_SHARES = AGE_GROUP_SHARES / AGE_GROUP_SHARES.sum()
#: 2010 share of males (C2010BR-03).
SHARE_MALE = 0.492
_OLDEST = 100  # ages in the 85+ group are drawn uniformly from 85..99


def age_bin(age: np.ndarray) -> np.ndarray:
    """The SF1 P12 age bin (0..22) of single-year ages.

    >>> age_bin(np.array([0, 4, 5, 17, 18, 21, 64, 85, 99])).tolist()
    [0, 0, 1, 3, 4, 6, 16, 22, 22]
    """
    return np.searchsorted(np.asarray(AGE_BIN_EDGES), np.asarray(age), side="right") - 1


def person_type(sex: np.ndarray, age_bin_: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Index of the person type ``(sex, age bin, race × Hispanic group)`` in 0..N_TYPES-1.

    >>> person_type(np.array([0, 1]), np.array([0, 22]), np.array([0, 13])).tolist()
    [0, 643]
    """
    return (np.asarray(sex) * N_AGE_BINS + np.asarray(age_bin_)) * N_GROUPS + np.asarray(group)


@dataclass(frozen=True)
class BlockPopulation:
    """A synthetic population of census blocks.

    Attributes: ``people``: One row per person: ``block``, ``sex`` (0 male, 1 female), ``age`` (years), ``age_bin``
    (P12 bin), ``race`` (index into :data:`RACES`), ``hispanic`` (0/1), ``group`` (``race * 2 + hispanic``), ``type``
    (:func:`person_type`). ``block_sizes``: Number of people per block. ``block_mix``: Each block's race × Hispanic
    mix ``p_b`` (n_blocks × 14). ``alpha``: The Dirichlet concentration used (homogeneity; smaller is more
    homogeneous).
    """

    people: pd.DataFrame
    block_sizes: np.ndarray
    block_mix: np.ndarray
    alpha: float

    @property
    def n_blocks(self) -> int:
        return int(self.block_sizes.size)

    def type_counts(self) -> np.ndarray:
        """Counts of each person type per block (n_blocks × N_TYPES), the true reconstruction target."""
        return np.bincount(self.people["block"].to_numpy() * N_TYPES + self.people["type"].to_numpy(),
                           minlength=self.n_blocks * N_TYPES).reshape(self.n_blocks, N_TYPES)

    def group_counts(self) -> np.ndarray:
        """Counts of each race × Hispanic group per block (n_blocks × 14)."""
        return np.bincount(self.people["block"].to_numpy() * N_GROUPS + self.people["group"].to_numpy(),
                           minlength=self.n_blocks * N_GROUPS).reshape(self.n_blocks, N_GROUPS)


def block_sizes(n_blocks: int, mean_block_size: float = 50.0, shape: float = 0.6,
                max_block_size: int = 1000, seed: int | np.random.Generator | None = 0) -> np.ndarray:
    """Block sizes ``1 + NegBin(mean - 1, shape)``, redrawn above ``max_block_size``.

    The negative binomial with mean ``m - 1`` and shape ``k`` has variance ``(m - 1) + (m - 1)^2 / k``: a small ``k``
    gives many blocks of a few people and a long tail, as in the 2010 census.

    >>> s = block_sizes(10_000, 50, 0.6, seed=0)
    >>> int(s.min()) >= 1, round(float(s.mean()))
    (True, 50)
    """
    check_int("n_blocks", n_blocks, low=1)
    check_number("mean_block_size", mean_block_size, low=1)
    check_number("shape", shape, low=0, low_inclusive=False)
    check_int("max_block_size", max_block_size, low=1)
    rng = check_random_state(seed)
    m = mean_block_size - 1
    if m == 0:
        return np.ones(n_blocks, dtype=np.int64)
    p = shape / (shape + m)
    sizes = 1 + rng.negative_binomial(shape, p, size=n_blocks)
    for _ in range(100):
        over = sizes > max_block_size
        if not over.any():
            break
        sizes[over] = 1 + rng.negative_binomial(shape, p, size=int(over.sum()))
    return np.minimum(sizes, max_block_size).astype(np.int64)


def _draw_ages(n: int, rng: np.random.Generator) -> np.ndarray:
    five = rng.choice(AGE_GROUP_SHARES.size, size=n, p=AGE_GROUP_SHARES)
    width = np.where(five == AGE_GROUP_SHARES.size - 1, _OLDEST - 85, 5)
    return (5 * five + np.floor(rng.random(n) * width)).astype(np.int64)


def _dirichlet(concentration: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Dirichlet draws that stay exact for tiny concentrations (log-space Gamma: G(a) = G(a+1) U^(1/a))."""
    a = np.asarray(concentration, float)
    log_g = np.full((n, a.size), -np.inf)
    pos = a > 0
    log_g[:, pos] = (np.log(rng.gamma(a[pos] + 1, size=(n, int(pos.sum()))))
                     + np.log(rng.random((n, int(pos.sum())))) / a[pos])
    log_g -= log_g.max(axis=1, keepdims=True)
    mix = np.exp(log_g)
    return mix / mix.sum(axis=1, keepdims=True)


def generate_blocks(n_blocks: int, *, mean_block_size: float = 50.0, size_shape: float = 0.6,
                    max_block_size: int = 1000, alpha: float = 0.3,
                    group_shares: np.ndarray | None = None,
                    seed: int | np.random.Generator | None = 0) -> BlockPopulation:
    """Draw a synthetic population of census blocks (see the module docstring).

    Parameters: ``n_blocks``: Number of blocks. ``mean_block_size``, ``size_shape``, ``max_block_size``: Block-size
    distribution (:func:`block_sizes`). ``alpha``: Homogeneity: block mixes are ``Dirichlet(alpha · group_shares)``;
    smaller is more homogeneous. ``group_shares``: National race × Hispanic mix (default
    :data:`NATIONAL_GROUP_SHARES`). ``seed``: Seed or generator.
    """
    check_number("alpha", alpha, low=0, low_inclusive=False)
    rng = check_random_state(seed)
    shares = NATIONAL_GROUP_SHARES if group_shares is None else np.asarray(group_shares, float)
    if shares.shape != (N_GROUPS,) or (shares < 0).any() or shares.sum() <= 0:
        raise ValueError(f"group_shares must be {N_GROUPS} non-negative shares, got shape {shares.shape}")
    shares = shares / shares.sum()
    sizes = block_sizes(n_blocks, mean_block_size, size_shape, max_block_size, rng)
    mix = _dirichlet(alpha * shares, n_blocks, rng)
    block = np.repeat(np.arange(n_blocks), sizes)
    n = block.size
    # inverse-CDF draw of each person's group from their block's mix (vectorised)
    cdf = np.cumsum(mix, axis=1)
    u = rng.random(n) * cdf[block, -1]
    group = (u[:, None] > cdf[block]).sum(axis=1)
    group = np.minimum(group, N_GROUPS - 1)
    sex = (rng.random(n) >= SHARE_MALE).astype(np.int64)
    age = _draw_ages(n, rng)
    abin = age_bin(age)
    people = pd.DataFrame({
        "block": block, "sex": sex, "age": age, "age_bin": abin, "race": group // 2,
        "hispanic": group % 2, "group": group, "type": person_type(sex, abin, group),
    })
    return BlockPopulation(people, sizes, mix, float(alpha))


def majority_share(group_counts: np.ndarray) -> float:
    """Share of people who belong to their block's largest race × Hispanic group.

    With ties, each tied group counts once (the share a majority guess gets right when it picks one of them).

    >>> majority_share(np.array([[3, 1], [2, 2]]))
    0.625
    """
    g = np.asarray(group_counts)
    return float(g.max(axis=1).sum() / g.sum())


def calibrate_alpha(target_share: float, *, n_blocks: int = 2000, mean_block_size: float = 50.0,
                    size_shape: float = 0.6, max_block_size: int = 1000, seed: int = 0,
                    low: float = 1e-3, high: float = 100.0, iterations: int = 30) -> float:
    """The homogeneity ``alpha`` at which :func:`majority_share` equals ``target_share``.

    Bisection on ``log(alpha)`` over pilot populations drawn with a fixed seed (the share falls as ``alpha`` grows).
    This calibrates an *input* of the population (how segregated blocks are), not any attack's outcome.

    >>> a = calibrate_alpha(0.75, n_blocks=300, iterations=12)
    >>> 0.01 < a < 10
    True
    """
    check_number("target_share", target_share, low=0, high=1, low_inclusive=False, high_inclusive=False)

    def share(a: float) -> float:
        pop = generate_blocks(n_blocks, mean_block_size=mean_block_size, size_shape=size_shape,
                              max_block_size=max_block_size, alpha=a, seed=seed)
        return majority_share(pop.group_counts())

    lo, hi = np.log(low), np.log(high)
    if share(np.exp(hi)) > target_share or share(np.exp(lo)) < target_share:
        raise ValueError(f"target_share {target_share} is not reachable with alpha in [{low}, {high}]")
    for _ in range(iterations):
        mid = (lo + hi) / 2
        if share(float(np.exp(mid))) > target_share:
            lo = mid
        else:
            hi = mid
    return float(np.exp((lo + hi) / 2))

"""The data sets of the Diffix attacks (Gadotti et al. 2019, §4), prepared as the paper describes.

Each preparation returns a :class:`DiffixDataset`: one row per user, the
attributes an attacker may know, and a binary secret attribute (1 = the
positive class). Built on the book's loaders (:mod:`anonlab.data`); nothing is
downloaded here.

- :func:`complete_k`: the synthetic *Complete_k* (§4, "Evaluation of the
  attack alone"): every k-tuple over ``{1, ..., B}`` once, with a random secret
  bit, so every user is unique on her k attributes while k - 1 attributes
  always select ``B`` users.
- :func:`adult`: ADULT, 30,162 records without missing values, 11 attributes
  including the salary class as the secret (§4, dataset 1).
- :func:`census`: CENSUS, the KDD Census-Income training file, 199,523
  records, 42 attributes including total personal income, digitised (§4,
  dataset 3).
- :func:`german_credit`: the UCI Statlog German credit data (1,000 records,
  21 attributes), the book's small real stand-in for the paper's CREDIT (UCI
  Credit Approval, 690 records, 16 attributes), which no package ships.
- The CDR data set (2,000,000 synthetic phone-metadata records) is not
  available.

:func:`uniqueness` gives the ground truth the attacks are scored against:
which records are unique and which are *value-unique* on a set of attributes
(§3.2: every record sharing the restricted record has the same secret).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from anonlab.validation import check_columns, check_random_state

__all__ = [
    "DiffixDataset",
    "ADULT_ATTRIBUTES",
    "DATASETS",
    "complete_k",
    "adult",
    "census",
    "german_credit",
    "load_diffix_dataset",
    "shuffle_secret",
    "CENSUS_SECRETS",
    "census_secret_variant",
    "dataset_table",
    "uniqueness",
    "value_unique_classes",
]

#: The 10 non-secret ADULT attributes used here. The paper says only "11
#: attributes, incl. salary class"; this is the 8 quasi-identifiers of the
#: common ADULT benchmark (age, workclass, education, marital status,
#: occupation, race, sex, native country) plus relationship and hours per
#: week. Dropped: fnlwgt (a survey weight, nearly unique per record),
#: education_num (a recoding of education), capital_gain and capital_loss.
ADULT_ATTRIBUTES: list[str] = [
    "age", "workclass", "education", "marital_status", "occupation", "relationship",
    "race", "sex", "hours_per_week", "native_country",
]  # fmt: skip


@dataclass(frozen=True)
class DiffixDataset:
    """A table ready for :class:`anonlab.mechanisms.diffix.DiffixProxy`.

    Attributes
    ----------
    name : str
        Short name, also the SQL table name (``"adult"``).
    data : pandas.DataFrame
        One row per user: the ``attributes`` and the ``secret`` column (0/1).
    attributes : list of str
        Attributes an attacker may know (``A_D`` without the secret).
    secret : str
        The binary secret attribute; 1 is the positive class.
    positive : str
        What ``secret = 1`` means.
    sources : list of str
        Manifest names of the files used (for provenance); empty if synthetic.
    note : str
        How it was prepared, and how it differs from the paper's.
    """

    name: str
    data: pd.DataFrame = field(repr=False)
    attributes: list[str]
    secret: str
    positive: str
    sources: list[str]
    note: str = ""

    @property
    def n_records(self) -> int:
        return len(self.data)

    @property
    def n_attributes(self) -> int:
        """Attributes including the secret (the paper's count)."""
        return len(self.attributes) + 1

    @property
    def majority(self) -> int:
        """The most common secret value (0 on a tie): what a guesser who knows only the base rate says."""
        return int(np.bincount(self.data[self.secret].to_numpy().astype(int), minlength=2).argmax())

    def domains(self) -> dict[str, np.ndarray]:
        """Sorted distinct values of every attribute (the schema an attacker may know)."""
        return {a: np.sort(self.data[a].unique()) for a in self.attributes}


def complete_k(k: int, B: int = 12, seed: int | np.random.Generator = 0) -> DiffixDataset:
    """The synthetic Complete_k data set (Gadotti et al. 2019, §4).

    Every k-tuple with values in ``{1, ..., B}`` appears once (``B**k``
    records), followed by a secret bit drawn uniformly at random. Every user
    is unique on her k attributes, and any ``k - 1`` of them select exactly
    ``B`` users, so with ``B = 12`` the differential attack's queries are
    rarely bucket suppressed.

    Parameters
    ----------
    k : int
        Number of attributes, 1 <= k <= 7 (the paper stops at 6 for memory;
        ``B**k`` must stay below 40 million rows).
    B : int, default 12
        Values per attribute, >= 2.
    seed : int or numpy.random.Generator
        Source of the secret bits.

    Returns
    -------
    DiffixDataset
        Columns ``a1 ... ak`` (int8) and ``s`` (int8).

    Examples
    --------
    >>> ds = complete_k(2, B=3, seed=1)
    >>> ds.n_records, ds.attributes
    (9, ['a1', 'a2'])
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= 7:
        raise ValueError(f"k must be an integer in [1, 7], got {k!r}")
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 2:
        raise ValueError(f"B must be an integer >= 2, got {B!r}")
    if B**k > 40_000_000:
        raise ValueError(f"Complete_k has B**k = {B**k:,} records, too many (at most 40 million)")
    rng = check_random_state(seed)
    n = int(B) ** int(k)
    idx = np.arange(n, dtype=np.int64)
    cols = {}
    for j in range(k):  # a1 varies slowest: lexicographic order of the tuples
        cols[f"a{j + 1}"] = ((idx // int(B) ** (k - 1 - j)) % B + 1).astype(np.int8)
    cols["s"] = rng.integers(0, 2, size=n).astype(np.int8)
    return DiffixDataset(
        name="complete", data=pd.DataFrame(cols), attributes=[f"a{j + 1}" for j in range(k)],
        secret="s", positive="random bit 1", sources=[],
        note=f"Complete_{k} with B = {B}: {n:,} records, every {k}-tuple over 1..{B} once.",
    )


def adult(attributes: Sequence[str] | None = None) -> DiffixDataset:
    """ADULT as the Diffix paper uses it: 30,162 records, 11 attributes, salary class secret.

    The UCI Adult training file (:func:`anonlab.data.load_adult`) without the
    2,399 rows that have a missing value; secret ``income`` is 1 for
    ``>50K``. The paper does not list its 11 attributes; by default the 10
    of :data:`ADULT_ATTRIBUTES` plus the secret.

    Parameters
    ----------
    attributes : list of str, optional
        Other Adult columns to use instead of :data:`ADULT_ATTRIBUTES`.
    """
    from anonlab.data import load_adult

    df = load_adult("train", drop_missing="any")
    attrs = list(ADULT_ATTRIBUTES if attributes is None else attributes)
    check_columns("adult attributes", attrs, [c for c in df.columns if c != "income"])
    data = df[attrs].copy()
    data["income"] = (df["income"] == ">50K").astype("int8")
    return DiffixDataset(
        name="adult", data=data, attributes=attrs, secret="income", positive="salary > 50K",
        sources=["adult-train"],
        note=("UCI Adult training file, rows with a missing value dropped (30,162 left). "
              "Attributes: " + ", ".join(attrs) + "; secret: salary class (1 = >50K)."),
    )


def census(attributes: Sequence[str] | None = None) -> DiffixDataset:
    """CENSUS as the Diffix paper uses it: KDD Census-Income, 199,523 records, 42 attributes.

    The training file (:func:`anonlab.data.load_census_income`). The secret is
    total personal income, which the file records digitised as the class
    ``- 50000`` / ``50000+``; we read the paper's "null income as negative
    condition" as: 0 for ``- 50000`` (the negative class), 1 for ``50000+``.
    All 41 other columns are attributes (including ``instance_weight``, a
    survey weight, since the paper counts 42 attributes).

    Parameters
    ----------
    attributes : list of str, optional
        A subset of the 41 columns instead of all of them.
    """
    from anonlab.data import load_census_income

    df = load_census_income("train")
    available = [c for c in df.columns if c != "income"]
    attrs = list(available if attributes is None else attributes)
    check_columns("census attributes", attrs, available)
    data = df[attrs].copy()
    data["income"] = (df["income"] == "50000+").astype("int8")
    return DiffixDataset(
        name="census", data=data, attributes=attrs, secret="income",
        positive="total personal income class 50000+", sources=["census-income-train"],
        note=("KDD Census-Income training file (199,523 records); secret: income class "
              "(1 = 50000+, 0 = - 50000); " + f"{len(attrs)} attributes."),
    )


def german_credit(attributes: Sequence[str] | None = None) -> DiffixDataset:
    """UCI German credit (1,000 records): the book's stand-in for the paper's CREDIT.

    The paper's CREDIT is the UCI Credit Approval data (690 records, 16
    attributes, secret: credit accepted), which no package ships. German credit
    is a small real credit data set of the same kind; secret ``credit_risk``
    is 1 for a good risk (credit granted), and the 20 other columns are the
    attributes.
    """
    from anonlab.data import load_german_credit

    df = load_german_credit()
    available = [c for c in df.columns if c != "credit_risk"]
    attrs = list(available if attributes is None else attributes)
    check_columns("german attributes", attrs, available)
    data = df[attrs].copy()
    data["credit_risk"] = (df["credit_risk"] == "good").astype("int8")
    return DiffixDataset(
        name="german", data=data, attributes=attrs, secret="credit_risk",
        positive="good credit risk", sources=["german-credit"],
        note=("UCI Statlog German credit (1,000 records, 20 attributes + class), a stand-in for "
              "the paper's CREDIT (UCI Credit Approval, 690 records), which is not available."),
    )


#: Names accepted by :func:`load_diffix_dataset`.
DATASETS = ("adult", "census", "german")


def load_diffix_dataset(name: str) -> DiffixDataset:
    """One of the real data sets by name: ``"adult"``, ``"census"`` or ``"german"``.

    ``"credit"`` and ``"cdr"`` raise ``ValueError`` explaining that the data
    are not available (German credit stands in for CREDIT).
    """
    if name == "adult":
        return adult()
    if name == "census":
        return census()
    if name == "german":
        return german_credit()
    if name == "credit":
        raise ValueError("the paper's CREDIT (UCI Credit Approval) is not available here; "
                         "use 'german' (UCI German credit), the book's stand-in")
    if name == "cdr":
        raise ValueError("the paper's CDR data set (synthetic phone metadata) is not available")
    raise ValueError(f"dataset must be one of {', '.join(DATASETS)}, got {name!r}")


def shuffle_secret(ds: DiffixDataset, seed: int | np.random.Generator = 0) -> DiffixDataset:
    """The data set with its secret column randomly permuted across records.

    Keeps the secret's marginal distribution and destroys any correlation with
    the attributes (§4: "a modified version of the ADULT dataset where
    sensitive attributes have been randomly sampled").
    """
    rng = check_random_state(seed)
    data = ds.data.copy()
    data[ds.secret] = rng.permutation(data[ds.secret].to_numpy())
    return replace(ds, name=ds.name, data=data,
                   note=ds.note + " Secret randomly permuted across records.")


#: CENSUS's secret read three ways ([G19] §4 leaves it open); the first is :func:`census`'s.
CENSUS_SECRETS = ("income class 50000+ = 1", "income class below 50000 = 1",
                  "any income recorded = 1 (wage, capital gains or dividends > 0)")


def census_secret_variant(census: DiffixDataset, reading: str) -> DiffixDataset:
    """CENSUS with its secret read as ``reading`` (one of :data:`CENSUS_SECRETS`).

    The file records total personal income only as the class ``- 50000`` /
    ``50000+``; [G19] §4 says "total personal income (digitized, null income
    as negative condition)". The readings: the class 50000+ as 1 (the
    book's); the other class as 1; or 1 for anyone with a recorded income
    (``wage_per_hour``, ``capital_gains`` or ``dividends_from_stocks`` > 0),
    0 for a null one. The attributes stay the 41 columns of the file.
    """
    if reading not in CENSUS_SECRETS:
        raise ValueError(f"reading must be one of {CENSUS_SECRETS}, got {reading!r}")
    data = census.data.copy()
    if reading == CENSUS_SECRETS[1]:
        data[census.secret] = (1 - census.data[census.secret]).astype("int8")
    elif reading == CENSUS_SECRETS[2]:
        data[census.secret] = ((data["wage_per_hour"] > 0) | (data["capital_gains"] > 0)
                               | (data["dividends_from_stocks"] > 0)).astype("int8")
    return replace(census, data=data, positive=reading)


def dataset_table(datasets: Sequence[DiffixDataset | None]) -> pd.DataFrame:
    """Records, attributes and the secret's positive value of each data set (``None`` entries skipped)."""
    rows = [{"data set": ds.name, "records": ds.n_records, "attributes (with secret)": ds.n_attributes,
             "secret = 1": ds.positive, "share of secret = 1": ds.data[ds.secret].mean()}
            for ds in datasets if ds is not None]
    return pd.DataFrame(rows).set_index("data set")


def uniqueness(data: pd.DataFrame, attributes: Sequence[str], secret: str) -> pd.DataFrame:
    """Per record: is it unique, and value-unique, on ``attributes``?

    A record ``x`` is *unique* on ``A`` if no other record shares ``x^(A)``;
    it is *value-unique* for the secret ``s`` if every record ``y`` with
    ``y^(A) = x^(A)`` also has ``y^(s) = x^(s)`` (Gadotti et al. 2019, §3.2).

    Parameters
    ----------
    data : pandas.DataFrame
    attributes : list of str
        The restricted record's attributes (non-empty).
    secret : str

    Returns
    -------
    pandas.DataFrame
        Same index as ``data``; columns ``class_size`` (records sharing
        ``x^(A)``), ``unique``, ``value_unique``.

    Examples
    --------
    >>> df = pd.DataFrame({"a": [1, 1, 2, 3, 3], "s": [0, 0, 1, 0, 1]})
    >>> uniqueness(df, ["a"], "s")["value_unique"].tolist()
    [True, True, True, False, False]
    """
    attrs = list(attributes)
    if not attrs:
        raise ValueError("attributes must name at least one column")
    check_columns("data attributes", attrs, [c for c in data.columns if c != secret])
    codes = _group_codes(data, attrs)
    size = np.bincount(codes)[codes]
    sec = data[secret].to_numpy()
    # a class is value-unique if its secret has a single value: compare min and max per class
    n_classes = codes.max() + 1
    smin = np.full(n_classes, np.iinfo(np.int64).max)
    smax = np.full(n_classes, np.iinfo(np.int64).min)
    np.minimum.at(smin, codes, sec.astype(np.int64))
    np.maximum.at(smax, codes, sec.astype(np.int64))
    vu = (smin == smax)[codes]
    return pd.DataFrame({"class_size": size, "unique": size == 1, "value_unique": vu}, index=data.index)


def value_unique_classes(data: pd.DataFrame, attributes: Sequence[str], secret: str) -> pd.Series:
    """Sizes of the value-unique classes (sets of value-unique users sharing a restricted record).

    §4 reports for ADULT a mean value-unique class size of 1.44 and a maximum
    of 4.

    Returns
    -------
    pandas.Series of int
        One entry per value-unique class.
    """
    u = uniqueness(data, attributes, secret)
    codes = _group_codes(data, list(attributes))
    sizes = pd.Series(codes[u["value_unique"].to_numpy()]).value_counts()
    return sizes.reset_index(drop=True).rename("class_size")


def _group_codes(data: pd.DataFrame, attrs: list[str]) -> np.ndarray:
    return data.groupby(attrs, sort=False, dropna=False, observed=True).ngroup().to_numpy()


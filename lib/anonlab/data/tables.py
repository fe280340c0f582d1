"""The worked tables of the lecture slides, as small DataFrames.

Source: S. Bhagavatula (after P. Mardziel and A. Datta), *Database privacy: k-anonymity and de-anonymization attacks*,
CMU 18-734 Foundations of Privacy, Fall 2019 (cited in the book as ``cmu18734slides2019``). The slides take the
inpatient tables from Machanavajjhala et al. (2007, Figs. 1-3) and the salary/disease tables from Li, Li &
Venkatasubramanian (2007, Tables 4-5).

Each constructor returns a fresh copy, indexed by the slides' record number (``record``, 1-based, in the order the
slide prints them). Generalised values are kept exactly as printed (``"130**"``, ``"< 30"``, ``"3*"``, ``"*"``).
Salaries are in dollars (the slides' ``3K`` is ``3000``).
"""

from __future__ import annotations

import pandas as pd

__all__ = [
    "INPATIENT_QUASI_IDENTIFIERS",
    "SALARY_DISEASE_QUASI_IDENTIFIERS",
    "disease_hierarchy",
    "inpatient_3_diverse",
    "inpatient_4_anonymous",
    "inpatient_microdata",
    "salary_disease_3_diverse",
    "salary_disease_t_close",
]

INPATIENT_QUASI_IDENTIFIERS: list[str] = ["zip_code", "age", "nationality"]
"""The "Non-Sensitive" columns of the inpatient tables (sensitive: ``condition``)."""

SALARY_DISEASE_QUASI_IDENTIFIERS: list[str] = ["zip_code", "age"]
"""Quasi-identifiers of the salary/disease tables (sensitive: ``salary``, ``disease``)."""

_HD, _VI, _CA = "Heart Disease", "Viral Infection", "Cancer"

# record: (zip code, age, nationality, condition) -- slides, "Figure 1.
# Inpatient Microdata" (Machanavajjhala et al. 2007, Fig. 1)
_INPATIENT = {
    1: ("13053", 28, "Russian", _HD),
    2: ("13068", 29, "American", _HD),
    3: ("13068", 21, "Japanese", _VI),
    4: ("13053", 23, "American", _VI),
    5: ("14853", 50, "Indian", _CA),
    6: ("14853", 55, "Russian", _HD),
    7: ("14850", 47, "American", _VI),
    8: ("14850", 49, "American", _VI),
    9: ("13053", 31, "American", _CA),
    10: ("13053", 37, "Indian", _CA),
    11: ("13068", 36, "Japanese", _CA),
    12: ("13068", 35, "American", _CA),
}


def _frame(rows: dict[int, tuple], columns: list[str]) -> pd.DataFrame:
    df = pd.DataFrame.from_dict(rows, orient="index", columns=columns)
    df.index.name = "record"
    return df


def inpatient_microdata() -> pd.DataFrame:
    """The inpatient microdata before anonymisation (12 records).

    Slides, "K-anonymity": "Figure 1. Inpatient Microdata" (from Machanavajjhala et al. 2007, Fig. 1).
    Quasi-identifiers :data:`INPATIENT_QUASI_IDENTIFIERS`; sensitive attribute ``condition``.

    Returns: pandas.DataFrame: Columns ``zip_code`` (str), ``age`` (int), ``nationality``, ``condition``; index
    ``record`` 1..12.
    """
    return _frame(_INPATIENT, ["zip_code", "age", "nationality", "condition"])


def inpatient_4_anonymous() -> pd.DataFrame:
    """The 4-anonymous release of the inpatient microdata.

    Slides, "K-anonymity": "Figure 2. 4-anonymous Inpatient Microdata" (from Machanavajjhala et al. 2007, Fig. 2). ZIP
    codes masked to ``130**`` / ``1485*``, ages generalised to ``< 30``, ``3*``, ``≥ 40``, nationality suppressed
    (``*``). Its last class (``130**``, ``3*``) is all Cancer: the homogeneity attack.

    Returns: pandas.DataFrame: Columns ``zip_code``, ``age``, ``nationality``, ``condition`` (all str); index
    ``record`` 1..12.
    """
    micro = inpatient_microdata()
    zips = {"13053": "130**", "13068": "130**", "14853": "1485*", "14850": "1485*"}
    rows = {
        1: "< 30", 2: "< 30", 3: "< 30", 4: "< 30",
        5: "≥ 40", 6: "≥ 40", 7: "≥ 40", 8: "≥ 40",
        9: "3*", 10: "3*", 11: "3*", 12: "3*",
    }
    return pd.DataFrame(
        {
            "zip_code": micro["zip_code"].map(zips),
            "age": pd.Series(rows),
            "nationality": "*",
            "condition": micro["condition"],
        }
    ).rename_axis("record")


def inpatient_3_diverse() -> pd.DataFrame:
    """The 3-diverse release of the inpatient microdata.

    Slides, "L-diversity" (the table with ``k = 4``, ``l = ?``; from Machanavajjhala et al. 2007, Fig. 3). Rows in the
    slide's order (records 1, 4, 9, 10, 5, 6, 7, 8, 2, 3, 11, 12).

    Returns: pandas.DataFrame: Columns ``zip_code`` (``1305*``, ``1485*``, ``1306*``), ``age`` (``≤ 40``, ``> 40``),
    ``nationality`` (``*``), ``condition``.
    """
    micro = inpatient_microdata()
    order = [1, 4, 9, 10, 5, 6, 7, 8, 2, 3, 11, 12]
    zips = {"13053": "1305*", "13068": "1306*", "14853": "1485*", "14850": "1485*"}
    out = pd.DataFrame(
        {
            "zip_code": micro["zip_code"].map(zips),
            "age": micro["age"].map(lambda a: "≤ 40" if a <= 40 else "> 40"),
            "nationality": "*",
            "condition": micro["condition"],
        }
    )
    return out.loc[order].rename_axis("record")


# record: (zip code, age, salary in $, disease) -- slides, "What is the issue
# with l-diversity?" (Li et al. 2007, Table 4: a 3-diverse table)
_SD_3_DIVERSE = {
    1: ("476**", "2*", 3000, "gastric ulcer"),
    2: ("476**", "2*", 4000, "gastritis"),
    3: ("476**", "2*", 5000, "stomach cancer"),
    4: ("4790*", "≥ 40", 6000, "gastritis"),
    5: ("4790*", "≥ 40", 11000, "flu"),
    6: ("4790*", "≥ 40", 8000, "bronchitis"),
    7: ("476**", "3*", 7000, "bronchitis"),
    8: ("476**", "3*", 9000, "pneumonia"),
    9: ("476**", "3*", 10000, "stomach cancer"),
}

# slides, "T-closeness" (Li et al. 2007, Table 5), in the slide's row order
_SD_T_CLOSE = {
    1: ("4767*", "≤ 40", 3000, "gastric ulcer"),
    3: ("4767*", "≤ 40", 5000, "stomach cancer"),
    8: ("4767*", "≤ 40", 9000, "pneumonia"),
    4: ("4790*", "≥ 40", 6000, "gastritis"),
    5: ("4790*", "≥ 40", 11000, "flu"),
    6: ("4790*", "≥ 40", 8000, "bronchitis"),
    2: ("4760*", "≤ 40", 4000, "gastritis"),
    7: ("4760*", "≤ 40", 7000, "bronchitis"),
    9: ("4760*", "≤ 40", 10000, "stomach cancer"),
}


def salary_disease_3_diverse() -> pd.DataFrame:
    """The 3-diverse salary/disease table whose first class is all stomach disease.

    Slides, "What is the issue with l-diversity?" (Li et al. 2007, Table 4). Quasi-identifiers
    :data:`SALARY_DISEASE_QUASI_IDENTIFIERS`; sensitive attributes ``salary`` (dollars) and ``disease``.

    Returns: pandas.DataFrame: Columns ``zip_code``, ``age`` (generalised strings), ``salary`` (int), ``disease``;
    index ``record`` 1..9.
    """
    return _frame(_SD_3_DIVERSE, ["zip_code", "age", "salary", "disease"])


def salary_disease_t_close() -> pd.DataFrame:
    """The salary/disease table the slides call 0.167-close (Salary) and
    0.278-close (Disease).

    Slides, "T-closeness" (Li et al. 2007, Table 5), rows in the slide's order (records 1, 3, 8, 4, 5, 6, 2, 7, 9).
    The reported t values are in the claims ledger (``data/claims.yaml``), not here.

    Returns: pandas.DataFrame: Columns ``zip_code``, ``age``, ``salary`` (int, dollars), ``disease``.
    """
    return _frame(_SD_T_CLOSE, ["zip_code", "age", "salary", "disease"])


def disease_hierarchy() -> dict[str, str | None]:
    """The disease hierarchy of the t-closeness example, child -> parent.

    The slides' text does not print the hierarchy; it is the one of Li, Li & Venkatasubramanian (2007, the hierarchy
    figure for the categorical attribute Disease), of height 3::

        respiratory & digestive system diseases
        ├── respiratory system diseases
        │   ├── respiratory infection: flu, pneumonia, bronchitis
        │   └── vascular lung diseases: pulmonary edema, pulmonary embolism
        └── digestive system diseases
            ├── stomach diseases: gastric ulcer, gastritis, stomach cancer
            └── colon diseases: colitis, colon cancer

    With the hierarchical ground distance, two diseases are ``1/3`` apart if they share a level-1 group (flu,
    bronchitis), ``2/3`` if they share a system (flu, pulmonary edema) and ``1`` otherwise.

    Returns: dict: ``{node: parent}``; the root maps to ``None``.
    """
    root = "respiratory & digestive system diseases"
    resp, dig = "respiratory system diseases", "digestive system diseases"
    groups = {
        "respiratory infection": (resp, ["flu", "pneumonia", "bronchitis"]),
        "vascular lung diseases": (resp, ["pulmonary edema", "pulmonary embolism"]),
        "stomach diseases": (dig, ["gastric ulcer", "gastritis", "stomach cancer"]),
        "colon diseases": (dig, ["colitis", "colon cancer"]),
    }
    parents: dict[str, str | None] = {root: None, resp: root, dig: root}
    for group, (system, leaves) in groups.items():
        parents[group] = system
        parents.update({leaf: group for leaf in leaves})
    return parents

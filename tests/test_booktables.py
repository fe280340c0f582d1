"""The book's one table formatter (anonbook.booktables): what a reader sees instead of a pandas dump."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonbook import booktables as bt


def test_row_numbers_are_not_shown_but_a_meaningful_index_is() -> None:
    shuffled = pd.DataFrame({"k": [1, 2, 3]}).iloc[[0, 2, 1]]  # row numbers out of order (chapter 6b's Fig 4)
    labels, rows, _ = bt.readable_frame(shuffled)
    assert labels == ["k"] and [r[0] for r in rows] == ["1", "3", "2"]
    named = pd.DataFrame({"precision": [0.5]}, index=pd.Index(["adult"], name="data set"))
    assert bt.readable_frame(named)[0] == ["data set", "precision"]
    assert bt.readable_frame(pd.DataFrame({"x": [1]}, index=[5]))[0] == ["", "x"]  # 5 is not a row number
    # an unnamed two-level index (pandas' concat keys) shows its labels under blank headers, never "level 0"
    two = pd.DataFrame({"PI": [0.2, 0.3]}, index=pd.MultiIndex.from_tuples([("Adult", "age"), ("Adult", "income")]))
    labels, rows, _ = bt.readable_frame(two)
    assert labels == ["", "", "PI"] and rows[1][:2] == ["Adult", "income"]
    half = two.rename_axis([None, "secret"])
    assert bt.readable_frame(half)[0] == ["", "secret", "PI"]


def test_column_names_read_as_words() -> None:
    assert bt.column_label("precision_dependent") == "precision dependent"
    assert bt.column_label(("Adult", "mean_pii")) == "Adult mean PII"
    rows = pd.DataFrame({"original": [20, 1.0]}, index=["n_users", "accuracy_pa"])  # chapter 6b's shuffle table
    assert [r[0] for r in bt.readable_frame(rows)[1]] == ["n users", "accuracy (attackable)"]


def test_an_interval_beside_its_value_reads_value_then_interval_to_the_digits_it_supports() -> None:
    df = pd.DataFrame({"accuracy_pa": [0.8812345678], "accuracy_pa ci": [(0.8012345678901234, 0.9312345678)]})
    labels, rows, _ = bt.readable_frame(df)
    assert labels == ["accuracy (attackable)"] and rows == [["0.88 [0.80, 0.93]"]]
    lowhigh = pd.DataFrame({"empirical": [0.9], "ci_low": [0.85], "ci_high": [0.95]})
    assert bt.readable_frame(lowhigh) == (["empirical"], [["0.90 [0.85, 0.95]"]], False)
    alone = pd.DataFrame({"ci (unique)": [(0.123456789, 0.2)]})
    assert bt.readable_frame(alone)[1] == [["[0.123, 0.200]"]]
    assert bt.interval_digits(1000.0, 1500.0) == 0


def test_missing_values_are_a_dash_with_the_reason_said_once() -> None:
    df = pd.DataFrame({"a": [np.nan, None, 1.5]})
    out = bt.book_table_html(df)
    assert "NaN" not in out and "None" not in out and out.count("—") == 3  # two cells, one note
    df.attrs["missing"] = "— : the attack made no guess"
    assert "the attack made no guess" in bt.book_table_html(df)


def test_long_lists_fold_and_nothing_is_cut() -> None:
    names = [f"attribute_{i}" for i in range(41)]
    out = bt.value_text(names)
    assert out.startswith("<details>") and "41 in all" in out and all(n in out for n in names)
    assert bt.value_text(["a", "b"]) == "a, b" and bt.value_text([]) == "none"


def test_a_series_shows_as_a_table_not_name_and_dtype() -> None:
    out = bt.book_table_html(pd.Series({"Anonymeter": "x.csv"}, name="peer inputs"))
    assert "dtype" not in out and "<th>peer inputs</th>" in out


def test_wide_tables_are_marked_to_reflow_on_a_phone() -> None:
    wide = pd.DataFrame([range(bt.REFLOW_COLUMNS + 1)], columns=[f"c{i}" for i in range(bt.REFLOW_COLUMNS + 1)])
    assert 'class="book-table reflow"' in bt.book_table_html(wide)
    assert 'class="book-table"' in bt.book_table_html(wide.iloc[:, :2])


def test_the_kit_registers_it_and_a_subclass_keeps_its_own_table() -> None:
    from IPython.core.interactiveshell import InteractiveShell

    from anonbook import plotting
    from anonbook.chapters.kit import ClaimsTable

    shell = InteractiveShell.instance()
    plotting.table_style()
    fmt = shell.display_formatter.formatters["text/html"]
    assert "book-table" in fmt(pd.DataFrame({"a_b": [1]}))
    claims = ClaimsTable(pd.DataFrame({"where": ["§1"], "statement": ["s"], "reported": ["1"]},
                                      index=pd.Index(["x.y"], name="id")))
    assert "claims-table" in fmt(claims)
    styled = fmt(pd.DataFrame({"a": [0.123456]}).style.format(precision=3))  # chapter 4's tables
    assert "book-table" in styled and "0.1235" in styled


def test_only_a_cell_with_a_long_token_may_break_inside_a_word() -> None:
    df = pd.DataFrame({"cached": ["yes"], "sha256": ["5b00264637dbfec36bdeaab5676b0b309ff9eb788d"]})
    out = bt.book_table_html(df)
    assert out.count('class="long-token"') == 1 and 'class="long-token">5b0026' in out

"""gamelib.book.tables: the book's tables as a reader reads them (hand-made cases)."""

import math

import numpy as np
import pandas as pd
import pytest

from gamelib.book.tables import format_number, format_pvalue, header, show


def test_headers_in_words():
    assert header("win_rate") == "Win rate"
    assert header("elo") == "Elo"
    assert header("n_draws_as_0") == "N draws as 0"
    assert header("p_greater") == "p (greater)"
    assert header("p_value") == "p"
    assert header("Games") == "Games"


@pytest.mark.parametrize("p, text", [(1.304182e-28, "< 1e-10"), (0.0, "< 1e-10"),
                                     (0.00123, "1.2e-3"), (0.0123, "0.012"), (0.5, "0.50"),
                                     (1.0, "1.00"), (float("nan"), "–")])
def test_pvalues_two_significant_digits(p, text):
    assert format_pvalue(p) == text


@pytest.mark.parametrize("x, text", [(40.0, "40"), (12345.0, "12,345"), (np.int64(7), "7"),
                                     (0.00004, "4.00e-5"), (1.23456, "1.23"), (-3.0, "−3"),
                                     (123.456, "123"), (0.0, "0"), (float("nan"), "–"),
                                     (True, "yes"), (math.inf, "∞")])
def test_numbers(x, text):
    assert format_number(x) == text


def test_table_drops_the_index_and_formats_each_column():
    df = pd.DataFrame({"player": ["a", "b"], "games": [40.0, 400.0], "win_rate": [0.5934, 0.1],
                       "p_greater": [1.3e-28, 0.0123], "delta": [0.05, -0.021]})
    t = show(df, percent=["win_rate"], points=["delta"])
    assert t.columns == ["Player", "Games", "Win rate", "p (greater)", "Delta"]
    assert t.rows == [["a", "40", "59.3 %", "< 1e-10", "+5.0"],
                      ["b", "400", "10.0 %", "0.012", "−2.1"]]
    html = t._repr_html_()
    assert "<th>Player</th>" in html and '<td style="text-align: right">59.3 %</td>' in html
    assert "0</td>" not in html.split("<tbody>")[0]         # no index column
    assert "id=" not in html                                 # stable: no random ids
    assert repr(t).splitlines()[0].split() == ["Player", "Games", "Win", "rate", "p",
                                               "(greater)", "Delta"]


def test_a_named_index_is_kept_and_names_are_checked():
    df = pd.DataFrame({"x": [1.5]}, index=pd.Index(["PL"], name="learner"))
    assert show(df).columns == ["Learner", "X"]
    with pytest.raises(ValueError, match="percent names columns the table does not have"):
        show(df, percent=["win_rte"])
    with pytest.raises(TypeError, match="DataFrame"):
        show([1, 2])


def test_html_escapes_text():
    t = show(pd.DataFrame({"name": ["<b>&"]}))
    assert "&lt;b&gt;&amp;" in t._repr_html_()


def test_rates_found_by_name_only_inside_the_unit_interval():
    df = pd.DataFrame({"win_rate": [0.25], "wilson_low": [0.1], "sente_share": [0.5],
                       "rate_limit": [3.0], "elo": [0.5]})
    assert show(df).rows == [["25.0 %", "10.0 %", "50.0 %", "3", "0.500"]]


def test_pivot_tables_flatten_their_column_levels():
    df = pd.DataFrame({"algorithm": ["PL", "PL", "TD"], "win_rate": [0.5, 0.7, 0.2]})
    t = show(df.groupby("algorithm")[["win_rate"]].agg(["min", "max"]))
    assert t.columns == ["Algorithm", "Win rate min", "Win rate max"]
    assert t.rows == [["PL", "50.0 %", "70.0 %"], ["TD", "20.0 %", "20.0 %"]]

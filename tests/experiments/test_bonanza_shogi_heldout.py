"""Held-out intervals of a Bonanza run from per-game sums: tables and the check against the run's
summary (synthetic per-game numbers computed by hand)."""

import pandas as pd
import pytest

from gamelib.experiments.bonanza_shogi import heldout as H


def by_game():
    # two evaluations on three held-out games; "b" agrees on one more position in game 0
    return pd.DataFrame({
        "evaluation": ["a"] * 3 + ["b"] * 3,
        "game": [0, 1, 2] * 2,
        "positions": [4, 2, 4] * 2,
        "agreements": [1, 1, 2, 2, 1, 2],
        "J_sum": [4.0, 2.0, 2.0, 3.0, 2.0, 2.0],
    })


def test_intervals_hold_the_run_estimates():
    iv = H.intervals(by_game()).set_index(["evaluation", "metric"])
    assert iv.loc[("a", "agreement_test"), "estimate"] == 0.4  # 4 / 10
    assert iv.loc[("b", "agreement_test"), "estimate"] == 0.5  # 5 / 10
    assert iv.loc[("a", "J_test"), "estimate"] == 0.8
    assert (iv.low <= iv.estimate).all() and (iv.estimate <= iv.high).all()
    assert (iv.games == 3).all()


def test_differences_are_paired():
    d = H.differences(by_game()).set_index("metric")
    agree = d.loc["agreement_test"]
    assert (agree["first"], agree["second"]) == ("a", "b")
    assert agree.estimate == pytest.approx(-0.1)
    # b - a is 1/4 of game 0's positions: in a resample it is (copies of game 0) / (positions)
    # which is > 0 unless game 0 is left out (probability (2/3)^3 = 0.296)
    assert agree.share_not_below == pytest.approx((2 / 3) ** 3, abs=0.02)
    assert agree.high == 0.0 and agree.low < -0.1


def test_per_game_sums_must_give_the_runs_summary():
    summary = pd.DataFrame({"variant": ["a", "b"], "agreement_test": [0.4, 0.5],
                            "J_test": [0.8, 0.7]})
    H._check_against_summary(by_game(), summary)
    summary.loc[1, "agreement_test"] = 0.5001
    with pytest.raises(ValueError, match="b: per-game sums give agreement 0.5000000000"):
        H._check_against_summary(by_game(), summary)

"""The game bootstrap of held-out metrics on small cases computed by hand."""

import numpy as np
import pytest

from gamelib.learn.heldout import game_bootstrap, per_game_sums


def test_one_game_gives_a_point_interval():
    boot = game_bootstrap([3.0], [4], n_boot=50)
    assert boot.interval("0") == {"estimate": 0.75, "low": 0.75, "high": 0.75}


def test_the_metric_is_a_ratio_of_sums_not_a_mean_of_game_rates():
    # game 1: 2 agreements of 2 positions; game 2: 0 of 1 -> 2/3, not (1 + 0) / 2
    boot = game_bootstrap([2, 0], [2, 1], n_boot=10)
    assert boot.interval("0")["estimate"] == pytest.approx(2 / 3, abs=0)


def test_two_games_resample_to_their_exact_distribution():
    # rates 1 and 0 with one position each: a resample of two games has the rate 0, 1/2 or 1
    # with probabilities 1/4, 1/2, 1/4, so the 95 % percentile interval is [0, 1]
    boot = game_bootstrap([1, 0], [1, 1], n_boot=20_000, seed=3)
    reps = boot.replicates[:, 0]
    assert set(np.unique(reps)) == {0.0, 0.5, 1.0}
    assert np.mean(reps == 0.5) == pytest.approx(0.5, abs=0.015)
    assert np.mean(reps == 0.0) == pytest.approx(0.25, abs=0.015)
    assert boot.interval("0") == {"estimate": 0.5, "low": 0.0, "high": 1.0}
    # at 40 % confidence the 30th and 70th percentiles: both 1/2
    narrow = game_bootstrap([1, 0], [1, 1], n_boot=20_000, seed=3, confidence=0.4)
    assert narrow.interval("0") == {"estimate": 0.5, "low": 0.5, "high": 0.5}


def test_paired_differences_cancel_what_the_games_share():
    # metric b = metric a + 0.1 on every position: the paired difference is exactly 0.1 in every
    # replicate, although each metric alone varies from resample to resample
    counts = np.array([3, 5, 2, 4])
    a = np.array([1.0, 4.0, 0.0, 2.0])
    b = a + 0.1 * counts
    boot = game_bootstrap(np.column_stack([a, b]), counts, ["a", "b"], n_boot=2000, seed=1)
    d = boot.difference("b", "a")
    assert d["estimate"] == pytest.approx(0.1, abs=1e-15)
    assert d["low"] == pytest.approx(0.1, abs=1e-15) and d["high"] == pytest.approx(0.1, abs=1e-15)
    assert d["share_not_above"] == 0.0 and d["share_not_below"] == 1.0
    one = boot.interval("a")
    assert one["low"] < one["estimate"] < one["high"]


def test_same_seed_same_replicates_other_seed_other_ones():
    sums, counts = np.arange(12.0).reshape(6, 2), [2, 3, 4, 5, 6, 7]
    x = game_bootstrap(sums, counts, n_boot=300, seed=7)
    y = game_bootstrap(sums, counts, n_boot=300, seed=7)
    z = game_bootstrap(sums, counts, n_boot=300, seed=8)
    assert np.array_equal(x.replicates, y.replicates)
    assert not np.array_equal(x.replicates, z.replicates)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="one count per game"):
        game_bootstrap([1, 2], [1, 1, 1])
    with pytest.raises(ValueError, match="counts sum to 0"):
        game_bootstrap([0, 0], [0, 0])
    with pytest.raises(ValueError, match="n_boot"):
        game_bootstrap([1], [1], n_boot=0)
    with pytest.raises(ValueError, match="distinct names"):
        game_bootstrap([[1, 2]], [1], ["a", "a"])
    with pytest.raises(ValueError, match="unknown metric"):
        game_bootstrap([1], [1]).interval("J")


def test_per_game_sums():
    ids, sums, counts = per_game_sums([0.5, 1.0, 2.0, 0.25, 1e16, 1.0, -1e16], [7, 3, 7, 3, 9, 9, 9])
    assert ids.tolist() == [3, 7, 9] and counts.tolist() == [2, 2, 3]
    assert sums.tolist() == [1.25, 2.5, 1.0]  # exact: 1e16 + 1 - 1e16 is 1, not 0
    with pytest.raises(ValueError, match="3 values for 2 game ids"):
        per_game_sums([1, 2, 3], [0, 1])

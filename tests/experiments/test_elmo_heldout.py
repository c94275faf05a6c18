"""Held-out cross-entropies of an elmo run per game, with intervals, on a tiny run."""

import numpy as np
import pandas as pd
import pytest

from gamelib.experiments import elmo_heldout as H
from gamelib.experiments.cli import main
from gamelib.learn import teacher as T

TINY = ["-p", "n_games", "6", "-p", "games_per_batch", "3", "-p", "node_budget", "200",
        "-p", "n_epochs", "2", "-p", "match_games", "2", "-p", "match_node_budget", "100",
        "-p", "batch_size", "16"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("elmo") / "run"
    assert main(["elmo_shogi", "--out", str(out), "--workers", "1", "--no-progress", *TINY]) == 0
    return out


def test_intervals_rebuild_the_runs_heldout_cross_entropies(run):
    by_game, iv, diff = H.write_intervals(run)
    final = pd.read_csv(run / "final.csv").set_index("loss")
    got = iv.set_index("evaluation")
    assert list(got.index) == list(final.index)
    assert np.allclose(got.estimate, final.test_result_xent, rtol=0, atol=1e-9)  # %.10g in CSV
    assert (got.low <= got.estimate).all() and (got.estimate <= got.high).all()
    assert len(diff) == len(final) * (len(final) - 1) // 2
    assert by_game.groupby("evaluation").positions.sum().nunique() == 1  # the same positions
    for name in ("heldout_by_game.csv", "heldout_intervals.csv", "heldout_differences.csv"):
        assert (run / name).is_file()


def test_teacher_positions_of_another_run_are_refused(run, tmp_path):
    positions, meta = T.load_teacher(run / "teacher.npz")
    other = positions.copy()
    other["game"] = (other["game"] + 1) % 6  # the same ids on other games: another split
    T.save_teacher(tmp_path / "other.npz", other)
    with pytest.raises(ValueError, match="they are not this run's"):
        H.write_intervals(run, tmp_path / "other.npz")
    with pytest.raises(ValueError, match="no teacher positions"):
        H.write_intervals(run, tmp_path / "missing.npz")

"""The PGLeaf experiment on Othello from the command line, as a reader runs it
(``python -m gamelib.experiments pgleaf --game othello --profile quick``, here with fewer
games): the four learners train, play their round-robin and their gauntlet
against the Othello reference opponent (the classic square weights), and the run folder holds
the report, parameter files of the Othello layout and provenance naming the game; a second call
finds the run done.
"""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from gamelib.experiments import pgleaf
from gamelib.experiments.pgleaf.training import theta_file
from gamelib.games import registry

SMALL = ["--game", "othello", "-p", "n_games", "100",
         "-p", "keep_points", "[100]", "-p", "table_points", "[100]", "-p", "curve_points",
         "[0, 100]", "-p", "round_robin_games", "4", "-p", "gauntlet_games", "4"]


def _run(out):
    return subprocess.run([sys.executable, "-m", "gamelib.experiments", "pgleaf", "--profile",
                           "quick", *SMALL, "--out", str(out), "--no-progress"],
                          capture_output=True, text=True, timeout=1200)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("pgleaf-othello") / "run"
    done = _run(out)
    assert done.returncode == 0, done.stderr[-3000:]
    return out, done


def test_the_othello_run_trains_plays_and_reports(run):
    out, done = run
    assert "pgleaf: done" in done.stdout
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["sizes"]["game"] == "othello"
    assert provenance["train_config"]["game"] == "othello"
    config = pgleaf.pgleaf_config(provenance["sizes"])
    game = registry.get("othello")
    for run_spec in pgleaf.runs_of(config):
        theta = game.load_theta(out / "theta" / theta_file(run_spec, 100))
        assert theta.shape == (game.N_FEATURES,)
        assert not np.array_equal(theta, pgleaf.initial_theta(0, 0, "othello"))
    rr = pd.read_csv(out / "round_robin.csv")
    assert len(rr) == 12 and (rr[["wins", "draws", "losses"]].sum(axis=1) == 4).all()
    gauntlet = pd.read_csv(out / "gauntlet.csv")
    assert sorted(gauntlet["games"].unique()) == [0, 100] and len(gauntlet) == 8
    training = pd.read_csv(out / "training.csv")
    assert (training["plies"] >= 58 * 100).all() and not training["mirror_replies"].any()


def test_a_second_call_finds_the_run_done(run):
    out, _ = run
    before = {name: (out / name).read_bytes() for name in ("round_robin.csv", "gauntlet.csv")}
    again = _run(out)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "(0.0 s in this call)" in again.stdout and "pgleaf: done" in again.stdout
    assert all((out / name).read_bytes() == text for name, text in before.items())


def test_othello_without_the_mdp_only_rewards_is_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "x"
    done = subprocess.run([sys.executable, "-m", "gamelib.experiments", "pgleaf", "--profile",
                           "quick", "-p", "game", "othello", "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "othello has none" in done.stderr
    assert not out.exists()


def test_the_game_flag_sets_the_games_sizes_before_the_overrides():
    from gamelib.experiments.registry import discover

    registry = discover()
    othello = registry.options("pgleaf", "paper", game="othello").sizes
    assert othello.game == "othello" and list(othello.rewards) == ["mdp"]
    shogi = registry.options("pgleaf", "paper", game="minishogi").sizes
    assert shogi == registry.options("pgleaf", "paper").sizes          # the default game
    assert list(registry.options("pgleaf", "quick", game="othello",
                                 overrides={"algorithms": ["pgleaf"]}).sizes.algorithms) == ["pgleaf"]
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        registry.options("pgleaf", "quick", game="chess")


def test_an_experiment_of_one_game_refuses_the_game_flag_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "gamelib.experiments", "elmo_shogi", "--game",
                           "othello", "--out", str(tmp_path / "x")], capture_output=True, text=True)
    assert done.returncode == 2 and not (tmp_path / "x").exists()
    assert done.stderr.strip().splitlines() == [
        "error: experiment 'elmo_shogi' has no --game: it is made for one game; the experiments "
        "of any game: pgleaf"]

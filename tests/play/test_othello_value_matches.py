"""The chapter's matches replayed from a run folder: files, provenance, resume, bad folders."""

import json

import pandas as pd
import pytest

from gamelib.games.othello.mlp import MLP
from gamelib.games.othello.wthor import find_wthor_dir
from gamelib.play import othello_value_matches as vm
from gamelib.play.othello_players import run_table
from gamelib.runtime.checkpoint import RunConfigMismatch

PARAMS = {"first_year": 2018, "last_year": 2018, "val_fraction": 0.1, "seed": 0, "depth": 1,
          "n_pairs": 1, "opening_plies": 4}


@pytest.fixture
def run(tmp_path):
    try:
        find_wthor_dir()
    except (OSError, ValueError) as err:
        pytest.skip(f"WTHOR records not available: {err}")
    folder = tmp_path / "run"
    folder.mkdir()
    MLP.init((64, 8, 1), seed=0).save(folder / "mlp.npz")
    (folder / "provenance.json").write_text(json.dumps({"parameters": PARAMS}))
    return folder


def test_rerun_writes_the_matches_and_a_killed_rerun_resumes_to_the_same_table(run, tmp_path):
    out = tmp_path / "out"
    matches = vm.rerun(run, out)
    assert list(matches.columns) == vm.MATCH_COLUMNS and len(matches) == 10
    assert (matches.games == 2).all()
    assert list(zip(matches.player, matches.opponent)) == vm.pairings(1)
    assert pd.read_csv(out / "matches.csv").shape == (10, len(vm.MATCH_COLUMNS))
    assert (out / "matches.png").stat().st_size > 0
    assert not (out / "matches_checkpoint").exists()
    entry = json.loads((out / "provenance.json").read_text())["matches_rerun"][-1]
    assert entry["command"] == f"python -m {vm.__name__}"
    # the games of a killed rerun are kept in matches_checkpoint (a resumable tournament,
    # tests/play/test_play_tournament.py): a rerun reads them back
    _, mlp = run_table(run)
    again = tmp_path / "again"
    kept = vm.play_pairings(vm.players(mlp, run, 1), vm.pairings(1), 1, 4, 0,
                            checkpoints=again / "matches_checkpoint")
    assert (again / "matches_checkpoint").is_dir() and kept.equals(matches)
    assert vm.rerun(run, again).equals(matches)


def test_a_checkpoint_of_another_run_is_refused(run, tmp_path):
    out = tmp_path / "out"
    _, mlp = run_table(run)
    vm.play_pairings(vm.players(mlp, run, 1), vm.pairings(1)[:1], 2, 4, 0,
                     checkpoints=out / "matches_checkpoint")   # two openings, not one
    with pytest.raises(RunConfigMismatch):
        vm.rerun(run, out)
    assert not (out / "matches.csv").exists()


def test_an_unfinished_folder_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(ValueError, match="not a finished othello_value run: no provenance"):
        vm.rerun(tmp_path, tmp_path / "out")
    assert not (tmp_path / "out").exists()

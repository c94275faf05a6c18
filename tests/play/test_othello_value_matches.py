"""The chapter's matches replayed from a run folder: files, provenance, resume, bad folders."""

import json

import pandas as pd
import pytest

from gamelib.othello.mlp import MLP
from gamelib.othello.wthor import find_wthor_dir
from gamelib.play import othello_value_matches as vm

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


def test_rerun_writes_the_matches_and_resumes_from_finished_pairings(run, tmp_path):
    out = tmp_path / "out"
    # a pairing finished before a kill: its stored row is used, not replayed
    stored = {"player": "greedy", "opponent": "random", "games": 2, "wins": 2, "draws": 0,
              "losses": 0, "win_rate": 1.0, "wilson_low": 0.3, "wilson_high": 1.0,
              "score": 1.0, "score_low": 0.3, "score_high": 1.0, "p_two_sided": 0.5,
              "player_table_probes": 0, "player_table_hits": 0, "opponent_table_probes": 0,
              "opponent_table_hits": 0}
    key = {"player": "greedy", "opponent": "random", "n_pairs": 1, "opening_plies": 4,
           "seed": 0, "orient": [False, False]}
    (out / "matches_checkpoint").mkdir(parents=True)
    (out / "matches_checkpoint" / "00.json").write_text(json.dumps({"key": key, "row": stored}))
    matches, lookups = vm.rerun(run, out)
    assert list(matches.columns) == vm.MATCH_COLUMNS and len(matches) == 10
    assert (matches.games == 2).all()
    assert matches.iloc[0].wilson_low == 0.3  # read back from the checkpoint
    assert set(lookups.player) == {"table-d1"} and (lookups.leaves_looked_up > 0).all()
    assert pd.read_csv(out / "matches.csv").shape == (10, len(vm.MATCH_COLUMNS))
    assert (out / "matches.png").stat().st_size > 0 and (out / "table_lookups.csv").is_file()
    assert not (out / "matches_checkpoint").exists()
    entry = json.loads((out / "provenance.json").read_text())["matches_rerun"][-1]
    assert entry["orient"] is True and entry["command"] == f"python -m {vm.__name__}"


def test_a_checkpoint_of_another_run_is_refused(run, tmp_path):
    out = tmp_path / "out"
    (out / "matches_checkpoint").mkdir(parents=True)
    (out / "matches_checkpoint" / "00.json").write_text(
        json.dumps({"key": {"player": "x"}, "row": {}}))
    with pytest.raises(ValueError, match="belongs to another run"):
        vm.rerun(run, out)


def test_an_unfinished_folder_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(ValueError, match="not a finished othello_value run: no provenance"):
        vm.rerun(tmp_path, tmp_path / "out")
    assert not (tmp_path / "out").exists()

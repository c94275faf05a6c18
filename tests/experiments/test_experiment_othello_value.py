"""The Othello value study as a registered experiment: its sizes checked before anything is
written, a small run read back from its files as it was made, the same on two processes, its
folder played as a value table, and the chapter's committed run made with the experiment's
paper profile. (The chapter
runs the quick profile and compares every file with its references: tests/test_notebooks.py.)"""

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from gamelib.experiments import othello_value as OV
from gamelib.experiments.cli import main as cli_main
from gamelib.play.othello_players import run_parameters
from gamelib.runtime.paths import repo_root

from wthor_runs import needs_wthor, wthor_missing

COMMITTED = repo_root() / "data" / "results" / "paper" / "othello_value"
#: One year, a small network, one epoch, depth 1, two games per pairing.
SMALL = {**OV.PROFILES["quick"], "first_year": 1980, "last_year": 1980, "hidden": [8],
         "epochs": 1, "depth": 1, "n_pairs": 1, "opening_plies": 2}


def test_the_chapters_committed_run_was_made_with_the_paper_profile():
    params = json.loads((COMMITTED / "provenance.json").read_text())["parameters"]
    assert {k: params[k] for k in OV.PROFILES["paper"]} == OV.PROFILES["paper"]
    assert run_parameters(COMMITTED)["seed"] == 0


@pytest.mark.parametrize("change, message", [
    ({"val_fraction": 1.0}, "val_fraction"), ({"val_fraction": 0}, "val_fraction"),
    ({"hidden": []}, "hidden"), ({"hidden": [64, 0]}, "hidden"), ({"encoding": "bits"}, "encoding"),
    ({"first_year": 2018, "last_year": 2016}, "first_year"), ({"epochs": 0}, "epochs"),
    ({"lr": -1}, "lr"), ({"opening_plies": -1}, "opening_plies"), ({"depth": 1.5}, "depth"),
    ({"n_games": 3}, "unknown size"),
])
def test_bad_sizes_are_refused_naming_them(change, message):
    with pytest.raises(ValueError, match=message):
        OV.othello_value_config({**OV.PROFILES["quick"], **change})


def test_a_bad_size_on_the_command_line_writes_nothing(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli_main(["othello_value", "--out", str(out), "-p", "val_fraction", "1.5"]) == 2
    assert "val_fraction" in capsys.readouterr().err
    assert not out.exists()


@needs_wthor
def test_a_small_run_reads_back_as_made_and_plays_as_a_table(tmp_path):
    if wthor_missing(1980):
        pytest.skip(wthor_missing(1980))
    out = tmp_path / "run"
    made = OV.run_experiment(out, SMALL, seed=1, workers=1)
    assert set(made.timings) == {"tables", "training", "fit", "matches"}
    read, sizes = OV.load_report(out, expect=SMALL)
    assert sizes == OV.othello_value_config(SMALL)
    for name in ("table2", "states_per_move", "history", "fit", "reliability", "matches"):
        pd.testing.assert_frame_equal(getattr(read, name), getattr(made, name).reset_index(drop=True),
                                      check_dtype=False, rtol=1e-12)
    assert read.summary == made.summary and read.calibration == made.calibration
    np.testing.assert_array_equal(read.mlp.params, made.mlp.params)
    s = made.summary
    assert s["train_games"] + s["val_games"] == s["games"] > 0
    assert s["games_counted"] == s["games"] - s["draws"]                 # draws left out
    assert s["distinct_states"] <= s["states"] and made.gradient_check["max_relative_error_below_1e-7"]
    fit = made.fit.set_index("model")
    assert fit.loc["training table (constant where unseen)", "train_wmse"] == 0.0
    assert (made.matches.games == 2).all() and len(made.matches) == len(OV.ovm.pairings(1))
    # a finished run is what gamelib:table=FOLDER plays: its sizes and seed read back
    params = run_parameters(out)
    assert (params["first_year"], params["last_year"], params["seed"]) == (1980, 1980, 1)
    # a second call resumes: nothing is played or trained again, the numbers are the same
    again = OV.run_experiment(out, SMALL, seed=1, workers=1)
    pd.testing.assert_frame_equal(again.matches, made.matches)
    np.testing.assert_array_equal(again.mlp.params, made.mlp.params)
    with pytest.raises(ValueError, match="n_pairs"):
        OV.load_report(out, expect={**SMALL, "n_pairs": 2})
    # on two processes (the table player travels as its split and is rebuilt there): the same
    two = OV.run_experiment(tmp_path / "two", SMALL, seed=1, workers=2, write=False)
    pd.testing.assert_frame_equal(two.matches, made.matches)


@needs_wthor
def test_a_run_stopped_in_its_training_resumes_from_the_command_line(tmp_path):
    """What a run stopped during the training leaves -- the stage clock and the network's own
    checkpoint, no stage manifest yet -- is taken as a run folder, and the run finishes."""
    if wthor_missing(1980):
        pytest.skip(wthor_missing(1980))
    out = tmp_path / "run"
    OV.run_experiment(out, SMALL, seed=1, workers=1)
    kept = {"wall_time.json", "mlp_checkpoint.npz"}
    for path in out.iterdir():
        if path.name not in kept:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    assert {p.name for p in out.iterdir()} == kept
    argv = ["othello_value", "--out", str(out), "--seed", "1", "--workers", "1", "--no-progress"]
    for key, value in SMALL.items():
        argv += ["-p", key, json.dumps(value)]
    assert cli_main(argv) == 0
    assert OV.load_report(out, expect=SMALL)[1] == OV.othello_value_config(SMALL)

"""The bonanza experiment end to end at a tiny size: files, resume, worker independence, CLI."""

import json

import numpy as np
import pandas as pd
import pytest

from gamelib.experiments import bonanza_shogi as B
from gamelib.experiments.cli import main as cli_main
from gamelib.games.minishogi.records import read_records

TINY = {**B.PROFILES["quick"], "n_games": 4, "teacher_nodes": 300, "test_fraction": 0.25,
        "n_epochs": 2, "batch_size": 16, "batch_refresh_every": 2, "n_train_eval": 20,
        "variants": ["batch", "minibatch_l1"], "match_games": 2, "match_nodes": 200}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bonanza") / "run"
    return out, B.run_experiment(out, TINY, seed=1, workers=1, profile="tiny")


def test_report_files_and_contents(tiny_run):
    out, report = tiny_run
    for name in ("records.txt", "records_summary.json", "history.csv", "summary.csv",
                 "piece_values.csv", "matches.csv", "curves.png", "piece_values.png",
                 "provenance.json", "theta/batch.npz", "theta/minibatch_l1.npz"):
        assert (out / name).is_file(), name
    games = read_records(out / "records.txt")
    assert len(games) == 4
    assert "node budget 300" in (out / "records.txt").read_text()
    summary = json.loads((out / "records_summary.json").read_text())
    assert summary["test_games"] == 1 and summary["games"] == 4
    assert summary["train_positions"] + summary["test_positions"] \
        + summary["test_positions_dropped_seen_in_training"] == summary["positions"]
    hist = pd.read_csv(out / "history.csv")
    assert list(hist.variant.unique()) == ["batch", "minibatch_l1"]
    assert list(hist.epoch) == [0, 1, 2, 0, 1, 2]
    batch = hist[hist.variant == "batch"]
    assert list(batch.steps) == [0, 2, 4]                         # k = 2 steps per search
    assert list(batch.positions_searched) == [0, summary["train_positions"],
                                              2 * summary["train_positions"]]
    assert np.allclose(hist.hand_sum, hist.hand_sum.iloc[0])      # the constraint (hand)
    assert not np.allclose(hist.piece_sum, hist.piece_sum.iloc[0])  # board values are free
    assert hist.nonzero_weights.iloc[-1] < hist.nonzero_weights.iloc[0]   # L1
    matches = pd.read_csv(out / "matches.csv")
    assert len(matches) == 5 and (matches.games == 2).all()
    assert set(report.summary.variant) == {"batch", "minibatch_l1", "initial", "teacher"}
    assert list(report.piece_values.columns) == ["initial", "teacher", "batch", "minibatch_l1"]


def test_resume_and_worker_independence(tiny_run, tmp_path):
    out, report = tiny_run
    again = B.run_experiment(out, TINY, seed=1, workers=1, write=False)     # all resumed
    pd.testing.assert_frame_equal(again.history, report.history)
    pd.testing.assert_frame_equal(again.matches, report.matches)
    parallel = B.run_experiment(tmp_path / "p", {**TINY, "match_games": 0}, seed=1, workers=2,
                                write=False)
    assert parallel.records_text == report.records_text
    pd.testing.assert_frame_equal(parallel.history, report.history)


def test_other_seed_in_the_same_folder_is_refused(tiny_run):
    out, _ = tiny_run
    with pytest.raises(ValueError, match="different run"):
        B.run_experiment(out, TINY, seed=2, workers=1, write=False)


@pytest.mark.parametrize("change, message", [
    ({"variants": ["batch", "adam"]}, "variants must be"),
    ({"test_fraction": 1.5}, "test_fraction"),
    ({"n_games": 0}, "n_games"),
    ({"l1_weight": -1}, "l1_weight"),
    ({"constraint": "none"}, "constraint must be 'hand' or 'material'"),
    ({"constraint": "material", "variants": ["minibatch", "minibatch_material"]},
     "would repeat it"),
])
def test_bad_sizes(change, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        B.run_experiment(tmp_path, {**TINY, **change}, workers=1)


def test_cli(tmp_path, capsys):
    out = tmp_path / "cli"
    args = ["bonanza_shogi", "--out", str(out), "--workers", "1", "--no-progress", "--seed", "1"]
    for key, value in TINY.items():
        args += ["-p", key, json.dumps(value)]
    assert cli_main(args + ["-p", "match_games", "0", "-p", "n_epochs", "1"]) == 0
    assert "bonanza_shogi: done" in capsys.readouterr().out
    assert (out / "history.csv").is_file()
    assert cli_main(["bonanza_shogi", "--out", str(tmp_path / "x"), "-p", "n_gamez", "3"]) == 2
    assert "unknown parameter(s) 'n_gamez'" in capsys.readouterr().err


def test_records_of_an_earlier_run_are_reused(tiny_run, tmp_path):
    out, report = tiny_run
    text = (out / "records.txt").read_text()
    assert B.finished_records(out / "records.txt", TINY, 1) == text
    assert B.finished_records(out / "records.txt", TINY, 2) is None             # other seed
    assert B.finished_records(out / "records.txt", {**TINY, "teacher_nodes": 301}, 1) is None
    short = tmp_path / "short.txt"
    short.write_text(text.rsplit("\n", 2)[0] + "\n")                          # a game missing
    assert B.finished_records(short, TINY, 1) is None
    new = tmp_path / "retrain"                  # a retraining of the run: no teacher game replayed
    new.mkdir()
    (new / "records.txt").write_text(text)
    again = B.run_experiment(new, {**TINY, "match_games": 0}, seed=1, workers=1, write=False)
    assert not (new / "records").exists()
    assert again.records_text == report.records_text
    pd.testing.assert_frame_equal(again.history, report.history)


def test_provenance_names_the_constraints_and_old_runs_read_as_material(tiny_run, tmp_path):
    import shutil

    out, _ = tiny_run
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["sizes"]["constraint"] == "hand"
    assert prov["constraints"] == {"batch": "hand", "minibatch_l1": "hand"}
    old = tmp_path / "old"
    shutil.copytree(out, old)
    del prov["sizes"]["constraint"]
    (old / "provenance.json").write_text(json.dumps(prov))
    _, sizes = B.load_report(old)
    assert sizes["constraint"] == "material"
    with pytest.raises(ValueError, match="constraint 'material' \\(wanted 'hand'\\)"):
        B.load_report(old, expect=TINY)

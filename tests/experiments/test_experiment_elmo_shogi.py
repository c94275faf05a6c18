"""The elmo experiment end to end at a tiny size: CLI, report files, resume, bad options."""

import json

import numpy as np
import pandas as pd
import pytest

from gamelib.experiments import elmo_shogi as X
from gamelib.experiments.cli import main

TINY = ["-p", "n_games", "6", "-p", "games_per_batch", "3", "-p", "node_budget", "200",
        "-p", "n_epochs", "2", "-p", "match_games", "2", "-p", "match_node_budget", "100",
        "-p", "batch_size", "16"]


def test_cli_runs_resumes_and_reports(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["elmo_shogi", "--out", str(out), "--workers", "1", "--no-progress", *TINY]) == 0
    text = capsys.readouterr().out
    assert "K =" in text and "verdict" in text
    assert "Held-out cross-entropy" in (out / "verdict.md").read_text()
    for name in ("curves.csv", "final.csv", "matches.csv", "teacher_summary.json", "verdict.json", "verdict.md",
                 "curves.png", "provenance.json", "teacher.npz", "theta/apery.npz",
                 "theta/elmo_0.33.npz", "theta/initial.npz"):
        assert (out / name).exists(), name
    curves = pd.read_csv(out / "curves.csv")
    assert set(curves["loss"]) == {"elmo_0", "elmo_0.33", "elmo_0.5", "elmo_1", "apery"}
    matches = pd.read_csv(out / "matches.csv")
    assert len(matches) == 11 and (matches.games == 2).all()
    assert ((matches.low <= matches.win_rate) & (matches.win_rate <= matches.high)).all()
    summary = json.loads((out / "teacher_summary.json").read_text())
    assert summary["scale"] > 0 and summary["train_positions"] + summary["test_positions"] \
        <= summary["positions"]
    first = (out / "curves.csv").read_text()
    assert main(["elmo_shogi", "--out", str(out), "--workers", "1", "--no-progress", *TINY]) == 0
    assert (out / "curves.csv").read_text() == first
    assert main(["elmo_shogi", "--out", str(out), "--no-progress", *TINY, "-p", "node_budget", "300"]) == 2


def test_bad_sizes_and_split():
    with pytest.raises(ValueError, match="lambdas"):
        X.elmo_config({**X.PROFILES["quick"], "lambdas": [0.5, 0.5]})
    with pytest.raises(ValueError, match="multiple"):
        X.elmo_config({**X.PROFILES["quick"], "n_games": 50})
    arr = np.zeros(30, dtype=[("game", "u4")])
    arr["game"] = np.repeat(np.arange(10), 3)
    tr, te = X.split_games(arr, 0.2, 0)
    assert te.size == 6 and tr.size == 24
    assert not set(arr["game"][tr]) & set(arr["game"][te])
    assert X.label("elmo_0.33") == "elmo λ = 0.33" and X.label("apery").startswith("Apery")

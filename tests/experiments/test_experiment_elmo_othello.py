"""The elmo_othello experiment end to end at a tiny size (one WTHOR year): the command line, its
files, the split by game, the losses going down, resumption after SIGKILL with identical files,
workers, and bad sizes refused before anything is written."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gamelib.experiments import elmo_othello as EO
from gamelib.experiments.cli import main as cli_main
from gamelib.experiments.othello_ladder import learned_spec
from gamelib.games.othello import features as F
from gamelib.learn import elmo_positions as EP

from wthor_runs import experiment_argv, finish, kill_at, listing, needs_wthor, read_files, wthor_missing

ROOT = Path(__file__).resolve().parents[2]
#: One year (160 games), 800 positions at 200 nodes, four games a pairing: seconds.
TINY = {**EO.PROFILES["quick"], "first_year": 1980, "last_year": 1980, "n_train": 600,
        "n_test": 200, "node_budget": 200, "positions_per_batch": 100, "n_epochs": 3,
        "batch_size": 32, "match_games": 4, "match_nodes": 200}
LOSSES = ["elmo_0", "elmo_0.33", "elmo_0.5", "elmo_1", "apery"]
REPORT = ("curves.csv", "final.csv", "matches.csv", "teacher_summary.json", "teacher.npz",
          *(f"theta/{name}.npz" for name in LOSSES))


def _argv(out, sizes=TINY, workers=1):
    return experiment_argv("elmo_othello", EO.PROFILES["quick"], out, sizes, workers)


def _files(out) -> dict:
    return read_files(out, REPORT)


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    if wthor_missing():
        pytest.skip(wthor_missing())
    out = tmp_path_factory.mktemp("elmo_othello") / "run"
    done = subprocess.run(_argv(out), capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return out, done


@needs_wthor
def test_the_command_line_writes_the_report(cli_run):
    out, done = cli_run
    assert "elmo_othello: done" in done.stdout and "K = " in done.stdout
    for name in (*REPORT, "curves.png", "provenance.json"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "teacher_summary.json").read_text())
    assert summary["years"] == [1980, 1980] and summary["games"] == 160
    assert summary["test_games"] == 16 and summary["train_games"] == 144
    assert (summary["train_positions"], summary["test_positions"]) == (600, 200)
    assert 0 < summary["train_mean_nodes"] <= 200 and summary["scale"] > 0
    assert summary["scale_in_discs"] == pytest.approx(64 * summary["scale"])
    curves = pd.read_csv(out / "curves.csv")
    assert list(curves.loss.unique()) == LOSSES
    assert list(curves[curves.loss == "apery"].epoch) == [0, 1, 2, 3]
    start = curves[curves.epoch == 0]
    assert np.allclose(start.test_result_xent, start.test_result_xent.iloc[0])  # one start
    final = pd.read_csv(out / "final.csv")
    assert list(final.loss) == LOSSES and list(final["lambda"][:4]) == [0, 0.33, 0.5, 1]
    matches = pd.read_csv(out / "matches.csv")
    assert list(matches.player) == LOSSES and (matches.opponent == "classic").all()
    assert ((matches.wins + matches.draws + matches.losses) == 4).all()
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["experiment"] == "elmo_othello" and prov["seed"] == 3
    assert prov["teacher"] == "classic" and prov["deep_search"]["node_budget"] == 200
    assert set(prov["wall_time_by_stage_s"]) == {"data", "teacher", "learning", "matches"}


@needs_wthor
def test_every_loss_goes_down_on_its_training_positions(cli_run):
    curves = pd.read_csv(cli_run[0] / "curves.csv")
    for name, lam in (("elmo_0", 0), ("elmo_0.33", 0.33), ("elmo_0.5", 0.5), ("elmo_1", 1)):
        c = curves[curves.loss == name]
        loss = c.train_result_xent + lam * c.train_teacher_xent        # elmo's L + λH
        assert loss.iloc[-1] < loss.iloc[0] - 0.01, name
    apery = curves[curves.loss == "apery"]
    assert apery.train_teacher_mse.iloc[-1] < apery.train_teacher_mse.iloc[0]


@needs_wthor
def test_the_split_is_by_game_and_the_labels_are_the_games(cli_run):
    data = EO.load_data(TINY, 3)
    games = data.positions.game
    assert not set(games[data.train]) & set(games[data.test])
    assert set(games[data.test]) <= set(data.split.held_out_games)
    assert np.all(data.results[games[data.ids]] != 0)                 # drawn games left out
    # the same held-out games as bonanza_othello's split of this seed and these years
    from gamelib.experiments import bonanza_othello as BO
    bonanza = BO.load_data({**BO.PROFILES["quick"], "first_year": 1980, "last_year": 1980}, 3)
    assert np.array_equal(bonanza.split.held_out_games, data.split.held_out_games)
    # teacher.npz: the deep scores of the sampled positions; the results seen from the side
    # to move
    saved = np.load(cli_run[0] / "teacher.npz")
    assert np.array_equal(saved["ids"], data.ids)
    assert np.array_equal(saved["held_out"], np.isin(data.ids, data.test))
    batch = EO.teacher_batch(data, EP.DeepScores(*(saved[k] for k in (
        "ids", "score", "depth", "nodes", "leaf_kind"))), data.test)
    black = data.positions.ply[data.test] % 2 == 0                    # WTHOR stores the passes
    won = data.results[games[data.test]] > 0
    assert np.array_equal(batch.result, np.where(black == won, 1.0, 0.0))
    summary = json.loads((cli_run[0] / "teacher_summary.json").read_text())
    assert EO.fit_teacher_scale(EO.teacher_batch(data, EP.DeepScores(*(saved[k] for k in (
        "ids", "score", "depth", "nodes", "leaf_kind"))), data.train)) == summary["scale"]


@needs_wthor
def test_the_report_reads_back_and_the_ladder_plays_its_files(cli_run):
    out, _ = cli_run
    report, sizes = EO.load_report(out, expect=TINY)
    assert sizes == EO.elmo_othello_config(TINY) and list(report.thetas) == LOSSES
    assert not np.array_equal(report.thetas["elmo_0.5"], F.initial_theta())
    files = EO.learned_files(out)
    assert list(files) == ["elmo-0", "elmo-0.33", "elmo-0.5", "elmo-1", "elmo-apery"]
    assert learned_spec(files["elmo-0.5"]) == f"gamelib:linear={out}/theta/elmo_0.5.npz"
    with pytest.raises(ValueError, match="other sizes: n_epochs 3 \\(wanted 4\\)"):
        EO.load_report(out, expect={**TINY, "n_epochs": 4})


@needs_wthor
def test_a_killed_run_resumes_to_the_same_files(cli_run, tmp_path):
    reference, _ = cli_run
    out = tmp_path / "run"
    kill_at(_argv(out), out, "teacher/checkpoint-000000002.npz", ROOT)
    assert not (out / "curves.csv").exists()
    finish(_argv(out), ROOT)
    assert _files(out) == _files(reference)


@needs_wthor
def test_two_workers_give_the_same_numbers(cli_run, tmp_path):
    reference, _ = cli_run
    out = tmp_path / "w2"
    EO.run_experiment(out, {**TINY, "match_games": 0}, seed=3, workers=2)
    for name in REPORT:
        if name != "matches.csv":
            assert (out / name).read_bytes() == (reference / name).read_bytes(), name


@pytest.mark.parametrize("params, message", [
    (["-p", "n_epochz", "3"], "unknown parameter(s) 'n_epochz'"),
    (["-p", "lambdas", "[-0.5]"], "lambdas must be a non-empty list of numbers >= 0"),
    (["-p", "lambdas", "[0.5, 0.5000001]"], "their losses are named ['elmo_0.5', 'elmo_0.5']"),
    (["-p", "lambdas", "[]"], "lambdas must be a non-empty list"),
    (["-p", "match_games", "3"], "match_games must be even"),
    (["-p", "match_opening_plies", "0"], "match_opening_plies must be 1..20 with matches"),
    (["-p", "test_fraction", "1.5"], "test_fraction"),
    (["-p", "n_train", "0"], "n_train must be a positive integer"),
    (["-p", "node_budget", "0"], "node_budget must be a positive integer"),
    (["-p", "learning_rate", "0"], "learning_rate"),
    (["-p", "first_year", "1976"], "first_year"),
    (["-p", "first_year", "1990", "-p", "last_year", "1980"], "first_year 1990 is after"),
])
def test_a_bad_size_is_refused_before_anything_is_written(params, message, tmp_path, capsys):
    out = tmp_path / "run"
    (tmp_path / "keep.txt").write_text("x")
    before = listing(tmp_path)
    assert cli_main(["elmo_othello", "--profile", "quick", "--out", str(out), "--workers", "1",
                     "--no-progress", *params]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert listing(tmp_path) == before and not out.exists()


@needs_wthor
def test_records_that_cannot_serve_the_sizes_are_refused_before_anything_is_written(
        tmp_path, capsys):
    out = tmp_path / "run"
    assert cli_main(["elmo_othello", "--profile", "quick", "--out", str(out), "--no-progress",
                     "-p", "last_year", "2099"]) == 2
    line = capsys.readouterr().err.strip()
    assert "no WTHOR file for year(s) " in line and "python -m gamelib.games.othello.download" in line
    assert not out.exists()

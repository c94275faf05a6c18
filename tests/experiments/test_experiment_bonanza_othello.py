"""The bonanza_othello experiment end to end at a tiny size (one WTHOR year): the command line,
its files, resumption after SIGTERM and SIGKILL with identical files, workers, bad sizes and a
missing WTHOR folder refused before anything is written."""

import json
import signal
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gamelib.experiments import bonanza_othello as BO
from gamelib.experiments.cli import main as cli_main
from gamelib.experiments.othello_ladder import learned_spec
from gamelib.games.othello import features as F
from gamelib.learn import bonanza_othello as bo
from gamelib.games.othello import wthor

from wthor_runs import experiment_argv, finish, kill_at, listing, needs_wthor, read_files, start_paused_at

ROOT = Path(__file__).resolve().parents[2]
#: One year (160 games), two epochs, four games a pairing: seconds.
TINY = {**BO.PROFILES["quick"], "first_year": 1980, "last_year": 1980, "n_epochs": 2,
        "batch_size": 1000, "n_train_eval": 300, "match_games": 4, "match_nodes": 200}
REPORT = ("history.csv", "summary.csv", "matches.csv", "data_summary.json", "curves.png",
          "theta/minibatch.npz", "theta/minibatch_no_constraint.npz", "theta/minibatch_l1.npz")


def _argv(out, sizes=TINY, workers=1):
    return experiment_argv("bonanza_othello", BO.PROFILES["quick"], out, sizes, workers)


def _files(out) -> dict:
    return read_files(out, REPORT)


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bonanza_othello") / "run"
    done = subprocess.run(_argv(out), capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return out, done


@needs_wthor
def test_the_command_line_writes_the_report(cli_run):
    out, done = cli_run
    assert "bonanza_othello: done" in done.stdout
    for name in (*REPORT, "provenance.json"):
        assert (out / name).is_file(), name
    data = json.loads((out / "data_summary.json").read_text())
    assert data["years"] == [1980, 1980] and data["games"] == data["games_by_year"]["1980"] == 160
    assert data["test_games"] == 16 and data["train_games"] == 144
    assert data["train_positions"] + data["test_positions"] \
        + data["test_positions_dropped_seen_in_training"] == data["positions"]
    assert data["train_eval_positions"] == 300 and set(data["files_sha256"]) == {"WTH_1980.wtb"}
    hist = pd.read_csv(out / "history.csv")
    assert list(hist.variant.unique()) == ["minibatch", "minibatch_no_constraint", "minibatch_l1"]
    assert list(hist.epoch) == [0, 1, 2] * 3
    steps = -(-data["train_positions"] // 1000)
    assert list(hist.steps[:3]) == [0, steps, 2 * steps]
    assert list(hist.positions_searched[:3]) == [0, data["train_positions"],
                                                 2 * data["train_positions"]]
    constrained = hist[hist.variant != "minibatch_no_constraint"]
    assert np.allclose(constrained.classic_component, 1, rtol=0, atol=1e-12)   # the constraint
    first = hist[hist.epoch == 0]
    assert np.allclose(first.J_test, first.J_test.iloc[0])                  # one start: classic
    last = hist[hist.epoch == 2]
    assert (last.J_test.to_numpy() < first.J_test.to_numpy()).all()          # they learn
    assert (last.agreement_test.to_numpy() > first.agreement_test.to_numpy()).all()
    l1 = hist[hist.variant == "minibatch_l1"].nonzero_weights.iloc[-1]
    assert l1 < hist[hist.variant == "minibatch"].nonzero_weights.iloc[-1]  # L1 prunes
    summary = pd.read_csv(out / "summary.csv")
    assert list(summary.variant) == ["minibatch", "minibatch_no_constraint", "minibatch_l1",
                                     "classic"]
    assert summary.J_test.iloc[-1] == pytest.approx(first.J_test.iloc[0])
    matches = pd.read_csv(out / "matches.csv")
    assert list(matches.player) == ["minibatch", "minibatch_no_constraint", "minibatch_l1"]
    assert (matches.opponent == "classic").all() and (matches.games == 4).all()
    assert ((matches.wins + matches.draws + matches.losses) == 4).all()
    assert (matches.wilson_low <= matches.win_rate).all() and "elo_low" in matches
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["experiment"] == "bonanza_othello" and prov["seed"] == 3
    assert prov["constraints"] == {"minibatch": "classic", "minibatch_no_constraint": "none",
                                   "minibatch_l1": "classic"}
    assert set(prov["wall_time_by_stage_s"]) == {"data", "training", "matches"}


@needs_wthor
def test_the_report_reads_back_and_the_ladder_plays_its_files(cli_run):
    out, _ = cli_run
    report, sizes = BO.load_report(out, expect=TINY)
    assert sizes == BO.bonanza_othello_config(TINY)
    assert list(report.thetas) == list(TINY["variants"])
    assert not np.array_equal(report.thetas["minibatch"], F.initial_theta())
    assert bo.classic_component(report.thetas["minibatch"]) == pytest.approx(1, abs=1e-12)
    files = BO.learned_files(out)
    assert learned_spec(files["bonanza-minibatch"]) == f"gamelib:linear={out}/theta/minibatch.npz"
    with pytest.raises(ValueError, match="other sizes: n_epochs 2 \\(wanted 3\\)"):
        BO.load_report(out, expect={**TINY, "n_epochs": 3})


@needs_wthor
def test_a_run_stopped_by_sigterm_and_killed_resumes_to_the_same_files(cli_run, tmp_path):
    reference, _ = cli_run
    out = tmp_path / "run"
    proc = start_paused_at(_argv(out), out, "train/minibatch/checkpoint-000000001.npz",
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, text=True)
    proc.send_signal(signal.SIGTERM)
    proc.send_signal(signal.SIGCONT)
    assert proc.wait(120) == 128 + signal.SIGTERM
    assert "rerun the same command" in proc.stderr.read()
    assert not (out / "history.csv").exists()
    kill_at(_argv(out), out, "train/minibatch_l1/checkpoint-000000001.npz", ROOT)
    finish(_argv(out), ROOT)
    assert _files(out) == _files(reference)


@needs_wthor
def test_two_workers_give_the_same_numbers(cli_run, tmp_path):
    reference, _ = cli_run
    out = tmp_path / "w2"
    BO.run_experiment(out, {**TINY, "match_games": 0}, seed=3, workers=2)
    for name in REPORT:
        if name not in ("matches.csv", "curves.png"):
            assert (out / name).read_bytes() == (reference / name).read_bytes(), name


@needs_wthor
def test_another_seed_in_the_same_folder_is_refused(cli_run):
    out, _ = cli_run
    with pytest.raises(ValueError, match="different run"):
        BO.run_experiment(out, TINY, seed=4, workers=1, write=False)


def _refused(params, tmp_path, capsys) -> str:
    out = tmp_path / "run"
    (tmp_path / "keep.txt").write_text("x")
    before = listing(tmp_path)
    assert cli_main(["bonanza_othello", "--profile", "quick", "--out", str(out), "--workers",
                     "1", "--no-progress", *params]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert listing(tmp_path) == before and not out.exists()
    return lines[0]


@pytest.mark.parametrize("params, message", [
    (["-p", "variants", '["batch"]'], "variants must be"),
    (["-p", "test_fraction", "1.5"], "test_fraction"),
    (["-p", "n_epochs", "0"], "n_epochs"),
    (["-p", "batch_size", "0"], "batch_size"),
    (["-p", "learning_rate", "0"], "learning_rate"),
    (["-p", "l1_weight", "0"], "l1_weight must be positive with variant 'minibatch_l1'"),
    (["-p", "match_games", "3"], "match_games must be even"),
    (["-p", "match_opening_plies", "0"], "match_opening_plies"),
    (["-p", "first_year", "1976"], "first_year"),
    (["-p", "first_year", "1990", "-p", "last_year", "1980"], "first_year 1990 is after"),
    (["-p", "n_epochz", "3"], "unknown parameter(s) 'n_epochz'"),
])
def test_a_bad_size_is_refused_before_anything_is_written(params, message, tmp_path, capsys):
    assert message in _refused(params, tmp_path, capsys)


@needs_wthor
@pytest.mark.parametrize("params, message", [
    (["-p", "last_year", "2099"], "no WTHOR file for year(s) "),
    (["-p", "first_year", "1980", "-p", "last_year", "1980", "-p", "test_fraction", "0.001"],
     "test_fraction 0.001 of the 160 games of 1980-1980 leaves no test"),
])
def test_sizes_the_records_cannot_serve_are_refused_before_anything_is_written(
        params, message, tmp_path, capsys):
    line = _refused(params, tmp_path, capsys)
    assert message in line
    if "year" in message:
        assert "python -m gamelib.games.othello.download --years" in line


def test_a_missing_wthor_folder_is_one_error_naming_the_download(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(wthor.ENV_VAR, raising=False)
    monkeypatch.setattr(wthor, "default_dirs", lambda: [tmp_path / "no-wthor"])
    line = _refused([], tmp_path, capsys)
    assert "no WTHOR .wtb files found" in line and "python -m gamelib.games.othello.download" in line


def test_the_profiles_round_trip_and_the_noise_is_the_pgleaf_studys():
    import math

    for sizes in BO.PROFILES.values():
        config = BO.bonanza_othello_config(sizes)
        assert json.dumps(config.as_dict()) == json.dumps(sizes)
    c = json.loads((ROOT / "data/results/paper/pgleaf/othello/calibration.json").read_text())["c"]
    assert BO.PROFILES["paper"]["match_noise_std"] == pytest.approx(math.sqrt(0.001) * c,
                                                                    abs=1e-4)

"""The PGLeaf evaluation games from random openings: match_opening_plies and the replay of a
finished run's matches (gamelib.experiments.pgleaf.openings)."""

import hashlib
import json

import pandas as pd
import pytest

from gamelib.experiments import pgleaf
from gamelib.experiments.cli import main
from gamelib.experiments.pgleaf import openings
from gamelib.runtime.paths import results_dir

TINY = ["-p", "n_games", "8", "-p", "M", "4", "-p", "games_per_job", "2", "-p", "max_plies",
        "60", "-p", "keep_points", "[4, 8]", "-p", "table_points", "[8]", "-p", "curve_points",
        "[0, 4, 8]", "-p", "round_robin_games", "4", "-p", "gauntlet_games", "4", "-p",
        "node_budget", "200", "-p", "max_depth", "8"]


def _sha(frame) -> str:
    return hashlib.sha256(json.dumps(frame.values.tolist()).encode()).hexdigest()


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A tiny finished run (seed 5) of the protocol before random openings existed."""
    out = tmp_path_factory.mktemp("pgleaf") / "seed-5"
    assert main(["pgleaf", "--profile", "quick", "--seed", "5", "--out", str(out),
                 "--workers", "1", "--no-progress", *TINY]) == 0
    return out


def test_without_openings_the_matches_are_todays(run):
    """Hashes of this run's match results taken before match_opening_plies existed."""
    report, sizes = pgleaf.load_report(run)
    assert sizes["match_opening_plies"] == 0
    assert _sha(report.round_robin) == \
        "0feaeab9d6041f07a54e6f70b2cb7bb62c373820b5fb633db1294337c2d62a44"
    assert _sha(report.gauntlet) == \
        "9128f7d76e8db2d953fd441c63975e8efea839011f4280be9ad7ad46223964ee"


def test_a_replay_without_openings_gives_the_runs_games_back(run, tmp_path):
    """The replay plays the saved parameters (and those of train/ for the point not saved)
    with the run's seeds: at 0 plies exactly the run's matches."""
    out = tmp_path / "replay"
    openings.replay_matches(run, 0, out, workers=1)
    for name in ("round_robin.csv", "gauntlet.csv", "curves.csv", "elo.csv", "training.csv"):
        assert (out / name).read_bytes() == (run / name).read_bytes(), name


def test_a_replay_from_random_openings_is_a_run_the_claims_can_judge(run, tmp_path):
    report = openings.replay_matches(run, 2, workers=2)
    out = openings.openings_folder(run, 2)
    assert out == run.parent / "openings" / "plies=2" / "seed-5"
    again, sizes = pgleaf.load_report(out)
    assert sizes["match_opening_plies"] == 2 and sizes["n_games"] == 8
    pd.testing.assert_frame_equal(again.round_robin, report.round_robin)
    before, _ = pgleaf.load_report(run)
    assert len(again.round_robin) == len(before.round_robin)
    assert ((again.round_robin.wins + again.round_robin.draws + again.round_robin.losses)
            == 4).all()
    assert not again.round_robin.equals(before.round_robin)           # other games
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["source"] == str(run.resolve()) and len(prov["source_theta_sha256"]) == 64
    assert set(pgleaf.claims(again, sizes).verdict) <= {"reproduced", "contradicted",
                                                      "not significant", "consistent"}
    verdicts = pgleaf.claim_verdicts(again, sizes, "replay")
    assert len(verdicts) > 0 and set(verdicts.configuration) == {"replay"}
    # one worker gives the same games; rerunning resumes without playing anything new
    one = openings.replay_matches(run, 2, tmp_path / "one", workers=1)
    pd.testing.assert_frame_equal(one.gauntlet, report.gauntlet)
    first = {p.name: p.read_bytes() for p in out.glob("*.csv")}
    openings.replay_matches(run, 2, workers=1)
    assert {p.name: p.read_bytes() for p in out.glob("*.csv")} == first
    assert len(json.loads((out / "provenance.json").read_text())["invocations"]) == 2


def test_a_replay_refuses_bad_input_before_writing(run, tmp_path):
    with pytest.raises(ValueError, match="another folder than the run itself"):
        openings.replay_matches(run, 2, run)
    with pytest.raises(ValueError, match="must be even with match_opening_plies"):
        pgleaf.profile_config("quick", gauntlet_games=3, match_opening_plies=2)
    with pytest.raises(ValueError, match=r"match_opening_plies \(60\) must be below the games. cap of"):
        openings.replay_matches(run, 60, tmp_path / "x")
    with pytest.raises(FileNotFoundError, match="not a finished pgleaf run"):
        openings.replay_matches(tmp_path, 2, tmp_path / "y")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
    openings.replay_matches(run, 0, tmp_path / "z", workers=1)
    with pytest.raises(ValueError, match="holds another replay"):
        openings.replay_matches(run, 2, tmp_path / "z", workers=1)


def test_the_committed_run_reads_as_made_from_the_standard_position():
    """Runs made before match_opening_plies existed read as 0, and every parameter the replay
    of the committed run needs is committed."""
    folder = results_dir("paper", "pgleaf") / "seed-0"
    if not (folder / "provenance.json").is_file():
        pytest.skip("no committed paper run")
    report, sizes = pgleaf.load_report(folder, expect=pgleaf.PROFILES["paper"])
    assert sizes["match_opening_plies"] == 0
    thetas = openings.replay_thetas(folder, sizes, 0)
    assert sorted(thetas) == [0, 1000, 10_000, 100_000]
    assert all(len(t) == len(pgleaf.runs_of(sizes)) for t in thetas.values())

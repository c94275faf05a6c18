"""The committed paper-profile runs still describe the code's paper profiles.

A run under ``data/results/paper/<folder>/seed-<S>/`` took an hour or more and is shown by the
book. If someone changes an experiment's ``paper`` sizes, the committed numbers no longer come
from the profile the README tells readers to rerun: this test fails until the run is redone (or
the change reverted). Finished runs must also carry the report files their chapter reads.
"""

import json
from pathlib import Path

import pytest

from gamelib import notebook as nb
from gamelib.experiments.registry import REGISTRY, discover

PAPER = nb.repo_root() / "data" / "results" / "paper"
RUNS = sorted(p.parent for p in PAPER.glob("*/seed-*/provenance.json"))

#: Files every finished run of an experiment has at its top (what the chapters read).
REPORT_FILES = {
    "elmo_shogi": ["curves.csv", "final.csv", "matches.csv", "teacher_summary.json", "verdict.md"],
    "elmo_othello": ["curves.csv", "final.csv", "matches.csv", "teacher_summary.json",
                     "curves.png", "theta/apery.npz"],
    "bonanza_shogi": ["history.csv", "summary.csv", "piece_values.csv", "matches.csv"],
    "bonanza_othello": ["history.csv", "summary.csv", "matches.csv", "data_summary.json",
                        "curves.png", "theta/minibatch.npz"],
    "fsf_ladder": ["ladder.csv", "ratings.csv", "ladder.png"],
    "othello_ladder": ["ladder.csv", "ratings.csv", "ladder.png"],
    "pgleaf": ["training.csv", "round_robin.csv", "gauntlet.csv", "curves.csv", "elo.csv",
               "tables.md"],
}


def _normalised(sizes):
    """An experiment's checked sizes (a mapping: a dict, or pgleaf's typed configuration) as
    plain JSON values."""
    return json.loads(json.dumps(dict(sizes)))


@pytest.mark.parametrize("run", RUNS, ids=[f"{p.parent.name}/{p.name}" for p in RUNS])
def test_committed_paper_run_matches_the_paper_profile(run: Path):
    discover()
    prov = json.loads((run / "provenance.json").read_text())
    assert prov["profile"] == "paper", f"{run} is not a paper-profile run"
    experiment = REGISTRY.get(prov["experiment"])
    check = experiment.check or dict
    assert _normalised(check(prov["sizes"])) == _normalised(check(experiment.profiles["paper"])), (
        f"{run} was made with other sizes than experiment {experiment.name!r}'s paper profile "
        f"now has: rerun it (README, 'Paper-scale runs') or revert the profile")
    assert prov["seed"] == int(run.name.split("-", 1)[1])
    missing = [f for f in REPORT_FILES[experiment.name] if not (run / f).is_file()]
    assert not missing, f"{run} lacks report files {missing}"
    for invocation in prov["invocations"]:
        assert invocation["git_commit"], f"{run}: an invocation without its git commit"


def _pgleaf_expected_sizes(folder: str):
    """The configuration the full-size PGLeaf run in ``folder`` (a value of
    ``verdicts.configuration_folders``) must have been made with."""
    from dataclasses import replace

    from gamelib.experiments import pgleaf
    from gamelib.experiments.pgleaf.closest import closest_sizes

    parts = folder.split("/")
    sizes = closest_sizes() if parts[0] == "closest" else pgleaf.profile_config("paper")
    plies = [p for p in parts if p.startswith("plies=")]
    if plies:        # a replay of the run's matches from random openings (pgleaf.openings)
        sizes = replace(sizes, match_opening_plies=int(plies[0].split("=", 1)[1]))
    return sizes


def _pgleaf_configurations():
    from gamelib.experiments.pgleaf.verdicts import configuration_folders

    return sorted(f.relative_to(PAPER / "pgleaf").as_posix()
                  for folders in configuration_folders(PAPER / "pgleaf").values()
                  for f in folders)


@pytest.mark.parametrize("folder", _pgleaf_configurations())
def test_committed_pgleaf_run_reads_back_and_is_complete(folder: str):
    """The chapter and the verdict table read every full-size run through ``load_report``:
    it must have been made with its configuration's sizes, and every round-robin pairing and
    every gauntlet point must be there, each with its number of games."""
    from gamelib.experiments import pgleaf

    sizes = _pgleaf_expected_sizes(folder)
    report, _ = pgleaf.load_report(PAPER / "pgleaf" / folder, expect=sizes)
    n_runs = len(pgleaf.runs_of(sizes))
    rr = report.round_robin
    assert set(rr.games) == set(sizes["table_points"])
    assert ((rr.wins + rr.draws + rr.losses) == sizes["round_robin_games"]).all()
    pairs = len(sizes["algorithms"]) * (len(sizes["algorithms"]) - 1)   # both directions
    assert len(rr) == pairs * len(sizes["table_points"]) * sizes["replicates"]
    g = report.gauntlet
    assert ((g.wins + g.draws + g.losses) == sizes["gauntlet_games"]).all()
    assert len(g[g.games > 0]) == n_runs * len([p for p in sizes["curve_points"] if p > 0])
    assert len(report.training) == n_runs * sizes["n_games"] // sizes["M"]


def test_every_experiment_has_a_chapter_and_a_results_folder_of_its_name():
    """One name per study: the registry, the chapter (``notebooks/<name>.ipynb``) and the
    committed paper runs (``data/results/paper/<name>/``) use the same name."""
    discover()
    for name in REGISTRY.names():
        assert (nb.notebooks_dir() / f"{name}.ipynb").is_file(), f"no chapter named {name!r}"
        assert (PAPER / name).is_dir(), f"no data/results/paper/{name}/ for experiment {name!r}"
    for run in RUNS:
        assert REGISTRY.get(json.loads((run / "provenance.json").read_text())["experiment"]).name \
            == run.parent.name, f"{run} holds another experiment's run"


@pytest.mark.parametrize("name", ["pgleaf", "bonanza_shogi", "elmo_shogi"])
def test_open_run_reads_the_committed_paper_run(name, tmp_path):
    """The chapters' one run-or-load path: a committed run is read, not rerun; a folder
    without a finished run is left alone when only reading is asked for."""
    from gamelib.experiments.runs import open_run, profile_sizes

    if not (PAPER / name / "seed-0" / "provenance.json").is_file():
        pytest.skip(f"no committed paper run of {name}")
    report, sizes = open_run(name, "paper", 0)
    assert sizes == profile_sizes(name, "paper")
    assert report.timings and all(v > 0 for v in report.timings.values())
    assert open_run(name, "paper", 0, out=tmp_path / "none", make=False)[0] is None
    assert not (tmp_path / "none").exists()
    with pytest.raises(ValueError, match="other sizes"):
        # (pgleaf: n_games is the last of keep_points, so another n_games is no valid run)
        key = {"pgleaf": "gauntlet_games", "bonanza_shogi": "n_games",
               "elmo_shogi": "n_games"}[name]
        open_run(name, "paper", 0, {key: 2 * sizes[key]}, make=False)

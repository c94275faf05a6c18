"""The PGLeaf experiment's one typed configuration: made and validated once, as a whole, on the
command line before anything runs or is written; and the same sizes the committed runs stored."""

import dataclasses
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gamelib.experiments import pgleaf
from gamelib.experiments.cli import main
from gamelib.experiments.pgleaf.config import LEARNER_KEYS, PGLeafConfig
from gamelib.experiments.registry import discover
from gamelib.learn import pg_selfplay, td_selfplay
from gamelib.runtime.paths import results_dir

COMMITTED = sorted(results_dir("paper", "pgleaf").glob("**/provenance.json"))


def listing(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_the_bad_n_games_command_is_refused_before_anything_is_written(tmp_path):
    """``n_games`` 3000 with the quick profile's keep_points [100, 200, 300]: the report needs
    the parameters after the last game, which would not be kept. Refused by the command line
    itself: one ``error:`` line naming the sizes, exit 2, no folder made, nothing run."""
    out = tmp_path / "x"
    done = subprocess.run([sys.executable, "-m", "gamelib.experiments", "pgleaf", "--profile",
                           "quick", "-p", "n_games", "3000", "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stdout == ""                                   # the run never started
    assert done.stderr == ("error: n_games (3000) must be the last of keep_points [100, 200, "
                           "300]: the parameters after the last game are kept (the report "
                           "saves them)\n")
    assert not out.exists()


@pytest.fixture
def no_run(monkeypatch):
    """The pgleaf run must not start: its training stage fails the test if it is reached."""
    def refuse(*args, **kwargs):
        raise AssertionError("the run started")

    monkeypatch.setattr(importlib.import_module("gamelib.experiments.pgleaf.report"), "train",
                        refuse)


@pytest.mark.parametrize("params, field", [
    (["n_games", "3000"], "n_games"),
    (["n_games", "250"], "n_games"),                                     # not a multiple of M
    (["curve_points", "[0, 150, 300]"], "curve_points"),                 # not kept
    (["keep_points", "[100, 300, 200]"], "keep_points"),                 # not increasing
    (["match_opening_plies", "2", "-p", "gauntlet_games", "21"], "gauntlet_games"),
    (["match_opening_plies", "300"], "match_opening_plies"),             # >= max_plies
    (["td_alpha", "0"], "td_alpha"),
    (["algorithms", '["pgleaf", "sarsa"]'], "algorithms"),
    (["rewards", "[]"], "rewards"),
    (["beta", "-1"], "beta"),
])
def test_a_bad_size_or_relation_is_one_error_naming_the_field(params, field, tmp_path, capsys,
                                                               no_run):
    out = tmp_path / "run"
    (tmp_path / "keep.txt").write_text("x")
    before = listing(tmp_path)
    assert main(["pgleaf", "--profile", "quick", "--out", str(out), "-p", *params]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and field in lines[0], lines
    assert captured.out == ""
    assert listing(tmp_path) == before and not out.exists()


def test_the_command_line_passes_the_typed_configuration_down(tmp_path):
    opts = discover().options("pgleaf", profile="quick", out=tmp_path,
                              overrides={"n_games": 200, "keep_points": [100, 200],
                                         "table_points": [200], "curve_points": [0, 200]})
    config = opts.sizes
    assert isinstance(config, PGLeafConfig)
    assert config.n_games == 200 and config.keep_points == (100, 200)
    assert config.algorithms == tuple(pgleaf.ALGORITHMS)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.n_games = 300
    # a chapter's parameters reach the experiment through the same constructor
    from gamelib.experiments.runs import profile_sizes

    assert profile_sizes("pgleaf", "quick", {"n_games": 200, "keep_points": [100, 200],
                                             "table_points": [200],
                                             "curve_points": [0, 200]}) == config
    with pytest.raises(ValueError, match=r"n_games \(3000\) must be the last of keep_points"):
        profile_sizes("pgleaf", "quick", {"n_games": 3000, "replicates": None})


def test_every_way_of_making_a_configuration_validates_it():
    config = pgleaf.profile_config("quick")
    with pytest.raises(ValueError, match=r"n_games \(600\) must be the last of keep_points"):
        dataclasses.replace(config, n_games=600)
    with pytest.raises(ValueError, match=r"unknown size\(s\) \['n_game'\]"):
        pgleaf.pgleaf_config({**pgleaf.PROFILES["quick"], "n_game": 3})
    with pytest.raises(ValueError, match=r"missing size\(s\) \['gauntlet_games'\]"):
        pgleaf.pgleaf_config({k: v for k, v in pgleaf.PROFILES["quick"].items()
                              if k != "gauntlet_games"})
    with pytest.raises(ValueError, match="unknown profile 'fast'"):
        pgleaf.profile_config("fast")
    assert pgleaf.pgleaf_config(config) is config


def test_the_configuration_holds_every_learner_setting():
    """The learners' settings own their fields: the configuration has a field for each field
    of either family."""
    learner = {f.name for cls in (pg_selfplay.Settings, td_selfplay.Settings)
               for f in dataclasses.fields(cls)} - {"algorithm", "reward"}
    assert learner == set(LEARNER_KEYS)
    assert learner <= {f.name for f in dataclasses.fields(PGLeafConfig)}


@pytest.mark.parametrize("profile", sorted(pgleaf.PROFILES))
def test_a_profile_round_trips_to_its_sizes(profile):
    config = pgleaf.profile_config(profile)
    stored = config.as_dict()
    assert json.dumps(stored) == json.dumps(pgleaf.PROFILES[profile])    # same keys, order, types
    assert pgleaf.pgleaf_config(json.loads(json.dumps(stored))) == config


@pytest.mark.skipif(not COMMITTED, reason="no committed pgleaf run")
@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.parent.relative_to(
    results_dir("paper", "pgleaf")).as_posix())
def test_a_committed_run_reads_as_the_sizes_it_stored(path):
    """The configuration of a committed run's stored sizes gives back those sizes value for
    value (sizes the run predates read as it was made: the learner settings' defaults,
    ``match_opening_plies`` 0, ``td_alpha`` None), the same training identity (so the folder
    resumes), and its report reads with them as the expected sizes."""
    provenance = json.loads(path.read_text())
    stored = provenance["sizes"]
    config = pgleaf.pgleaf_config(stored)
    plain = config.as_dict()
    assert {k: json.dumps(plain[k]) for k in stored} == {k: json.dumps(v)
                                                          for k, v in stored.items()}
    later = {f.name: f.default for cls in (pg_selfplay.Settings, td_selfplay.Settings)
             for f in dataclasses.fields(cls) if f.name in LEARNER_KEYS}
    later.update(match_opening_plies=0, td_alpha=None)
    assert {k: plain[k] for k in set(plain) - set(stored)} == {
        k: later[k] for k in set(plain) - set(stored)}
    assert pgleaf.pgleaf_config(plain) == config
    if "train_config" in provenance:
        assert json.loads(json.dumps(pgleaf.train_config(config))) == provenance["train_config"]
    assert pgleaf.load_report(path.parent, expect=stored)[1] == config

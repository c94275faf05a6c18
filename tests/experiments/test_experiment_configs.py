"""Every experiment's one typed configuration (:mod:`gamelib.experiments.config`): made and
validated as a whole on the command line before anything runs or is written, with one error
naming the field; read back from the sizes the committed runs stored, value for value."""

import dataclasses
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gamelib.experiments import (bonanza_othello, bonanza_shogi, elmo_othello, elmo_shogi,
                                 fsf_ladder, othello_ladder)
from gamelib.experiments.bonanza_shogi.config import BonanzaConfig, bonanza_config
from gamelib.experiments.cli import main
from gamelib.experiments.config import ExperimentConfig
from gamelib.experiments.elmo_shogi import ElmoConfig, elmo_config
from gamelib.experiments.fsf_ladder import LadderConfig, ladder_config
from gamelib.experiments.registry import discover
from gamelib.runtime.paths import results_dir

#: name -> (its configuration's constructor, the module whose ``run_experiment`` runs it)
EXPERIMENTS = {
    "bonanza_shogi": (bonanza_config, "gamelib.experiments.bonanza_shogi.report"),
    "bonanza_othello": (bonanza_othello.bonanza_othello_config,
                        "gamelib.experiments.bonanza_othello.report"),
    "elmo_shogi": (elmo_config, "gamelib.experiments.elmo_shogi"),
    "elmo_othello": (elmo_othello.elmo_othello_config, "gamelib.experiments.elmo_othello.report"),
    "fsf_ladder": (ladder_config, "gamelib.experiments.fsf_ladder"),
    "othello_ladder": (othello_ladder.ladder_config, "gamelib.experiments.othello_ladder"),
}
PROFILES = {"bonanza_shogi": bonanza_shogi.PROFILES, "bonanza_othello": bonanza_othello.PROFILES,
            "elmo_shogi": elmo_shogi.PROFILES, "elmo_othello": elmo_othello.PROFILES,
            "fsf_ladder": fsf_ladder.PROFILES,
            "othello_ladder": othello_ladder.PROFILES}
COMMITTED = sorted(p for name in EXPERIMENTS
                   for p in results_dir("paper", name).glob("*/provenance.json"))


def listing(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("experiment, params, message", [
    # the old checks let these run: a sixth variant that repeats 'minibatch'
    ("bonanza_shogi", ["l1_weight", "0"],
     "error: l1_weight must be positive with variant 'minibatch_l1', which differs from "
     "'minibatch' only by its L1 term; with l1_weight 0 it would repeat it\n"),
    # ... one elmo loss silently dropped (both named elmo_0.5)
    ("elmo_shogi", ["lambdas", "[0.5, 0.5000001]"],
     "error: lambdas [0.5, 0.5000001] must differ in their first 6 significant digits: their "
     "losses are named ['elmo_0.5', 'elmo_0.5']\n"),
    # ... refused by the first match, after the run folder was made
    ("fsf_ladder", ["opening_plies", "150"],
     "error: opening_plies (150) must be below the games' cap of 150 plies\n"),
])
def test_a_bad_relation_is_refused_by_the_command_line_before_anything_is_written(
        experiment, params, message, tmp_path):
    out = tmp_path / "x"
    done = subprocess.run([sys.executable, "-m", "gamelib.experiments", experiment, "--profile",
                           "quick", "-p", *params, "--out", str(out)],
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)
    assert not out.exists()


@pytest.fixture
def no_run(monkeypatch):
    """No experiment may start: its ``run_experiment`` fails the test if it is reached."""
    def refuse(*args, **kwargs):
        raise AssertionError("the run started")

    for _, module in EXPERIMENTS.values():
        monkeypatch.setattr(importlib.import_module(module), "run_experiment", refuse)


@pytest.mark.parametrize("experiment, params, field", [
    ("bonanza_shogi", ["match_opening_plies", "300"], "match_opening_plies"),   # old: accepted
    ("bonanza_shogi", ["opening_plies", "300"], "opening_plies"),               # old: accepted
    ("bonanza_shogi", ["test_fraction", "0.01"], "test_fraction"),              # no test game
    ("bonanza_shogi", ["constraint", '"material"'], "constraint"),              # repeats a variant
    ("bonanza_shogi", ["variants", '["batch", "batch"]'], "variants"),
    ("bonanza_shogi", ["batch_size", "0"], "batch_size"),
    ("bonanza_shogi", ["minibatch_learning_rate", "0"], "minibatch_learning_rate"),
    ("elmo_shogi", ["eval_limit", "0"], "eval_limit"),            # old: after the folder was made
    ("elmo_shogi", ["n_games", "1", "-p", "games_per_batch", "1"], "n_games"),  # old: after the
    ("elmo_shogi", ["match_opening_plies", "300"], "match_opening_plies"),      # teacher games
    ("elmo_shogi", ["opening_plies", "300"], "opening_plies"),
    ("elmo_shogi", ["games_per_batch", "7"], "games_per_batch"),
    ("elmo_shogi", ["lambdas", "[-1]"], "lambdas"),
    ("elmo_shogi", ["lambdas", "[0, Infinity]"], "lambdas"),       # old: after the teacher games
    ("elmo_shogi", ["test_fraction", "1"], "test_fraction"),
    ("fsf_ladder", ["pgleaf_points", "[500]"], "pgleaf_points"),   # old: a missing file's name
    ("fsf_ladder", ["pgleaf_points", "[100000, 1000]"], "pgleaf_points"),
    ("fsf_ladder", ["pgleaf_reward", '"nope"'], "pgleaf_reward"),
    ("fsf_ladder", ["pgleaf_algorithms", '["pgleaf", "pgleaf"]'], "pgleaf_algorithms"),
    ("fsf_ladder", ["anchor_nodes", "7"], "anchor_nodes"),
    ("fsf_ladder", ["games", "3"], "games"),
    ("fsf_ladder", ["fsf_nodes", "[300]"], "fsf_nodes"),
    ("fsf_ladder", ["elmo", "3"], "elmo"),
    ("bonanza_othello", ["match_games", "3"], "match_games"),
    ("bonanza_othello", ["first_year", "2000", "-p", "last_year", "1999"], "first_year"),
    ("elmo_othello", ["lambdas", "[0.5, 0.5]"], "lambdas"),
    ("elmo_othello", ["match_games", "5"], "match_games"),
    ("elmo_othello", ["n_test", "0"], "n_test"),
    ("othello_ladder", ["games", "3"], "games"),
    ("othello_ladder", ["anchor_level", "3"], "anchor_level"),
    ("othello_ladder", ["levels", "[1, 6]"], "levels"),
    ("othello_ladder", ["opening_plies", "0"], "opening_plies"),
    ("othello_ladder", ["learned", '{"random": "x.npz"}'], "learned"),
])
def test_a_bad_size_or_relation_is_one_error_naming_the_field(experiment, params, field,
                                                               tmp_path, capsys, no_run):
    out = tmp_path / "run"
    (tmp_path / "keep.txt").write_text("x")
    before = listing(tmp_path)
    assert main([experiment, "--profile", "quick", "--out", str(out), "-p", *params]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and field in lines[0], lines
    assert captured.out == ""
    assert listing(tmp_path) == before and not out.exists()


@pytest.mark.parametrize("experiment", sorted(EXPERIMENTS))
def test_the_command_line_passes_the_typed_configuration_down(experiment, tmp_path):
    make, _ = EXPERIMENTS[experiment]
    config = discover().options(experiment, profile="quick", out=tmp_path).sizes
    assert isinstance(config, ExperimentConfig) and make(config) is config
    name = next(f.name for f in dataclasses.fields(config)
                if isinstance(getattr(config, f.name), tuple))
    assert isinstance(config[name], list)                        # the stored form: lists
    hash(config)                                                 # frozen, tuples inside
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(config, name, ())


@pytest.mark.parametrize("experiment, profile", [(e, p) for e in sorted(EXPERIMENTS)
                                                 for p in ("quick", "paper")])
def test_a_profile_round_trips_to_its_sizes(experiment, profile):
    make, _ = EXPERIMENTS[experiment]
    sizes = PROFILES[experiment][profile]
    config = make(sizes)
    assert json.dumps(config.as_dict()) == json.dumps(sizes)    # same keys, order, types
    assert make(json.loads(json.dumps(config.as_dict()))) == config


def test_every_way_of_making_a_configuration_validates_it():
    config = bonanza_config(bonanza_shogi.PROFILES["quick"])
    with pytest.raises(ValueError, match=r"l1_weight must be positive"):
        dataclasses.replace(config, l1_weight=0)
    with pytest.raises(ValueError, match=r"unknown size\(s\) \['n_game'\] for the bonanza_shogi "
                                         r"experiment"):
        bonanza_config({**bonanza_shogi.PROFILES["quick"], "n_game": 3})
    with pytest.raises(ValueError, match=r"missing size\(s\) \['node_budget'\] for the "
                                         r"fsf_ladder experiment"):
        ladder_config({k: v for k, v in fsf_ladder.PROFILES["quick"].items()
                       if k != "node_budget"})
    with pytest.raises(ValueError, match="the elmo_shogi experiment's sizes must be a mapping"):
        elmo_config([("n_games", 3)])
    with pytest.raises(ValueError, match="lambdas"):
        ElmoConfig(**{**elmo_shogi.PROFILES["quick"], "lambdas": [0.5, 0.5]})
    with pytest.raises(ValueError, match="anchor_nodes"):
        LadderConfig(**{**fsf_ladder.PROFILES["quick"], "anchor_nodes": 7})


def test_a_size_older_runs_predate_reads_as_they_were_made():
    """A Bonanza run made before ``constraint`` was a size had the material sum (so its
    ``minibatch_material`` variant would repeat ``minibatch``: such a run is refused whole)."""
    sizes = {k: v for k, v in bonanza_shogi.PROFILES["quick"].items() if k != "constraint"}
    sizes["variants"] = ["batch", "minibatch"]
    config = bonanza_config(sizes)
    assert config.constraint == "material" and isinstance(config, BonanzaConfig)
    with pytest.raises(ValueError, match="with constraint 'material' it would repeat it"):
        bonanza_config({**sizes, "variants": ["minibatch_material"]})


@pytest.mark.skipif(not COMMITTED, reason="no committed run")
@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.parent.relative_to(
    results_dir("paper", "")).as_posix())
def test_a_committed_run_reads_as_the_sizes_it_stored(path):
    """The configuration of a committed run's stored sizes gives back those sizes value for
    value, and its report reads with them as the expected sizes."""
    provenance = json.loads(path.read_text())
    experiment = discover().get(provenance["experiment"]).name
    make, module = EXPERIMENTS[experiment]
    stored = provenance["sizes"]
    config = make(stored)
    assert json.dumps(config.as_dict(), sort_keys=True) == json.dumps(stored, sort_keys=True)
    assert make(config.as_dict()) == config
    load_report = importlib.import_module(module).load_report
    assert load_report(path.parent, expect=stored)[1] == config

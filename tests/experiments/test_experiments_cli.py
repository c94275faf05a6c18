"""The experiment registry and ``python -m gamelib.experiments``."""

import subprocess
import sys
from pathlib import Path

import pytest

import experiments_toy as toy
from gamelib.runtime.paths import results_dir
from gamelib.experiments.cli import main
from gamelib.experiments.registry import REGISTRY, Registry, RunOptions, discover

PROFILES = toy.PROFILES
toy_experiment = toy.experiment


@pytest.fixture
def registry():
    return toy.registry()


def test_help_lists_experiments_and_profiles(registry, capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"], registry)
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "toy          toy learner" in out
    assert "--profile paper: lr=0.05, n_batches=1000" in out


def test_help_with_empty_registry(capsys):
    with pytest.raises(SystemExit):
        main(["--help"], Registry())
    assert "No experiments are registered yet" in capsys.readouterr().out


def test_run_resume_and_refuse_another_seed(registry, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["toy", "--profile", "quick", "--seed", "4", "--out", str(out), "--workers", "1",
            "--no-progress"]
    assert main(argv, registry) == 0
    printed = capsys.readouterr().out
    assert "toy: profile quick, seed 4, lr=0.05, n_batches=3" in printed
    assert "executor: serial (this process)" in printed and f"results in {out}" in printed
    assert (out / "manifest.json").exists()
    assert main(argv + ["-p", "n_batches", "5"], registry) == 0      # extends the run
    assert main(["toy", "--seed", "5", "--out", str(out), "--workers", "1"], registry) == 2
    assert "holds a different run: 'seed': stored 4, requested 5" in capsys.readouterr().err


@pytest.mark.parametrize("argv,message", [
    (["toy", "--profile", "huge"], "unknown profile 'huge' for experiment 'toy'; valid "
                                   "profiles: paper, quick"),
    (["nope"], "unknown experiment 'nope'; valid experiments: toy"),
    (["toy", "-p", "n_games", "3"], "unknown parameter(s) 'n_games' for experiment 'toy'; "
                                    "valid parameters: lr, n_batches"),
    (["toy", "--seed", "-1"], "seed must be an integer in [0, 9223372036854775807], got"),
    (["toy", "--seed", str(2**63)], "seed must be an integer in [0, 9223372036854775807], got"),
    (["toy", "--workers", "0"], "workers must be a positive integer")])
def test_bad_input_is_named(registry, argv, message, capsys):
    assert main(argv, registry) == 2
    assert message in capsys.readouterr().err


def test_options_defaults(registry):
    opts = registry.options("toy", overrides={"lr": 0.1})
    assert opts.out == results_dir("quick", "toy") / "seed-0"
    assert opts.out.is_absolute()
    assert opts.sizes == {"n_batches": 3, "lr": 0.1} and opts.lr == 0.1
    assert opts.workers is None and opts.scheduler is None
    with pytest.raises(AttributeError, match="'n_games' is not defined; known: lr, n_batches"):
        opts.n_games


def test_registration_rules():
    reg = Registry()
    with pytest.raises(ValueError, match="lacks profile"):
        reg.register("a", profiles={"quick": {"n": 1}})
    with pytest.raises(ValueError, match="profiles name different parameters"):
        reg.register("a", profiles={"quick": {"n": 1}, "paper": {"m": 1}})
    with pytest.raises(ValueError, match="identifier"):
        reg.register("two words", profiles=PROFILES)
    reg.register("a", profiles=PROFILES)(toy_experiment)
    reg.register("a", profiles=PROFILES)(toy_experiment)     # re-import of the same module
    with pytest.raises(ValueError, match="already registered"):
        reg.register("a", profiles=PROFILES)(test_registration_rules)
    assert reg.names() == ["a"]


def test_discover_finds_experiment_modules_in_the_package(tmp_path, monkeypatch):
    import gamelib.experiments as package
    discover()      # the real experiments first: the registry restored below must hold them
    (tmp_path / "zz_probe.py").write_text(
        "from gamelib.experiments.registry import register\n"
        "@register('probe', profiles={'quick': {'n': 1}, 'paper': {'n': 2}})\n"
        "def run(opts):\n    pass\n")
    (tmp_path / "_private.py").write_text("raise RuntimeError('must not be imported')\n")
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path)])
    monkeypatch.setattr(REGISTRY, "experiments", {})
    monkeypatch.delitem(sys.modules, "gamelib.experiments.zz_probe", raising=False)
    try:
        assert discover() is REGISTRY
        assert "probe" in REGISTRY.names()
        assert REGISTRY.options("probe", profile="paper").n == 2
    finally:
        sys.modules.pop("gamelib.experiments.zz_probe", None)


def test_module_entry_point():
    done = subprocess.run([sys.executable, "-m", "gamelib.experiments", "--help"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and "usage: python -m gamelib.experiments" in done.stdout
    done = subprocess.run([sys.executable, "-m", "gamelib.experiments", "no_such_experiment"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "unknown experiment 'no_such_experiment'; valid experiments:" in done.stderr

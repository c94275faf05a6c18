"""The PGLeaf experiment's training stage: kill-and-resume, workers and Dask change nothing."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import pgleaf_tiny as tiny
from gamelib.games.minishogi import features as ev
from gamelib.experiments import pgleaf
from gamelib.runtime.atomic import read_json
from gamelib.runtime.checkpoint import MANIFEST

N_BATCHES = tiny.SIZES["n_games"] // tiny.SIZES["M"]


def same_state(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].shape == b[name].shape and a[name].tobytes() == b[name].tobytes(), name


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted serial run."""
    return tiny.run(tmp_path_factory.mktemp("reference"), seed=3)


def completed(folder):
    try:
        return read_json(folder / MANIFEST)["completed"]
    except (FileNotFoundError, ValueError):
        return 0


def test_learners_moved_and_games_were_played(reference):
    state = reference.state
    runs = pgleaf.runs_of(tiny.SIZES)
    assert len(runs) == 4
    theta0 = pgleaf.initial_theta(3, 0)
    for run in runs:
        stats = state[f"stats/{run.key}"]
        assert stats.shape == (N_BATCHES, 6)
        assert np.all(stats[:, 5] <= stats[:, 4])                         # mirror replies <= gote moves
        assert stats[:, :3].sum() == tiny.SIZES["n_games"]             # every game counted
        assert np.all(stats[:, 3] >= stats[:, :3].sum(axis=1))          # >= 1 ply per game
        theta = state[f"theta/{run.key}"]
        assert theta.shape == (ev.N_FEATURES,) and np.all(np.isfinite(theta))
        assert np.abs(theta - theta0).max() > 1e-4, run.key              # it learned something
    # every run of a replicate starts from the same parameters
    folder = reference.folder
    start = pgleaf.trained_theta(folder, tiny.SIZES, 3, 0)
    assert all(np.array_equal(t, theta0) for t in start.values())
    kept = pgleaf.trained_theta(folder, tiny.SIZES, 3, 40)
    for run in runs:
        assert np.array_equal(kept[run.key], state[f"theta/{run.key}"])
    with pytest.raises(ValueError, match="no kept parameters after 12 games"):
        pgleaf.trained_theta(folder, tiny.SIZES, 3, 12)


def test_killed_then_resumed_equals_uninterrupted(tmp_path, reference):
    folder = tmp_path / "run"
    # the run stops itself (SIGSTOP) once its second checkpoint is on disk: killed there,
    # however fast the machine is
    proc = subprocess.Popen([sys.executable, str(Path(tiny.__file__)), str(folder), "3"],
                            stderr=subprocess.PIPE,
                            env={**os.environ, "GAMELIB_PAUSE_AFTER": "checkpoint-000000002.npz"})
    deadline = time.monotonic() + 300
    while completed(folder) < 2:
        assert proc.poll() is None, proc.stderr.read().decode()[-3000:]
        assert time.monotonic() < deadline, "the training run made no progress"
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    killed_at = completed(folder)
    assert killed_at == 2
    result = tiny.run(folder, seed=3)
    assert result.resumed_from == killed_at
    same_state(result.state, reference.state)


def test_two_workers_give_the_same_parameters(tmp_path, reference):
    result = tiny.run(tmp_path / "run", seed=3, workers=2)
    same_state(result.state, reference.state)


def test_bad_sizes_are_named():
    bad = {**tiny.SIZES, "n_games": 42}
    with pytest.raises(ValueError, match="multiple of M"):
        pgleaf.pgleaf_config(bad)
    bad = {**tiny.SIZES, "algorithms": ["pgleaf", "sarsa"]}
    with pytest.raises(ValueError, match="algorithms must be"):
        pgleaf.pgleaf_config(bad)
    bad = {**tiny.SIZES, "table_points": [12]}
    with pytest.raises(ValueError, match=r"table_points \[12\] must be in keep_points"):
        pgleaf.pgleaf_config(bad)

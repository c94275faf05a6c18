"""A committed paper run is reproduced bit for bit by the current code on this machine.

The five-replicate PGLeaf run (``data/results/paper/pgleaf/closest/seed-0``) was made on another
machine (an Intel CPU with AVX-512, 2026-11-24). Here the first 1,000 self-play games of
replicate 0 of every learner and reward are replayed through the training stage's own batch
functions, from the replicate's initial parameters, and θ must equal the run's θ after 1,000
games in every bit: the regression test of "same seed, same numbers, on any CPU" on a real paper
run. The run's θ comes from its ``theta/`` files once it is finished, else from the training
checkpoint carried with the unfinished run (README, "carry an unfinished run").
"""

import numpy as np
import pytest

from gamelib.games.minishogi import features as ev
from gamelib.experiments.pgleaf import training as T
from gamelib.experiments.pgleaf.closest import closest_folder, closest_sizes
from gamelib.experiments.pgleaf.config import pgleaf_config, runs_of, settings_of

SIZES = pgleaf_config(closest_sizes())
GAMES = 1000
RUNS = [run for run in runs_of(SIZES) if run.replicate == 0]


@pytest.fixture(scope="module")
def committed_theta():
    folder = closest_folder()
    saved = {run.key: folder / "theta" / T.theta_file(run, GAMES) for run in RUNS}
    if all(path.is_file() for path in saved.values()):
        return {key: ev.load_theta(path) for key, path in saved.items()}
    return T.trained_theta(folder / "train", SIZES, 0, GAMES)


@pytest.mark.parametrize("run", RUNS, ids=lambda r: r.key)
def test_the_first_1000_games_of_the_committed_run_replay_bit_for_bit(run, committed_theta):
    settings = settings_of(run, SIZES)
    theta = T.initial_theta(0, run.replicate)
    m = SIZES["M"]
    for index in range(GAMES // m):
        jobs = T.batch_jobs(theta, run, settings, 0, index, m, SIZES["games_per_job"])
        theta, _ = T.batch_result(theta, settings, [T.call_job(job) for job in jobs])
    expected = committed_theta[run.key]
    assert not np.array_equal(expected, T.initial_theta(0, run.replicate))
    differ = np.flatnonzero(theta.view(np.int64) != expected.view(np.int64))
    assert differ.size == 0, (
        f"{run.key}: θ after {GAMES} games differs from the committed run's in {differ.size} "
        f"parameters (max |Δ| {np.abs(theta - expected).max():.3g})")

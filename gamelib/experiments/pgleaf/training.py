"""Training: every run learns by self-play, all runs advancing together in batches of M games
(one resumable :func:`gamelib.runtime.run_batched` run); the parameters after a number of games,
from the training checkpoints (:func:`trained_theta`) or a finished run's ``theta/`` files
(:func:`saved_theta`)."""

from __future__ import annotations

from pathlib import Path
import numpy as np
from tqdm import tqdm

from gamelib.experiments.pgleaf.config import (INIT_SCALE, PGLeafConfig, RunSpec, init_scale,
                                               runs_of, settings_of, train_config)
from gamelib.games import registry
from gamelib.learn import learners
from gamelib.learn.selfplay import mirror_replies
from gamelib.runtime.checkpoint import CheckpointStore
from gamelib.runtime.driver import run_batched
from gamelib.runtime.seeds import derive_seed


def initial_theta(seed: int, replicate: int, game: str = "minishogi",
                  scale: float = INIT_SCALE) -> np.ndarray:
    """Replicate ``replicate``'s starting parameters (shared by all its runs): the game's
    ``initial_theta`` with noise of standard deviation ``scale`` (5×5 shogi: the paper's Table
    1 values, the other weights ~ N(0, 1e-8); a configuration's scale is
    :func:`~gamelib.experiments.pgleaf.config.init_scale`)."""
    return registry.get(game).initial_theta(derive_seed(seed, "init", replicate), scale)


def game_seeds(seed: int, run: RunSpec, first: int, count: int) -> np.ndarray:
    """The per-game seeds of games ``first .. first + count - 1`` of ``run``:
    ``derive_seed(seed, "game", algorithm, reward, replicate, i)``."""
    return np.array([derive_seed(seed, "game", run.algorithm, run.reward, run.replicate, i,
                                 bits=32) for i in range(first, first + count)], dtype=np.int64)


#: The per-batch counts of a run's self-play (:func:`stats_row`).
STAT_COLUMNS = ("sente_wins", "gote_wins", "draws", "plies", "gote_moves", "mirror_replies")


def stats_row(records, max_plies: int, game: str = "minishogi") -> np.ndarray:
    """A batch's counts: results (the first player's wins, the second's, draws), plies, the
    second player's moves and, in 5×5 shogi, how many of them copied sente's (left a position
    that is its own mirror, :func:`gamelib.learn.selfplay.mirror_replies`; 0 in other games)."""
    row = np.zeros(len(STAT_COLUMNS), dtype=np.int64)
    for rec in records:
        row[min(rec.result, 3) - 1] += 1
        row[3] += rec.plies
        row[4] += rec.n_moves[1]
        if game == "minishogi":
            row[5] += mirror_replies(rec.moves, max_plies)
    return row


class _Progress:
    """A tqdm bar over self-play games (all runs), created when the first batch starts."""

    def __init__(self, total: int, per_batch: int, enabled: bool, desc: str):
        self.total, self.per_batch, self.enabled, self.desc = total, per_batch, enabled, desc
        self.bar = None

    def update(self, index: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            self.bar = tqdm(total=self.total, initial=index * self.per_batch, unit="game",
                            desc=self.desc, dynamic_ncols=True, smoothing=0.05)
        self.bar.update(self.per_batch)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def train(folder, config: PGLeafConfig, seed: int, *, workers: int | None = None,
          scheduler=None, progress: bool = False):
    """Run (or resume) the training stage in ``folder``; returns the
    :class:`~gamelib.runtime.driver.RunResult` (its state maps ``"theta/<run key>"`` to the
    parameters and ``"stats/<run key>"`` to per-batch counts: sente wins, gote wins, draws,
    plies, gote's moves, gote's mirror replies)."""
    runs = runs_of(config)
    settings = {run.key: settings_of(run, config) for run in runs}
    m, per_job = config.M, config.games_per_job
    n_batches = config.n_games // m
    bar = _Progress(n_batches * m * len(runs), m * len(runs), progress, "self-play games")

    def init(cfg, run_seed):
        state = {}
        for run in runs:
            state[f"theta/{run.key}"] = initial_theta(run_seed, run.replicate, config.game,
                                                      init_scale(config))
            state[f"stats/{run.key}"] = np.zeros((0, len(STAT_COLUMNS)), dtype=np.int64)
        return state

    def step(state, ctx):
        per_run = {run.key: batch_jobs(state[f"theta/{run.key}"], run, settings[run.key],
                                       ctx.run_seed, ctx.index, m, per_job, config.game)
                   for run in runs}
        jobs, owners = [], []
        # the runs with the fewest jobs first: a TD run's batch is one long job
        for run in sorted(runs, key=lambda r: len(per_run[r.key])):
            jobs += per_run[run.key]
            owners += [run.key] * len(per_run[run.key])
        results = ctx.map(call_job, jobs, chunksize=1)
        new = dict(state)
        for run in runs:
            st = settings[run.key]
            new[f"theta/{run.key}"], records = batch_result(
                state[f"theta/{run.key}"], st, [res for res, key in zip(results, owners)
                                                if key == run.key], config.game)
            new[f"stats/{run.key}"] = np.vstack([state[f"stats/{run.key}"],
                                                 stats_row(records, st.max_plies, config.game)[None, :]])
        bar.update(ctx.index)
        return new

    keep = [p // m for p in config.keep_points]
    try:
        return run_batched(Path(folder), config=train_config(config), seed=seed, n_batches=n_batches,
                           init=init, step=step, keep=keep, workers=workers,
                           scheduler=scheduler, progress=False)
    finally:
        bar.close()


def batch_jobs(theta, run: RunSpec, settings, run_seed: int, index: int, m: int,
               per_job: int, game: str = "minishogi") -> list:
    """The jobs of batch ``index`` (games ``index·m .. index·m + m - 1``) of one run of
    ``game``, each a ``(function, arguments)`` pair for :func:`call_job`, as its learner cuts
    them (:meth:`gamelib.learn.learners.Learner.batch_jobs`: a TD run's ``m`` games are one job,
    θ changing after every game; a policy-gradient run's are ``m / per_job`` jobs, θ fixed)."""
    seeds = game_seeds(run_seed, run, index * m, m)
    return learners.get(run.algorithm).batch_jobs(theta, settings, seeds, game, per_job)


def call_job(job):
    """Run one job of :func:`batch_jobs` (in a worker)."""
    fn, args = job
    return fn(args)


def batch_result(theta, settings, results, game: str = "minishogi") -> tuple[np.ndarray, list]:
    """``(θ after the batch, its games)`` from the results of the run's :func:`batch_jobs`, in
    their order (:meth:`gamelib.learn.learners.Learner.batch_result`: the TD learner's θ, or
    the policy-gradient update of eqs. 1-4 from θ)."""
    return learners.get(settings.algorithm).batch_result(theta, settings, results, game)


def trained_theta(folder, config: PGLeafConfig, seed: int, games: int) -> dict:
    """``{run key: θ}`` after ``games`` games of every run (0: the initial parameters), read
    from the kept checkpoints of a training folder."""
    runs = runs_of(config)
    if games == 0:
        return {run.key: initial_theta(seed, run.replicate, config.game, init_scale(config))
                for run in runs}
    if games not in config.keep_points:
        raise ValueError(f"no kept parameters after {games} games; kept: "
                         f"{list(config.keep_points)}")
    with CheckpointStore(Path(folder), {"config": train_config(config), "seed": seed}) as store:
        arrays = store.load(tag=f"batch-{games // config.M}").arrays
    return {run.key: arrays[f"theta/{run.key}"] for run in runs}


def theta_file(run: RunSpec, games: int) -> str:
    """The name of a run's parameters after ``games`` games in a report's ``theta/`` folder:
    ``"<algorithm>_<reward>_<replicate>_<games>.npz"``."""
    return run.key.replace("/", "_") + f"_{games}.npz"


def saved_theta(folder, config: PGLeafConfig, seed: int, games: int) -> dict:
    """``{run key: θ}`` after ``games`` games of every run (0: the initial parameters), read
    from a finished run's ``theta/`` folder (:func:`theta_file`); ``FileNotFoundError`` naming
    the files that are missing."""
    runs = runs_of(config)
    if games == 0:
        return {run.key: initial_theta(seed, run.replicate, config.game, init_scale(config))
                for run in runs}
    paths = {run.key: Path(folder) / theta_file(run, games) for run in runs}
    missing = [p.name for p in paths.values() if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"{folder} lacks the parameters after {games} games: "
                                f"{', '.join(missing)}")
    load = registry.get(config.game).load_theta
    return {key: load(path) for key, path in paths.items()}

"""The policy-gradient learners, PGLeaf and REINFORCE: self-play games with θ fixed, each side's
score g(m) (eq. 3) recorded, and one update from every M games (eqs. 1-4).

The two differ by the paper's choice of evl(s, a) (eq. 5; :mod:`gamelib.learn.selfplay`):
PGLeaf takes the principal leaf of a search of 1 ply full width and 4 plies of quiescence,
REINFORCE the position right after the move; both draw their moves at temperature 0.05 (paper,
sec. 5.1). A learner's runs play a batch of M games in jobs of ``per_job`` games (θ is fixed
during the batch, so the jobs run in parallel) and update θ once from all of them
(:func:`batch_jobs`, :func:`batch_result`; the registry is :mod:`gamelib.learn.learners`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gamelib.games import registry
from gamelib.games.protocol import Game, prepared_weights
from gamelib.learn.policy_gradient import BASELINES, EpisodeScores, self_play_update
from gamelib.learn.selfplay import (SHOGI, SelfPlayGame, SelfPlaySettings, buffers, check_game,
                                    check_seeds, check_theta, constrain, kernels, start_state,
                                    take_nonzeros)
from gamelib.runtime.checks import check_integer

__all__ = ["Settings", "play_pg_games", "pg_update", "play_games", "batch_jobs", "batch_result"]


@dataclass(frozen=True)
class Settings(SelfPlaySettings):
    """A policy-gradient learner's settings (:class:`~gamelib.learn.selfplay.SelfPlaySettings`
    and these two; the defaults are the paper's, section 5.1).

    Attributes
    ----------
    M : int
        Games per update (100).
    baseline : str
        Baseline of eq. (2) (:data:`~gamelib.learn.policy_gradient.BASELINES`; ``"component"``).
    """

    #: The family's learners: (searches, the paper's temperature).
    PAPER: ClassVar[dict] = {"pgleaf": (True, 0.05), "reinforce": (False, 0.05)}

    M: int = 100
    baseline: str = "component"

    def __post_init__(self):
        super().__post_init__()
        if self.baseline not in BASELINES:
            raise ValueError(f"unknown baseline {self.baseline!r}; valid: {', '.join(BASELINES)}")
        object.__setattr__(self, "M", check_integer("M", self.M, 1))


def _check_settings(settings) -> Settings:
    if not isinstance(settings, Settings):
        raise ValueError(f"a policy-gradient learner's settings (gamelib.learn.pg_selfplay."
                         f"Settings, e.g. learners.settings('pgleaf')) are needed, got {settings!r}")
    return settings


def play_pg_games(theta, settings: Settings, seeds, game: Game = SHOGI) -> list[SelfPlayGame]:
    """Self-play games with θ fixed, each side's g(m) (eq. 3) recorded.

    Parameters
    ----------
    theta : float64 array of length ``game.N_FEATURES``
    settings : Settings
    seeds : array of int
        One seed in [0, 2**32) per game.
    game : gamelib.games.protocol.Game
        The game (5×5 shogi by default).
    """
    settings = _check_settings(settings)
    game = check_game(game, settings)
    theta = check_theta(game, theta, settings)
    seeds = check_seeds(seeds)
    bufs = buffers(game, settings)
    play = settings.play()
    start = start_state(settings.max_plies, settings.qdepth, game)
    g = np.zeros((2, theta.size))
    info = np.zeros(4, dtype=np.int64)
    rew = np.zeros(2)
    mlog = np.zeros(settings.max_plies + 1, dtype=np.int32)
    g_idx = np.zeros(theta.size, dtype=np.int32)
    g_val = np.zeros(theta.size)
    records = []
    weights = prepared_weights(game, theta)      # θ is fixed: its derived weights once for all the games
    play_game = kernels(game).selfplay_game
    for seed in seeds:
        play_game(weights, start, int(seed), play, True, g, bufs, info, rew, mlog)
        sparse = []
        for side in range(2):
            n = take_nonzeros(g[side], g_idx, g_val)
            sparse.append((g_idx[:n].copy(), g_val[:n].copy()))
        records.append(SelfPlayGame(int(info[0]), int(info[1]), rew.copy(), info[2:4].copy(),
                                    mlog[:info[1]].copy(), (sparse[0][0], sparse[1][0]),
                                    (sparse[0][1], sparse[1][1])))
    return records


def pg_update(theta, records, settings: Settings, game: Game = SHOGI) -> np.ndarray:
    """θ after one policy-gradient update from M games played with θ (eqs. 1-4).

    Each side is an agent with its own M episodes, baseline and estimator; both steps are added
    to the shared θ (:func:`gamelib.learn.policy_gradient.self_play_update`), then the settings'
    constraints hold (:func:`~gamelib.learn.selfplay.constrain`).
    """
    settings = _check_settings(settings)
    game = check_game(game, settings)
    theta = check_theta(game, theta, settings)
    if not records:
        raise ValueError("no games to learn from")
    agents = []
    for m, rec in enumerate(records):
        if not rec.g_idx:
            raise ValueError(f"game {m} has no policy-gradient record (a TD game?)")
    for side in range(2):
        G = EpisodeScores.from_rows([(rec.g_idx[side], rec.g_val[side]) for rec in records],
                                    theta.size)
        rewards = np.array([rec.rewards[side] for rec in records])
        lengths = np.array([max(int(rec.n_moves[side]), 1) for rec in records])
        agents.append((G, rewards, lengths))
    new = self_play_update(theta, agents, alpha=settings.alpha, gamma=settings.gamma,
                           baseline=settings.baseline)
    constrain(new, theta, *settings.constraint(game))
    return new


def play_games(theta, settings: Settings, seeds, game: Game = SHOGI) -> list[SelfPlayGame]:
    """The games a learner plays from θ with these seeds (:func:`play_pg_games`)."""
    return play_pg_games(theta, settings, seeds, game)


def _play_job(job):
    theta, settings, seeds, game = job
    return play_pg_games(theta, settings, seeds, registry.get(game))


def batch_jobs(theta, settings: Settings, seeds, game: str, per_job: int) -> list:
    """A batch's games (one per seed, ``M`` of them) as ``(function, arguments)`` jobs of
    ``per_job`` games each, played with θ fixed."""
    return [(_play_job, (theta, settings, seeds[j:j + per_job], game))
            for j in range(0, len(seeds), per_job)]


def batch_result(theta, settings: Settings, results, game: str) -> tuple[np.ndarray, list]:
    """``(θ after the batch, its games)`` from its jobs' results in their order: the update of
    eqs. 1-4 from θ."""
    records = [rec for part in results for rec in part]
    return pg_update(theta, records, settings, registry.get(game)), records

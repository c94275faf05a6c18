"""The temporal-difference learners, TDLeaf(λ) and TD(λ): self-play games played in turn, θ
updated after each one by TD(λ) over the values and features the agent chose
(:func:`gamelib.learn.td.add_td_lambda`).

TDLeaf(λ) learns on the principal leaves of the same search as PGLeaf (1 ply full width, 4
plies of quiescence), TD(λ) on the positions right after the moves (no search); both draw their
moves at temperature 0.03 (paper, sec. 5.1). Since θ changes after every game, a learner's
batch of M games is one job (:func:`batch_jobs`, :func:`batch_result`; the registry is
:mod:`gamelib.learn.learners`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np

from gamelib.games import registry
from gamelib.games.protocol import N_WEIGHTS, Game, prepare_weights
from gamelib.games.specialize import generic, specialize
from gamelib.learn.selfplay import (SHOGI, SelfPlayGame, SelfPlaySettings, buffers, check_game,
                                    check_seeds, check_theta, constrain, selfplay_game,
                                    start_state)
from gamelib.learn.td import DEFAULT_BETA, add_td_lambda
from gamelib.runtime.checks import check_number

__all__ = ["Settings", "TDParams", "play_td_games", "play_games", "batch_jobs", "batch_result",
           "kernels"]


@dataclass(frozen=True)
class Settings(SelfPlaySettings):
    """A TD learner's settings (:class:`~gamelib.learn.selfplay.SelfPlaySettings` and these two;
    the defaults are the paper's, section 5.1).

    Attributes
    ----------
    lam : float
        λ (0.7).
    beta : float
        Squashing slope, ``tanh(β v)`` (:data:`~gamelib.learn.td.DEFAULT_BETA`, 1).
    """

    #: The family's learners: (searches, the paper's temperature).
    PAPER: ClassVar[dict] = {"tdleaf": (True, 0.03), "td": (False, 0.03)}

    lam: float = 0.7
    beta: float = DEFAULT_BETA

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "lam", check_number("lam", self.lam, 0.0, 1.0))
        object.__setattr__(self, "beta", check_number("beta", self.beta, 0.0, low_open=True))

    def in_unit(self, c: float) -> "Settings":
        """:meth:`SelfPlaySettings.in_unit`, and β divided by ``c``."""
        return super().in_unit(c, beta=self.beta / c)

    def td(self) -> "TDParams":
        """The kernel's :class:`TDParams` of these settings."""
        return TDParams(self.alpha, self.lam, self.gamma, self.beta)


class TDParams(NamedTuple):
    """How the TD kernel learns after each game (:func:`gamelib.learn.td.add_td_lambda`)."""

    alpha: float   #: the step
    lam: float     #: λ
    gamma: float   #: the discount
    beta: float    #: the squashing slope, ``tanh(β v)``


def kernels(game: Game):
    """This module's generic kernels compiled for ``game`` (once per process)."""
    return specialize(game, sys.modules[__name__])


@generic
def _td_games(theta, start, seeds, play, td, frozen, tie, bufs, stats, mlogs):
    """Play ``len(seeds)`` games in turn (``play``: :class:`~gamelib.learn.selfplay.PlayParams`,
    ``bufs``: :class:`~gamelib.learn.selfplay.GameBuffers`), updating ``theta`` in place after
    each (TD(λ) with the :class:`TDParams` ``td``) under the constraints ``frozen`` and ``tie``
    (:func:`~gamelib.learn.selfplay.constrain`).

    ``stats[i] = [result, plies, moves of the first player, of the second, reward of the first,
    of the second]``, ``mlogs[i, :plies]`` the moves; returns nothing.
    """
    g = np.zeros((2, 1))
    info = np.zeros(4, dtype=np.int64)
    rew = np.zeros(2)
    before = theta.copy()
    weights = np.empty(N_WEIGHTS)
    for i in range(seeds.shape[0]):
        weights[:theta.shape[0]] = theta      # θ changed after the last game: its derived weights too
        prepare_weights(weights)
        selfplay_game(weights, start, seeds[i], play, False, g, bufs, info, rew, mlogs[i])
        for side in range(2):
            add_td_lambda(theta, bufs.vals[side], bufs.vptr[side], bufs.vidx[side],
                          bufs.vval[side], info[2 + side], rew[side], td.lam, td.gamma, td.beta,
                          td.alpha)
        if frozen >= 0 or tie > 0:      # (θ before the next game: only a constraint reads it)
            constrain(theta, before, frozen, tie)
            before[:] = theta
        for j in range(4):
            stats[i, j] = info[j]
        stats[i, 4] = rew[0]
        stats[i, 5] = rew[1]


def play_td_games(theta, settings: Settings, seeds,
                  game: Game = SHOGI) -> tuple[np.ndarray, list[SelfPlayGame]]:
    """Play the games in turn, updating θ after each one (in ``game``, 5×5 shogi by default).

    Returns
    -------
    theta : numpy.ndarray
        θ after the last game (a new array).
    records : list of SelfPlayGame
        The games (without g).
    """
    if not isinstance(settings, Settings):
        raise ValueError(f"a TD learner's settings (gamelib.learn.td_selfplay.Settings, e.g. "
                         f"learners.settings('td')) are needed, got {settings!r}")
    game = check_game(game, settings)
    theta = check_theta(game, theta, settings).copy()
    seeds = check_seeds(seeds)
    bufs = buffers(game, settings)
    start = start_state(settings.max_plies, settings.qdepth, game)
    stats = np.zeros((seeds.size, 6))
    mlogs = np.zeros((seeds.size, settings.max_plies + 1), dtype=np.int32)
    frozen, tie = settings.constraint(game)
    kernels(game)._td_games(theta, start, seeds, settings.play(), settings.td(), frozen, tie,
                            bufs, stats, mlogs)
    records = []
    for i in range(seeds.size):
        plies = int(stats[i, 1])
        records.append(SelfPlayGame(int(stats[i, 0]), plies, stats[i, 4:6].copy(),
                                    stats[i, 2:4].astype(np.int64), mlogs[i, :plies].copy()))
    return theta, records


def play_games(theta, settings: Settings, seeds, game: Game = SHOGI) -> list[SelfPlayGame]:
    """The games a learner plays from θ with these seeds, θ updated after each
    (:func:`play_td_games`)."""
    return play_td_games(theta, settings, seeds, game)[1]


def _play_job(job):
    theta, settings, seeds, game = job
    return play_td_games(theta, settings, seeds, registry.get(game))


def batch_jobs(theta, settings: Settings, seeds, game: str, per_job: int) -> list:
    """A batch's games (one per seed) as one ``(function, arguments)`` job: θ changes after
    every game (``per_job`` does not apply)."""
    return [(_play_job, (theta, settings, seeds, game))]


def batch_result(theta, settings: Settings, results, game: str) -> tuple[np.ndarray, list]:
    """``(θ after the batch, its games)``: its one job's result."""
    return results[0]

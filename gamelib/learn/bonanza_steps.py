"""The Bonanza learner's steps for any registered game: batches, PV refreshes, descent steps.

Step t uses the positions of its batch B (the whole training set in **batch** mode, Bonanza's
original; a slice of a seeded per-epoch permutation in **mini-batch** mode) and

    ``v ← descent_step(v, (N/|B|) ∇J_B(v))``     (:func:`gamelib.learn.bonanza.descent_step`)

with J of eq. (1) and its gradient of eq. (7) (:mod:`gamelib.learn.bonanza`), the constraint of
eqs. (8)–(10) given as a constraint object (a
:class:`~gamelib.learn.bonanza.PieceValueConstraint` or a
:class:`~gamelib.learn.bonanza.LinearConstraint`; each game's Bonanza module says which fits its
evaluation) and the L1 term of eq. (11) on a mask R of the weights. The PV leaves come from a
search with the weights of the last *refresh*: every ``refresh_every`` = k steps, the positions
that the next k steps use are searched again with the current v (k = 1: every gradient uses
fresh PVs). With k = 1 the searches and the gradient are done together in chunks and nothing
is stored (:func:`gamelib.learn.bonanza_search.chunk_sums`); with k > 1 the leaves are kept in
a :class:`~gamelib.learn.bonanza_search.LeafCache`. The batches depend only on the seed and
the step, the sums only on the positions, so θ does not depend on the number of workers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Callable, ClassVar

import numpy as np

from gamelib.learn import bonanza as bz
from gamelib.learn.bonanza_positions import ExpertPositions
from gamelib.learn.bonanza_search import SearchSettings, block_sums, chunk_sums, search_positions
from gamelib.play.games import check_float
from gamelib.runtime.checks import check_integer
from gamelib.runtime.seeds import derive_rng

__all__ = ["BonanzaSettings", "check_learner_settings", "step_batch", "learn_steps"]


def check_learner_settings(settings, search_type=SearchSettings) -> None:
    """Check the learner's fields that every game shares (``ValueError`` naming a bad one)."""
    if settings.batch_size is not None:
        check_integer("batch_size", settings.batch_size)
    check_integer("refresh_every", settings.refresh_every)
    check_integer("chunk_size", settings.chunk_size)
    check_float("learning_rate", settings.learning_rate, positive=True)
    check_float("l1_weight", settings.l1_weight)
    if settings.update not in ("gradient", "sign"):
        raise ValueError(f"unknown update {settings.update!r}; use 'gradient' or 'sign'")
    if settings.l1_step not in ("subgradient", "proximal"):
        raise ValueError(f"unknown l1_step {settings.l1_step!r}; use 'subgradient' or "
                         f"'proximal'")
    if settings.update == "sign" and settings.l1_step == "proximal":
        raise ValueError("l1_step='proximal' needs update='gradient'")
    if settings.window is not None:
        check_float("window", settings.window, positive=True)
    if not isinstance(settings.search, search_type):
        raise ValueError(f"search must be a {search_type.__name__}")


@dataclass(frozen=True)
class BonanzaSettings:
    """One learner of the Bonanza method (any game; the constraint is given to
    :func:`learn_steps`).

    Attributes
    ----------
    batch_size : int or None
        Positions per step; None: all of them (batch learning, Bonanza's original).
    refresh_every : int
        k: the PV leaves are recomputed every k steps (for the positions of the next k steps).
    learning_rate : float
        η: ``v ← v − η × (mean gradient per position)`` (gradient steps), or the step h in
        evaluation units (sign steps).
    update : {"gradient", "sign"}
    l1_weight : float
        w₁ of eq. (11), per training position (the objective is ``J/N + w₁ Σ_R |v_i|``).
    l1_step : {"subgradient", "proximal"}
    window : float or None
        Clip x to ±window in T, in evaluation units (None: the plain sigmoid).
    search : gamelib.learn.bonanza_search.SearchSettings
    chunk_size : int
        Positions per search job.
    """

    batch_size: int | None = None
    refresh_every: int = 1
    learning_rate: float = 1e-3
    update: str = "gradient"
    l1_weight: float = 0.0
    l1_step: str = "subgradient"
    window: float | None = None
    search: SearchSettings = SearchSettings()
    chunk_size: int = 64

    #: The type ``search`` must have (a game's binding may ask for its own settings class).
    SEARCH_TYPE: ClassVar[type] = SearchSettings

    def __post_init__(self):
        check_learner_settings(self, self.SEARCH_TYPE)

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "BonanzaSettings":
        d = dict(d)
        if isinstance(d.get("search"), dict):
            d["search"] = cls.SEARCH_TYPE(**d["search"])
        return cls(**d)

    def steps_per_epoch(self, n: int) -> int:
        """Steps that use every training position once (1 in batch mode)."""
        return steps_per_epoch(self, n)


def steps_per_epoch(settings, n: int) -> int:
    """Steps of ``settings`` that use each of ``n`` training positions once (1 in batch
    mode)."""
    b = n if settings.batch_size is None else min(settings.batch_size, n)
    return -(-n // b)


def step_batch(t: int, n: int, settings, seed: int) -> np.ndarray:
    """Position indices (sorted, into the ``n`` training positions) of step ``t``: all in batch
    mode; else the slice of the epoch's permutation ``derive_rng(seed, "epoch", e)``."""
    spe = steps_per_epoch(settings, n)
    if spe == 1:
        return np.arange(n)
    e, j = divmod(t, spe)
    b = settings.batch_size
    return np.sort(_epoch_permutation(seed, e, n)[j * b:(j + 1) * b])


@lru_cache(maxsize=2)
def _epoch_permutation(seed: int, epoch: int, n: int) -> np.ndarray:
    """The permutation of epoch ``epoch`` (read-only), drawn once per epoch rather than once per
    step: on millions of positions drawing it took longer than a step's search."""
    perm = derive_rng(seed, "epoch", epoch).permutation(n)
    perm.flags.writeable = False
    return perm


def learn_steps(theta, positions: ExpertPositions, train_ids, settings, first_step: int,
                n_steps: int, seed: int, *, slope: float, constraint=None, l1_mask=None,
                map_fn: Callable | None = None,
                reduction: str = "blocks") -> tuple[np.ndarray, dict]:
    """Steps ``first_step .. first_step + n_steps - 1`` of the learner from ``theta``.

    Parameters
    ----------
    theta : array
        v, the game's parameters (on the constraint's plane if one is given).
    positions : ExpertPositions
    train_ids : array of int
        The training positions (ids into ``positions``); the batches index them.
    settings : BonanzaSettings
        Or any object with its fields (a game's own settings).
    first_step, n_steps : int
        ``first_step`` must be a multiple of ``refresh_every`` (a refresh starts the call).
    seed : int
        Seeds the batches (:func:`step_batch`).
    slope : float
        a of eq. (2) per evaluation unit.
    constraint : PieceValueConstraint, LinearConstraint or None
        Eqs. (8)–(10).
    l1_mask : boolean array or indices, optional
        R of eq. (11) (default: every weight).
    map_fn : callable, optional
        ``map_fn(function, jobs)``, e.g. an executor's ``map``.
    reduction : {"blocks", "chunks"}
        How the fresh searches' sums are added (:func:`gamelib.learn.bonanza_search.chunk_sums`;
        "blocks": θ depends on neither ``chunk_size`` nor the workers). The steps from cached
        leaves sum blocks of :data:`~gamelib.learn.bonanza_search.REDUCE_BLOCK` positions of the
        batch, in order, whichever is chosen.

    Returns
    -------
    theta : numpy.ndarray
    counts : dict
        ``positions_searched`` and ``J_batch`` (J per position of the batches, summed over the
        steps, measured at the weights of their search).
    """
    k = settings.refresh_every
    if first_step % k:
        raise ValueError(f"first_step {first_step} is not a multiple of refresh_every {k}")
    check_integer("n_steps", n_steps, 0)
    train_ids = np.asarray(train_ids, dtype=np.int64)
    n = train_ids.size
    if n == 0:
        raise ValueError("no training positions")
    v = positions.rules.check_theta(theta).copy()
    mask = np.ones(v.size, dtype=bool) if l1_mask is None else bz._mask(l1_mask, v.size)
    searched, j_sum = 0, 0.0
    cache = None
    kw = dict(learning_rate=settings.learning_rate, update=settings.update,
              constraint=constraint, l1_weight=settings.l1_weight * n, l1_mask=mask,
              l1_step=settings.l1_step)
    for t in range(first_step, first_step + n_steps):
        batch = train_ids[step_batch(t, n, settings, seed)]
        if k == 1:
            j, g, _, m = chunk_sums(v, positions, batch, settings.search, slope=slope,
                                    window=settings.window, chunk_size=settings.chunk_size,
                                    map_fn=map_fn, reduction=reduction)
            searched += m
        else:
            if t % k == 0:
                ahead = np.unique(np.concatenate(
                    [train_ids[step_batch(u, n, settings, seed)] for u in range(t, t + k)]))
                cache = search_positions(v, positions, ahead, settings.search,
                                         chunk_size=settings.chunk_size, map_fn=map_fn)
                searched += len(cache)
            j, g, _, m = block_sums(v, cache, cache.rows_of(batch), True, slope, settings.window)
        j_sum += j / m
        v = bz.descent_step(v, g * (n / m), n, **kw)
    return v, {"positions_searched": searched, "J_batch": j_sum}

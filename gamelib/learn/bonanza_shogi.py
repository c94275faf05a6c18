"""The Bonanza method on 5×5 shogi: record positions, searched PV leaves, batch and mini-batch learning.

The equations are those of :mod:`gamelib.learn.bonanza` (numbers of the chapter *The Bonanza
method*): J(P, v) = Σ_p Σ_{m≥2} T_p[ξ(p_m, v) − ξ(p_1, v)] (eq. 1), its gradient through the
principal-variation (PV) leaves (eqs. 5–7), the piece-value-sum constraint (eqs. 8–10) and the
L1 term (eq. 11). This module supplies the real data: the positions of game records, and for
each of them a search of **every legal move** with the current evaluation. The search, the
leaf cache and the learning steps are written once for every game
(:mod:`gamelib.learn.bonanza_positions`, :mod:`gamelib.learn.bonanza_search`,
:mod:`gamelib.learn.bonanza_steps`); this module binds them to 5×5 shogi: its records, its
units, its piece-value constraints and its L1 mask.

Units
-----
Bonanza's loss is ``T(x) = sigmoid(0.0273 x)`` with x in Bonanza's units (a pawn ≈ 100). The
evaluation here (:mod:`gamelib.games.minishogi.features`) is in the PGLeaf paper's units, a pawn =
0.02, so one evaluation unit is 100 / 0.02 = 5,000 Bonanza units and

    T(x) = sigmoid(a x_B) = sigmoid(a · 5000 · x),   a = 7/256 ≈ 0.0273,

i.e. the slope in evaluation units is :data:`SLOPE` = 7/256 × 5000 ≈ 136.7 per unit (and
Bonanza's window ±256 is ±0.0512). Win-in-n scores of the search (±(1000 − n), see
:mod:`gamelib.search.core`) saturate T.

Data
----
* The records (:class:`~gamelib.games.minishogi.records.RecordedGame`, format ``gamelib-records 1``):
  the book's are made by the expert of :mod:`gamelib.play.expert_games`, the reference
  opponent in self-play at a deep node budget after a few uniformly random opening plies; a
  record starts *after* those plies, so every recorded move is the teacher's. Users may bring
  their own.
* :class:`RecordPositions`: the positions of a list of records with their expert moves (the
  positions with a single legal move are left out: they compare nothing), an
  :class:`~gamelib.learn.bonanza_positions.ExpertPositions` of 5×5 shogi.
* :func:`search_positions` / :class:`LeafCache`: for every position, every legal move searched
  by :func:`gamelib.algorithms.leaves.root_leaves_into` compiled for 5×5 shogi (the search of
  :func:`gamelib.search.root_leaves_into`; ``depth`` full-width plies counting the move, then
  ``qdepth`` plies of quiescence, no pruning across moves); each move's value ξ and the sparse
  features of its PV leaf, both from the side to move's view, so that a position's ``side`` in
  eq. (3) is always +1 (T_p(x) = T(x) with x = ξ(p_m) − ξ(p_1) for the side to move). A move
  whose PV ends the game (mate, repetition, the length cap) has no features and its game-end
  score as the constant ``leaf_bias``. :meth:`LeafCache.comparison_set` gives the
  :class:`~gamelib.learn.bonanza.ComparisonSet` of any rows.

Learning
--------
:class:`BonanzaSettings` and :func:`learn_steps`: step t uses the positions of its batch (the
whole training set in **batch** mode, Bonanza's original; a slice of a seeded per-epoch
permutation in **mini-batch** mode) and

    ``v ← descent_step(v, (N/|B|) ∇J_B(v))``,     (:func:`gamelib.learn.bonanza.descent_step`)

where the PV leaves come from a search with the weights of the last *refresh*: every
``refresh_every`` = k steps, the positions that the next k steps use are searched again with the
current v (k = 1: every gradient uses fresh PVs). With k = 1 the searches and the gradient are
done together in chunks and nothing is stored; with k > 1 the leaves are kept in a
:class:`LeafCache` (3 bytes per feature entry). Searches run in chunks of ``chunk_size``
positions on any ``map`` (e.g. :meth:`gamelib.runtime.Executor.map`); each chunk's sums are
made where it is searched and added in chunk order (``reduction="chunks"`` of
:func:`gamelib.learn.bonanza_search.chunk_sums`, the reduction of the committed runs): the
chunks, and the order in which their sums are added, depend only on the positions, so the
numbers do not depend on the number of workers.

:func:`evaluate` gives J per position and the move agreement (the fraction of positions whose
expert move is strictly the best after the search) on any positions, e.g. held-out ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, ClassVar, Sequence

import numpy as np

from gamelib.games.minishogi import features as E
from gamelib.games import registry
from gamelib.learn import bonanza as bz
from gamelib.learn import bonanza_search as _search
from gamelib.learn import bonanza_steps as _steps
from gamelib.learn.bonanza_positions import ExpertPositions
from gamelib.learn.bonanza_search import LeafCache
from gamelib.games.minishogi import rules as R
from gamelib.games.minishogi.notation import format_sfen
from gamelib.games.minishogi.records import RecordedGame, replay

__all__ = [
    "EVAL_PER_BONANZA_UNIT", "SLOPE", "WINDOW", "RecordPositions", "SearchSettings", "LeafCache",
    "search_positions", "chunk_sums", "BonanzaSettings", "constraint_of", "step_batch",
    "learn_steps", "evaluate", "material_table",
]

#: One Bonanza unit (pawn ≈ 100) in evaluation units (pawn = 0.02).
EVAL_PER_BONANZA_UNIT = 0.02 / 100.0
#: The slope a = 7/256 of T(x) = sigmoid(a x) per evaluation unit: 7/256 / 2e-4 ≈ 136.7.
SLOPE = bz.BONANZA_SLOPE / EVAL_PER_BONANZA_UNIT
#: Bonanza's window ±256 in evaluation units (±0.0512).
WINDOW = bz.BONANZA_WINDOW * EVAL_PER_BONANZA_UNIT

_GAME = registry.get("minishogi")


# ----------------------------------------------------------------------------- positions
class RecordPositions(ExpertPositions):
    """The positions of game records with the expert's (recorded) move.

    Position i is game ``game[i]`` after its first ``ply[i]`` moves; the expert move is
    ``games[game[i]].moves[ply[i]]``. Positions are ordered by game, then ply.

    Parameters
    ----------
    games : sequence of RecordedGame
        Each is replayed by :func:`gamelib.games.minishogi.records.replay` (its moves legal, no move
        after the end).
    skip_forced : bool
        Leave out positions with a single legal move.
    """

    def __init__(self, games: Sequence[RecordedGame], skip_forced: bool = True):
        self.games = list(games)
        starts, moves = [], []
        for rec in self.games:
            s, codes = replay(rec.start_sfen, rec.moves)
            for _ in range(len(codes)):
                _GAME.unmake_move(s)
            starts.append(s)
            moves.append(codes)
        super().__init__(_GAME, moves, starts, skip_forced=skip_forced)

    def __repr__(self) -> str:
        return f"RecordPositions({len(self)} positions from {len(self.games)} games)"

    def sfen(self, i: int) -> str:
        """SFEN of position ``i``."""
        g, p = int(self.game[i]), int(self.ply[i])
        s, _ = replay(self.games[g].start_sfen, self.games[g].moves[:p], check_end=False)
        return format_sfen(s)


@dataclass(frozen=True)
class SearchSettings(_search.SearchSettings):
    """The search of every legal move (:func:`gamelib.algorithms.leaves.root_leaves_into`).

    ``depth`` full-width plies, the move itself being ply 1, then ``qdepth`` quiescence plies
    (the PGLeaf paper's learning search is depth 1 + 4 quiescence plies); ``max_plies`` the
    game-length cap the search knows (0: none; by default the rules' cap).
    """

    max_plies: int = R.DEFAULT_MAX_PLIES


def search_positions(theta, positions: RecordPositions, ids=None, settings=SearchSettings(), *,
                     chunk_size: int = 64, map_fn: Callable | None = None) -> LeafCache:
    """Search every legal move of positions ``ids`` (default all; sorted and deduplicated) with
    the evaluation ``theta``; the :class:`LeafCache` of the results
    (:func:`gamelib.learn.bonanza_search.search_positions`)."""
    return _search.search_positions(theta, positions, ids, settings, chunk_size=chunk_size,
                                    map_fn=map_fn)


def chunk_sums(theta, positions: RecordPositions, ids, settings=SearchSettings(), *,
               want_grad: bool = True, slope: float = SLOPE, window: float | None = None,
               chunk_size: int = 64, map_fn: Callable | None = None) -> tuple:
    """Search positions ``ids`` with ``theta`` and return ``(J, gradient or None, agreements,
    n)`` summed over them, chunk by chunk without storing the leaves
    (:func:`gamelib.learn.bonanza_search.chunk_sums`)."""
    return _search.chunk_sums(theta, positions, ids, settings, slope=slope, want_grad=want_grad,
                              window=window, chunk_size=chunk_size, map_fn=map_fn,
                              reduction="chunks")


def evaluate(theta, positions: RecordPositions, ids=None, settings=SearchSettings(), *,
             slope: float = SLOPE, window: float | None = None, chunk_size: int = 64,
             map_fn: Callable | None = None) -> dict:
    """``{"J_per_position", "agreement", "n_positions"}`` of ``theta`` on positions ``ids``
    (default all), after a fresh search."""
    return _search.evaluate(theta, positions, ids, settings, slope=slope, window=window,
                            chunk_size=chunk_size, map_fn=map_fn, reduction="chunks")


# ----------------------------------------------------------------------------- the learner
CONSTRAINTS = ("material", "hand", "none")


@dataclass(frozen=True)
class BonanzaSettings(_steps.BonanzaSettings):
    """One learner of the Bonanza method on 5×5 shogi: the game-neutral
    :class:`gamelib.learn.bonanza_steps.BonanzaSettings` (batch size, refresh, step, update, L1,
    window, chunk size; ``l1_weight`` applies to every weight but the material weights here,
    R = the positional weights, whichever constraint) with shogi's search settings and its
    piece-value constraint.

    Attributes
    ----------
    search : SearchSettings
        This module's (the rules' game-length cap by default).
    constraint : {"material", "hand", "none"}
        Keep the sum of the material weights (board and hand, both halves of the layout)
        fixed, or of the hand weights only (the sources' "sum of the hand pieces' values",
        eq. (8)), or nothing.
    """

    search: SearchSettings = SearchSettings()
    constraint: str = "hand"

    SEARCH_TYPE: ClassVar[type] = SearchSettings

    def __post_init__(self):
        if self.constraint not in CONSTRAINTS:
            raise ValueError(f"unknown constraint {self.constraint!r}; use one of {CONSTRAINTS}")
        super().__post_init__()


def material_indices(which: str = "material") -> np.ndarray:
    """Indices of the piece-value weights: the material weights (board and hand) of both halves
    of the layout (the side to move's block ``material`` and the other side's ``opp_material``),
    or their hand weights only (``which="hand"``)."""
    blocks = [E.block(name) for name in ("material", "opp_material")]
    if which == "hand":
        own = np.array([E.material_index(p, in_hand=True) for p in "PSGBR"])
        return np.concatenate([own + b.offset - blocks[0].offset for b in blocks])
    return np.concatenate([np.arange(b.offset, b.stop) for b in blocks])


def constraint_of(settings: BonanzaSettings, theta0) -> bz.PieceValueConstraint | None:
    """The piece-value constraint that keeps the sum of ``theta0``'s piece values."""
    if settings.constraint == "none":
        return None
    return bz.PieceValueConstraint.keeping(material_indices(settings.constraint), theta0)


def step_batch(t: int, n: int, settings: BonanzaSettings, seed: int) -> np.ndarray:
    """Position ids (sorted) of step ``t``: all in batch mode; else the slice of the epoch's
    permutation ``derive_rng(seed, "epoch", e)`` (:func:`gamelib.learn.bonanza_steps.step_batch`)."""
    return _steps.step_batch(t, n, settings, seed)


def learn_steps(theta, positions: RecordPositions, train_ids, settings: BonanzaSettings,
                first_step: int, n_steps: int, seed: int, *, constraint=None,
                map_fn: Callable | None = None) -> tuple[np.ndarray, dict]:
    """Steps ``first_step .. first_step + n_steps - 1`` of the learner from ``theta``.

    ``first_step`` must be a multiple of ``refresh_every`` (a refresh starts the call).
    ``train_ids`` are the training positions (ids into ``positions``); the batches index them.

    Returns
    -------
    theta : numpy.ndarray
    counts : dict
        ``positions_searched`` and ``J_batch`` (J per position of the batches, summed over the
        steps, measured at the weights of their search).
    """
    mask = np.ones(E.N_FEATURES, dtype=bool)    # R of eq. (11): every weight but the piece values
    mask[material_indices("material")] = False
    return _steps.learn_steps(theta, positions, train_ids, settings, first_step, n_steps, seed,
                              slope=SLOPE, constraint=constraint, l1_mask=mask, map_fn=map_fn,
                              reduction="chunks")


def material_table(thetas: dict, half: str = "mean") -> "object":
    """The 14 material weights (board, hand) of several parameter vectors, in pawns (value /
    0.02): of the side to move's half (``half="stm"``), of the other side's (``"opp"``), or
    their mean (the value of the piece whoever is to move)."""
    import pandas as pd

    own = E.block("material")
    opp = E.block("opp_material")
    names = [E.feature_name(i).split(": ")[1] for i in range(own.offset, own.stop)]
    pick = {"stm": lambda v: v[own.slice], "opp": lambda v: v[opp.slice],
            "mean": lambda v: 0.5 * (v[own.slice] + v[opp.slice])}
    if half not in pick:
        raise ValueError(f"unknown half {half!r}; use 'stm', 'opp' or 'mean'")
    return pd.DataFrame({k: pick[half](np.asarray(v)) / 0.02 for k, v in thetas.items()},
                        index=names)

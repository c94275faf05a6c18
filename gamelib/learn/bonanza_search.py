"""The Bonanza method's search over the game protocol: every legal move searched, its PV leaf.

For the positions P of :mod:`gamelib.learn.bonanza_positions` (any registered game), this
module computes what eqs. (1) and (5)–(7) of :mod:`gamelib.learn.bonanza` need under the
current weights v:

* every legal move p_m of a position searched by :func:`gamelib.algorithms.leaves.root_leaves_into`
  (compiled for the game): ``depth`` full-width plies counting the move, then ``qdepth`` plies
  of quiescence, the full window for every move (no pruning across moves), the game's linear
  evaluation (``EVAL_LINEAR``, read through its prepared weights);
* each move's value ξ(p_m, v) and the sparse features φ of its principal-variation (PV) leaf,
  both from the view of the side to move at p, so that ``ξ = v·φ`` (eq. 6) and a position's
  sign s_p of eq. (3) is always +1: ``T_p(x) = T(x)`` with ``x = ξ(p_m) − ξ(p_1)`` for the side
  to move;
* a move whose PV ends the game (no legal move, the repetition rule, the game-length cap) has no
  features and its game-end score as the constant ``leaf_bias`` b of ``ξ = v·φ + b`` (its
  gradient is zero).

One record's positions are searched by :func:`search_record`, a numba function written once
over the protocol (compiled per game). :func:`search_positions` keeps the results in a
:class:`LeafCache` (feature values as ``int8``, indices as ``int16`` or ``int32`` by the game's
number of features) whose :meth:`LeafCache.comparison_set` is the
:class:`~gamelib.learn.bonanza.ComparisonSet` of any of its positions; :func:`chunk_sums`
searches and sums J (eq. 1), its gradient (eq. 7) and the move agreement block by block,
keeping only one block's leaves. Searches run in chunks of
``chunk_size`` positions on any ``map`` (e.g. :meth:`gamelib.runtime.Executor.map`); the sums
are made over fixed blocks of positions (:data:`REDUCE_BLOCK`) and added in order, so the numbers
depend on the positions alone: not on the number of workers, nor on ``chunk_size``
(``reduction="chunks"``, each chunk summed where it is searched, is the older reduction that
5×5 shogi's committed runs used; its numbers depend on ``chunk_size``). :func:`evaluate`
gives J per position and the agreement (the fraction of positions whose expert move is
strictly the best after the search).

The loss's slope a of eq. (2) is given in the game's evaluation units (each game's Bonanza
module says which: :data:`gamelib.learn.bonanza_shogi.SLOPE`,
:data:`gamelib.learn.bonanza_othello.SLOPE`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from gamelib.algorithms import leaves as _leaves
from gamelib.algorithms.alphabeta import LEAF_STATIC, new_workspace
from gamelib.algorithms.leaves import root_leaves_into
from gamelib.games.protocol import EVAL_LINEAR, Game, make_move, prepared_weights
from gamelib.games.specialize import generic, specialize
from gamelib.learn import FeatureRows
from gamelib.learn import bonanza as bz
from gamelib.learn.bonanza import _expand
from gamelib.learn.bonanza_positions import ExpertPositions, game_of
from gamelib.runtime.checks import check_integer

__all__ = ["SearchSettings", "LeafCache", "search_positions", "chunk_sums", "block_sums",
           "evaluate", "index_dtype", "search_record", "REDUCE_BLOCK", "REDUCTIONS"]


@dataclass(frozen=True)
class SearchSettings:
    """The search of every legal move (:func:`gamelib.algorithms.leaves.root_leaves_into`).

    ``depth`` full-width plies, the move itself being ply 1, then ``qdepth`` quiescence plies
    (the PGLeaf paper's learning search is depth 1 + 4 quiescence plies; a game without noisy
    moves, Othello, has no quiescence plies to search); ``max_plies`` the game-length cap the
    search knows (0: none).
    """

    depth: int = 1
    qdepth: int = 4
    max_plies: int = 0

    def __post_init__(self):
        for name, low in (("depth", 1), ("qdepth", 0), ("max_plies", 0)):
            object.__setattr__(self, name, check_integer(name, getattr(self, name), low))


def index_dtype(n_features: int):
    """The cache's feature-index type: ``int16`` when every index fits it, else ``int32``."""
    return np.int16 if n_features <= np.iinfo(np.int16).max + 1 else np.int32


_ARRAYS = ("ids", "move_ptr", "expert", "leaf_ptr", "idx", "val", "bias", "scores")


@dataclass
class LeafCache:
    """Searched positions: every move's value and PV-leaf features (see the module docstring).

    Attributes
    ----------
    ids : int64[n]
        Position ids (into an :class:`~gamelib.learn.bonanza_positions.ExpertPositions`),
        increasing.
    move_ptr : int64[n+1]
        Moves of position r: ``move_ptr[r]:move_ptr[r+1]``.
    expert : int64[n]
        Index of the expert move among the position's moves.
    leaf_ptr : int64[n_moves+1], idx : int16 or int32 [nnz], val : int8[nnz]
        PV-leaf features (side to move's view) of every move, compressed sparse rows.
    bias : float64[n_moves]
        The constant part of ξ: 0, or the game-end score of a PV that ends the game.
    scores : float64[n_moves]
        ξ under the weights of the search.
    n_features : int
        The length of θ (the features' range).
    """

    ids: np.ndarray
    move_ptr: np.ndarray
    expert: np.ndarray
    leaf_ptr: np.ndarray
    idx: np.ndarray
    val: np.ndarray
    bias: np.ndarray
    scores: np.ndarray
    n_features: int

    def __len__(self) -> int:
        return self.ids.size

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, name).nbytes for name in _ARRAYS)

    @classmethod
    def empty(cls, n_features: int) -> "LeafCache":
        """A cache of no position."""
        z = np.zeros(0, dtype=np.int64)
        return cls(z, np.zeros(1, np.int64), z, np.zeros(1, np.int64),
                   np.zeros(0, index_dtype(n_features)), np.zeros(0, np.int8), np.zeros(0),
                   np.zeros(0), int(n_features))

    @classmethod
    def concatenate(cls, parts: Sequence["LeafCache"],
                    n_features: int | None = None) -> "LeafCache":
        """Stack caches (ids must stay increasing; every part of the same ``n_features``)."""
        widths = {p.n_features for p in parts} | ({n_features} if n_features else set())
        if len(widths) > 1:
            raise ValueError(f"cannot stack caches of different widths {sorted(widths)}")
        parts = [p for p in parts if len(p)]
        if not parts:
            if not widths:
                raise ValueError("nothing to stack: give n_features")
            return cls.empty(widths.pop())
        moves = np.cumsum([0] + [p.move_ptr[-1] for p in parts[:-1]])
        nnz = np.cumsum([0] + [p.leaf_ptr[-1] for p in parts[:-1]])
        return cls(
            np.concatenate([p.ids for p in parts]),
            np.concatenate([[0]] + [p.move_ptr[1:] + o for p, o in zip(parts, moves)]),
            np.concatenate([p.expert for p in parts]),
            np.concatenate([[0]] + [p.leaf_ptr[1:] + o for p, o in zip(parts, nnz)]),
            np.concatenate([p.idx for p in parts]), np.concatenate([p.val for p in parts]),
            np.concatenate([p.bias for p in parts]), np.concatenate([p.scores for p in parts]),
            parts[0].n_features)

    def rows_of(self, ids) -> np.ndarray:
        """Rows of position ids ``ids`` (``ValueError`` if one is missing)."""
        ids = np.asarray(ids, dtype=np.int64)
        rows = np.searchsorted(self.ids, ids)
        bad = (rows >= self.ids.size) | (self.ids[np.minimum(rows, self.ids.size - 1)] != ids)
        if bad.any():
            raise ValueError(f"position {int(ids[bad][0])} is not in the cache")
        return rows

    def comparison_set(self, rows=None) -> bz.ComparisonSet:
        """The :class:`~gamelib.learn.bonanza.ComparisonSet` of rows ``rows`` (default all);
        every position has ``side = +1`` (values are the side to move's)."""
        rows = np.arange(len(self)) if rows is None else np.asarray(rows, dtype=np.int64)
        moves, move_ptr = _expand(self.move_ptr, rows)
        entries, leaf_ptr = _expand_allow_empty(self.leaf_ptr, moves)
        leaves = FeatureRows(leaf_ptr, self.idx[entries], self.val[entries], self.n_features)
        return bz.ComparisonSet(leaves, move_ptr, self.expert[rows],
                                np.ones(rows.size, dtype=np.int64), self.bias[moves])


def _expand_allow_empty(ptr, sel):
    starts, lengths = ptr[sel], ptr[sel + 1] - ptr[sel]
    new_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return np.repeat(starts - new_ptr[:-1], lengths) + np.arange(new_ptr[-1]), new_ptr


_WORKSPACE: dict = {}


def _buffers(game: Game):
    """The search workspace and leaf buffers of ``game`` (one set per process)."""
    if game.name not in _WORKSPACE:
        _WORKSPACE[game.name] = (new_workspace(game, 0), _leaves.new_leaves_buffers(game))
    return _WORKSPACE[game.name]


@generic
def search_record(s, codes, plies, weights, kind, depth, qdepth, max_plies, ws, out, r,
                  move_ptr, expert, leaf_ptr, idx, val, bias, scores):
    """Search the positions of one record (the state ``s`` at its start; ``plies`` increasing)
    with :func:`gamelib.algorithms.leaves.root_leaves_into` (evaluation ``kind``), writing each
    position's moves into the cache's arrays from row ``r`` on: ``expert``, ``move_ptr``, each
    move's ``scores``, ``bias`` (its score if its PV ends the game, else 0) and its leaf's
    features (``leaf_ptr``, ``idx``, ``val``; ``leaf_ptr[move_ptr[r]]`` set). Returns ``(next
    row, -1)``, or ``(row, q)`` when the recorded move of ``plies[q]`` is not one legal move, or
    ``(row, -2)`` when a feature value is not an integer in [-128, 127] (what ``val`` holds)."""
    moves_b, scores_b, kind_b = out.moves, out.scores, out.leaf_kind
    ptr_b, idx_b, val_b = out.leaf_ptr, out.leaf_idx, out.leaf_val
    at = 0
    for q in range(plies.shape[0]):
        p = plies[q]
        while at < p:
            make_move(s, np.int64(codes[at]))
            at += 1
        n = root_leaves_into(s, weights, kind, depth, qdepth, max_plies, ws, out)
        hit = -1
        count = 0
        for k in range(n):
            if moves_b[k] == codes[p]:
                hit = k
                count += 1
        if count != 1:
            return r, q
        m0 = move_ptr[r]
        e0 = leaf_ptr[m0]
        for k in range(n):
            scores[m0 + k] = scores_b[k]
            bias[m0 + k] = 0.0 if kind_b[k] == LEAF_STATIC else scores_b[k]
            leaf_ptr[m0 + k + 1] = e0 + ptr_b[k + 1]
        for j in range(ptr_b[n]):
            x = val_b[j]
            if not (-128.0 <= x <= 127.0) or x != np.floor(x):
                return r, -2
            idx[e0 + j] = idx_b[j]
            val[e0 + j] = np.int8(x)
        expert[r] = hit
        move_ptr[r + 1] = m0 + n
        r += 1
    return r, -1


def _search_payload(game: Game, theta, payload, settings: SearchSettings, ids) -> LeafCache:
    """Search the positions of ``payload`` (:meth:`ExpertPositions.payload`) with ``theta``:
    record by record with :func:`search_record` compiled for ``game``."""
    ws, out = _buffers(game)
    kernel = specialize(game, sys.modules[__name__]).search_record
    theta = game.check_theta(theta)
    weights = prepared_weights(game, theta)
    n_pos = sum(len(p[2]) for p in payload)
    room = n_pos * game.MAX_MOVES                      # moves and leaf entries at most
    move_ptr = np.zeros(n_pos + 1, dtype=np.int64)
    expert = np.zeros(n_pos, dtype=np.int64)
    leaf_ptr = np.zeros(room + 1, dtype=np.int64)
    idx = np.empty(room * game.MAX_ACTIVE, dtype=index_dtype(game.N_FEATURES))
    val = np.empty(room * game.MAX_ACTIVE, dtype=np.int8)
    bias, scores = np.empty(room), np.empty(room)
    extra = settings.depth + settings.qdepth + 4
    r = 0
    for start, codes, plies in payload:
        s = game.with_room(start, len(codes) + extra)
        plies = np.asarray(plies, dtype=np.int64)
        r, bad = kernel(s, np.asarray(codes, dtype=np.int32), plies, weights, EVAL_LINEAR,
                        settings.depth, settings.qdepth, settings.max_plies, ws, out, r,
                        move_ptr, expert, leaf_ptr, idx, val, bias, scores)
        if bad == -2:
            raise ValueError("a feature value is not an integer in [-128, 127], which the "
                             "cache's int8 holds")
        if bad >= 0:
            raise ValueError(f"recorded move {game.move_text(int(codes[plies[bad]]))} is not a "
                             f"legal move of the position")
    m = int(move_ptr[r])
    nnz = int(leaf_ptr[m])
    return LeafCache(np.asarray(ids, dtype=np.int64), move_ptr, expert, leaf_ptr[:m + 1].copy(),
                     idx[:nnz].copy(), val[:nnz].copy(), bias[:m].copy(), scores[:m].copy(),
                     game.N_FEATURES)


def _chunks(ids: np.ndarray, chunk_size: int) -> list[np.ndarray]:
    return [ids[i:i + chunk_size] for i in range(0, ids.size, chunk_size)]


def _check_positions(positions) -> ExpertPositions:
    if not isinstance(positions, ExpertPositions):
        raise ValueError(f"positions must be ExpertPositions, got {type(positions).__name__}")
    return positions


def _check_ids(positions: ExpertPositions, ids) -> np.ndarray:
    _check_positions(positions)
    ids = np.unique(np.asarray(ids, dtype=np.int64))
    if ids.size and (ids[0] < 0 or ids[-1] >= len(positions)):
        raise ValueError(f"position id outside [0, {len(positions)})")
    return ids


def _check_settings(settings) -> None:
    if not isinstance(settings, SearchSettings):
        raise ValueError(f"settings must be a SearchSettings, got {type(settings).__name__}")


def _serial_map(fn, items):
    return [fn(x) for x in items]


def _cache_job(job):
    name, theta, payload, settings, ids = job
    return _search_payload(game_of(name), theta, payload, settings, ids)


def search_positions(theta, positions: ExpertPositions, ids=None, settings=SearchSettings(), *,
                     chunk_size: int = 64, map_fn: Callable | None = None) -> LeafCache:
    """Search every legal move of positions ``ids`` (default all; sorted and deduplicated) with
    the evaluation ``theta``; the :class:`LeafCache` of the results."""
    ids = np.arange(len(_check_positions(positions))) if ids is None else _check_ids(positions, ids)
    _check_settings(settings)
    game = positions.rules
    theta = game.check_theta(theta)
    jobs = [(game.name, theta, positions.payload(c), settings, c)
            for c in _chunks(ids, check_integer("chunk_size", chunk_size))]
    return LeafCache.concatenate((map_fn or _serial_map)(_cache_job, jobs), game.N_FEATURES)


def _sums(theta, cache: LeafCache, want_grad: bool, slope: float, window) -> tuple:
    """``(J, gradient or None, agreements, n)`` of a cache (eqs. 1 and 7, the agreement)."""
    cs = cache.comparison_set()
    if want_grad:
        j, g = bz.objective_and_gradient(theta, cs, slope=slope, window=window)
    else:
        j, g = bz.objective(theta, cs, slope=slope, window=window), None
    agree = bz.move_agreement(theta, cs) * len(cache) if len(cache) else 0.0
    return j, g, int(round(agree)), len(cache)


def _sum_job(job):
    name, theta, payload, settings, ids, want_grad, slope, window = job
    cache = _search_payload(game_of(name), theta, payload, settings, ids)
    return _sums(theta, cache, want_grad, slope, window)


#: Positions per reduction block of :func:`chunk_sums` (``reduction="blocks"``) and of the
#: cached steps of :func:`gamelib.learn.bonanza_steps.learn_steps`.
REDUCE_BLOCK = 4096
#: The ways :func:`chunk_sums` adds its sums up.
REDUCTIONS = ("blocks", "chunks")


def block_sums(theta, cache: LeafCache, rows, want_grad: bool, slope: float, window) -> tuple:
    """``(J, gradient or None, agreements, n)`` of the cache's rows ``rows`` (in that order),
    summed block by block: each block of :data:`REDUCE_BLOCK` rows by one pass of eqs. (1) and
    (7), the blocks' sums added in order (bounded float64 copies; the numbers depend only on
    ``rows``)."""
    j, g, agree, n = 0.0, np.zeros(cache.n_features) if want_grad else None, 0, 0
    for part in _chunks(np.asarray(rows, dtype=np.int64), REDUCE_BLOCK):
        cs = cache.comparison_set(part)
        if want_grad:
            cj, cg = bz.objective_and_gradient(theta, cs, slope=slope, window=window)
            g += cg
        else:
            cj = bz.objective(theta, cs, slope=slope, window=window)
        j += cj
        agree += int(round(bz.move_agreement(theta, cs) * part.size))
        n += part.size
    return j, g, agree, n


def chunk_sums(theta, positions: ExpertPositions, ids, settings=SearchSettings(), *, slope: float,
               want_grad: bool = True, window: float | None = None, chunk_size: int = 64,
               map_fn: Callable | None = None, reduction: str = "blocks") -> tuple:
    """Search positions ``ids`` with ``theta`` and return ``(J, gradient or None, agreements,
    n)`` summed over them (eqs. 1 and 7 with ``side = +1``). ``slope`` (a of eq. 2, per
    evaluation unit) and ``window`` are the loss T's.

    ``reduction="blocks"``: the positions (sorted ids) go in blocks of :data:`REDUCE_BLOCK`;
    the chunks of a block are searched (on ``map_fn``), and the block's leaves summed by
    :func:`block_sums` here: the numbers depend on the positions alone, not on ``chunk_size``
    or the workers. ``reduction="chunks"``: each chunk's sums are made where it is searched and
    added in chunk order (nothing but numbers travels back; the numbers depend on
    ``chunk_size``, not on the workers): the reduction of the committed 5×5 shogi runs.
    """
    ids = _check_ids(positions, ids)
    _check_settings(settings)
    bz._check_loss_params(slope, window)
    chunk_size = check_integer("chunk_size", chunk_size)
    if reduction not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}; use one of {REDUCTIONS}")
    game = positions.rules
    theta = game.check_theta(theta)
    run = map_fn or _serial_map
    j, g, agree, n = 0.0, np.zeros(theta.size) if want_grad else None, 0, 0
    if reduction == "chunks":
        jobs = [(game.name, theta, positions.payload(c), settings, c, want_grad, slope, window)
                for c in _chunks(ids, chunk_size)]
        parts = run(_sum_job, jobs)
    else:
        parts = []
        for block in _chunks(ids, REDUCE_BLOCK):
            jobs = [(game.name, theta, positions.payload(c), settings, c)
                    for c in _chunks(block, chunk_size)]
            cache = LeafCache.concatenate(run(_cache_job, jobs), game.N_FEATURES)
            parts.append(block_sums(theta, cache, np.arange(len(cache)), want_grad, slope,
                                    window))
    for cj, cg, ca, cn in parts:
        j += cj
        agree += ca
        n += cn
        if want_grad:
            g += cg
    return j, g, agree, n


def evaluate(theta, positions: ExpertPositions, ids=None, settings=SearchSettings(), *,
             slope: float, window: float | None = None, chunk_size: int = 64,
             map_fn: Callable | None = None, reduction: str = "blocks") -> dict:
    """``{"J_per_position", "agreement", "n_positions"}`` of ``theta`` on positions ``ids``
    (default all), after a fresh search (:func:`chunk_sums`)."""
    ids = np.arange(len(positions)) if ids is None else ids
    j, _, agree, n = chunk_sums(theta, positions, ids, settings, want_grad=False, slope=slope,
                                window=window, chunk_size=chunk_size, map_fn=map_fn,
                                reduction=reduction)
    return {"J_per_position": j / n if n else np.nan, "agreement": agree / n if n else np.nan,
            "n_positions": n}

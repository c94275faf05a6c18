"""The Bonanza method on 5×5 shogi: record positions, searched PV leaves, batch and mini-batch learning.

The equations are those of :mod:`gamelib.learn.bonanza` (numbers of the chapter *The Bonanza
method*): J(P, v) = Σ_p Σ_{m≥2} T_p[ξ(p_m, v) − ξ(p_1, v)] (eq. 1), its gradient through the
principal-variation (PV) leaves (eqs. 5–7), the piece-value-sum constraint (eqs. 8–10) and the
L1 term (eq. 11). This module supplies the real data: the positions of game records, and for
each of them a search of **every legal move** with the current evaluation.

Units
-----
Bonanza's loss is ``T(x) = sigmoid(0.0273 x)`` with x in Bonanza's units (a pawn ≈ 100). The
evaluation here (:mod:`gamelib.evaluation.shogi`) is in the PGLeaf paper's units, a pawn =
0.02, so one evaluation unit is 100 / 0.02 = 5,000 Bonanza units and

    T(x) = sigmoid(a x_B) = sigmoid(a · 5000 · x),   a = 7/256 ≈ 0.0273,

i.e. the slope in evaluation units is :data:`SLOPE` = 7/256 × 5000 ≈ 136.7 per unit (and
Bonanza's window ±256 is ±0.0512). Win-in-n scores of the search (±(1000 − n), see
:mod:`gamelib.search.core`) saturate T.

Data
----
* The records (:class:`~gamelib.minishogi.records.RecordedGame`, format ``gamelib-records 1``):
  the book's are made by the expert of :mod:`gamelib.play.teacher_games`, the reference
  opponent in self-play at a deep node budget after a few uniformly random opening plies; a
  record starts *after* those plies, so every recorded move is the teacher's. Users may bring
  their own.
* :class:`RecordPositions`: the positions of a list of records with their expert moves (the
  positions with a single legal move are left out: they compare nothing).
* :func:`search_positions` / :class:`LeafCache`: for every position, every legal move searched
  by :func:`gamelib.search.root_leaves_into` (``depth`` full-width plies counting the move, then
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
positions on any ``map`` (e.g. :meth:`gamelib.runtime.Executor.map`); the chunks, and the
order in which their sums are added, depend only on the positions, so the numbers do not depend
on the number of workers.

:func:`evaluate` gives J per position and the move agreement (the fraction of positions whose
expert move is strictly the best after the search) on any positions, e.g. held-out ones.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np

from gamelib.evaluation import shogi as E
from gamelib.runtime.checks import check_integer
from gamelib.runtime.seeds import derive_rng
from gamelib.learn import FeatureRows
from gamelib.learn import bonanza as bz
from gamelib.learn.bonanza import _expand
from gamelib.minishogi import core as mc
from gamelib.minishogi import rules as R
from gamelib.minishogi.notation import format_sfen
from gamelib.minishogi.records import RecordedGame, replay
from gamelib.play.games import check_float
from gamelib.search import LEAF_STATIC, new_leaves_buffers, new_workspace, root_leaves_into

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


# ----------------------------------------------------------------------------- positions
class RecordPositions:
    """The positions of game records with the expert's (recorded) move.

    Position i is game ``game[i]`` after its first ``ply[i]`` moves; the expert move is
    ``games[game[i]].moves[ply[i]]``. Positions are ordered by game, then ply.

    Parameters
    ----------
    games : sequence of RecordedGame
    skip_forced : bool
        Leave out positions with a single legal move.
    """

    def __init__(self, games: Sequence[RecordedGame], skip_forced: bool = True):
        self.games = list(games)
        self.codes = []
        game_ids, plies, keys = [], [], []
        buf = np.empty(mc.MAX_MOVES, dtype=np.int32)
        for g, rec in enumerate(self.games):
            s, codes = replay(rec.start_sfen, rec.moves)
            self.codes.append(codes)
            hashes = s[mc.HIST:mc.HIST + mc.HIST_STRIDE * (len(codes) + 1):mc.HIST_STRIDE]
            for k in range(len(codes)):
                mc.unmake_move(s)
            for k in range(len(codes)):
                if not skip_forced or mc.gen_moves(s, buf, 0, False) > 1:
                    game_ids.append(g)
                    plies.append(k)
                    keys.append(hashes[k])
                mc.make_move(s, np.int64(codes[k]))
        self.game = np.array(game_ids, dtype=np.int64)
        self.ply = np.array(plies, dtype=np.int64)
        #: Zobrist hash of each position (board, hands, side to move).
        self.key = np.array(keys, dtype=np.int64)

    def __len__(self) -> int:
        return self.game.size

    def __repr__(self) -> str:
        return f"RecordPositions({len(self)} positions from {len(self.games)} games)"

    def sfen(self, i: int) -> str:
        """SFEN of position ``i``."""
        g, p = int(self.game[i]), int(self.ply[i])
        s, _ = replay(self.games[g].start_sfen, self.games[g].moves[:p], check_end=False)
        return format_sfen(s)

    def payload(self, ids) -> list:
        """What a worker needs to search positions ``ids`` (sorted): ``[(start SFEN, moves,
        plies), ...]`` per game, in order."""
        ids = np.asarray(ids, dtype=np.int64)
        out = []
        if ids.size == 0:
            return out
        games = self.game[ids]
        cut = np.flatnonzero(np.diff(games)) + 1
        for part in np.split(np.arange(ids.size), cut):
            g = int(games[part[0]])
            plies = self.ply[ids[part]]
            out.append((self.games[g].start_sfen, self.codes[g][:plies.max() + 1], plies))
        return out


@dataclass(frozen=True)
class SearchSettings:
    """The search of every legal move (:func:`gamelib.search.root_leaves_into`).

    ``depth`` full-width plies, the move itself being ply 1, then ``qdepth`` quiescence plies
    (the PGLeaf paper's learning search is depth 1 + 4 quiescence plies); ``max_plies`` the
    game-length cap the search knows (0: none).
    """

    depth: int = 1
    qdepth: int = 4
    max_plies: int = R.DEFAULT_MAX_PLIES

    def __post_init__(self):
        for name, low in (("depth", 1), ("qdepth", 0), ("max_plies", 0)):
            object.__setattr__(self, name, check_integer(name, getattr(self, name), low))


@dataclass
class LeafCache:
    """Searched positions: every move's value and PV-leaf features (see the module docstring).

    Attributes
    ----------
    ids : int64[n]
        Position ids (into a :class:`RecordPositions`), increasing.
    move_ptr : int64[n+1]
        Moves of position r: ``move_ptr[r]:move_ptr[r+1]``.
    expert : int64[n]
        Index of the expert move among the position's moves.
    leaf_ptr : int64[n_moves+1], idx : int16[nnz], val : int8[nnz]
        PV-leaf features (side to move's view) of every move, compressed sparse rows.
    bias : float64[n_moves]
        The constant part of ξ: 0, or the game-end score of a PV that ends the game.
    scores : float64[n_moves]
        ξ under the weights of the search.
    """

    ids: np.ndarray
    move_ptr: np.ndarray
    expert: np.ndarray
    leaf_ptr: np.ndarray
    idx: np.ndarray
    val: np.ndarray
    bias: np.ndarray
    scores: np.ndarray

    def __len__(self) -> int:
        return self.ids.size

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in asdict(self).values())

    @classmethod
    def concatenate(cls, parts: Sequence["LeafCache"]) -> "LeafCache":
        """Stack caches (ids must stay increasing)."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return _empty_cache()
        moves = np.cumsum([0] + [p.move_ptr[-1] for p in parts[:-1]])
        nnz = np.cumsum([0] + [p.leaf_ptr[-1] for p in parts[:-1]])
        return cls(
            np.concatenate([p.ids for p in parts]),
            np.concatenate([[0]] + [p.move_ptr[1:] + o for p, o in zip(parts, moves)]),
            np.concatenate([p.expert for p in parts]),
            np.concatenate([[0]] + [p.leaf_ptr[1:] + o for p, o in zip(parts, nnz)]),
            np.concatenate([p.idx for p in parts]), np.concatenate([p.val for p in parts]),
            np.concatenate([p.bias for p in parts]), np.concatenate([p.scores for p in parts]))

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
        leaves = FeatureRows(leaf_ptr, self.idx[entries], self.val[entries], E.N_FEATURES)
        return bz.ComparisonSet(leaves, move_ptr, self.expert[rows],
                                np.ones(rows.size, dtype=np.int64), self.bias[moves])


def _expand_allow_empty(ptr, sel):
    starts, lengths = ptr[sel], ptr[sel + 1] - ptr[sel]
    new_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return np.repeat(starts - new_ptr[:-1], lengths) + np.arange(new_ptr[-1]), new_ptr


def _empty_cache() -> LeafCache:
    z = np.zeros(0, dtype=np.int64)
    return LeafCache(z, np.zeros(1, np.int64), z, np.zeros(1, np.int64), np.zeros(0, np.int16),
                     np.zeros(0, np.int8), np.zeros(0), np.zeros(0))


_WORKSPACE = {}


def _search_payload(theta, payload, settings: SearchSettings, ids) -> LeafCache:
    """Search the positions of ``payload`` (from :meth:`RecordPositions.payload`)."""
    ws = _WORKSPACE.get("ws")
    if ws is None:
        ws = _WORKSPACE["ws"] = new_workspace(0)
        _WORKSPACE["out"] = new_leaves_buffers()
    out = _WORKSPACE["out"]
    moves_b, scores_b, kind_b, ptr_b, idx_b, val_b = out[:6]
    theta = E.check_theta(theta)
    n_pos = sum(len(p[2]) for p in payload)
    move_ptr = np.zeros(n_pos + 1, dtype=np.int64)
    expert = np.zeros(n_pos, dtype=np.int64)
    leaf_ptrs, idxs, vals, biases, scores = [np.zeros(1, np.int64)], [], [], [], []
    r = nnz_total = 0
    extra = settings.depth + settings.qdepth + 4
    for start_sfen, codes, plies in payload:
        s, _ = replay(start_sfen, (), extra_plies=len(codes) + extra, check_end=False)
        at = 0
        for p in plies:
            while at < p:
                mc.make_move(s, np.int64(codes[at]))
                at += 1
            n = root_leaves_into(s, theta, E.EVAL_LINEAR, settings.depth, settings.qdepth,
                                 settings.max_plies, ws, out)
            hit = np.flatnonzero(moves_b[:n] == codes[p])
            if hit.size != 1:
                raise ValueError(f"recorded move {int(codes[p])} is not a legal move of "
                                 f"{format_sfen(s)!r}")
            expert[r] = hit[0]
            move_ptr[r + 1] = move_ptr[r] + n
            nnz = int(ptr_b[n])
            if nnz > 0 and (np.abs(val_b[:nnz]).max() > 127):
                raise ValueError("a feature value does not fit the cache's int8")
            idxs.append(idx_b[:nnz].astype(np.int16))
            vals.append(val_b[:nnz].astype(np.int8))
            leaf_ptrs.append(ptr_b[1:n + 1] + nnz_total)
            nnz_total += nnz
            static = kind_b[:n] == LEAF_STATIC
            biases.append(np.where(static, 0.0, scores_b[:n]))
            scores.append(scores_b[:n].copy())
            r += 1
    cat = (lambda xs, dt: np.concatenate(xs) if xs else np.zeros(0, dt))
    return LeafCache(np.asarray(ids, dtype=np.int64), move_ptr, expert,
                     np.concatenate(leaf_ptrs), cat(idxs, np.int16), cat(vals, np.int8),
                     cat(biases, np.float64), cat(scores, np.float64))


def _chunks(ids: np.ndarray, chunk_size: int) -> list[np.ndarray]:
    return [ids[i:i + chunk_size] for i in range(0, ids.size, chunk_size)]


def _check_ids(positions: RecordPositions, ids) -> np.ndarray:
    ids = np.unique(np.asarray(ids, dtype=np.int64))
    if ids.size and (ids[0] < 0 or ids[-1] >= len(positions)):
        raise ValueError(f"position id outside [0, {len(positions)})")
    return ids


def _serial_map(fn, items):
    return [fn(x) for x in items]


def _cache_job(job):
    theta, payload, settings, ids = job
    return _search_payload(theta, payload, settings, ids)


def search_positions(theta, positions: RecordPositions, ids=None, settings=SearchSettings(), *,
                     chunk_size: int = 64, map_fn: Callable | None = None) -> LeafCache:
    """Search every legal move of positions ``ids`` (default all; sorted and deduplicated) with
    the evaluation ``theta``; the :class:`LeafCache` of the results."""
    ids = np.arange(len(positions)) if ids is None else _check_ids(positions, ids)
    theta = E.check_theta(theta)
    jobs = [(theta, positions.payload(c), settings, c) for c in _chunks(ids, chunk_size)]
    return LeafCache.concatenate((map_fn or _serial_map)(_cache_job, jobs))


def _sums(theta, cache: LeafCache, want_grad: bool, slope: float, window) -> tuple:
    cs = cache.comparison_set()
    if want_grad:
        j, g = bz.objective_and_gradient(theta, cs, slope=slope, window=window)
    else:
        j, g = bz.objective(theta, cs, slope=slope, window=window), None
    agree = bz.move_agreement(theta, cs) * len(cache) if len(cache) else 0.0
    return j, g, int(round(agree)), len(cache)


def _sum_job(job):
    theta, payload, settings, ids, want_grad, slope, window = job
    cache = _search_payload(theta, payload, settings, ids)
    return _sums(theta, cache, want_grad, slope, window)


def chunk_sums(theta, positions: RecordPositions, ids, settings=SearchSettings(), *,
               want_grad: bool = True, slope: float = SLOPE, window: float | None = None,
               chunk_size: int = 64, map_fn: Callable | None = None) -> tuple:
    """Search positions ``ids`` with ``theta`` and return ``(J, gradient or None, agreements,
    n)`` summed over them, chunk by chunk without storing the leaves."""
    ids = _check_ids(positions, ids)
    theta = E.check_theta(theta)
    jobs = [(theta, positions.payload(c), settings, c, want_grad, slope, window)
            for c in _chunks(ids, chunk_size)]
    j, g, agree, n = 0.0, np.zeros(theta.size) if want_grad else None, 0, 0
    for cj, cg, ca, cn in (map_fn or _serial_map)(_sum_job, jobs):
        j += cj
        agree += ca
        n += cn
        if want_grad:
            g += cg
    return j, g, agree, n


def evaluate(theta, positions: RecordPositions, ids=None, settings=SearchSettings(), *,
             slope: float = SLOPE, window: float | None = None, chunk_size: int = 64,
             map_fn: Callable | None = None) -> dict:
    """``{"J_per_position", "agreement", "n_positions"}`` of ``theta`` on positions ``ids``
    (default all), after a fresh search."""
    ids = np.arange(len(positions)) if ids is None else ids
    j, _, agree, n = chunk_sums(theta, positions, ids, settings, want_grad=False, slope=slope,
                                window=window, chunk_size=chunk_size, map_fn=map_fn)
    return {"J_per_position": j / n if n else np.nan, "agreement": agree / n if n else np.nan,
            "n_positions": n}


# ----------------------------------------------------------------------------- the learner
CONSTRAINTS = ("material", "hand", "none")


@dataclass(frozen=True)
class BonanzaSettings:
    """One learner of the Bonanza method.

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
    constraint : {"material", "hand", "none"}
        Keep the sum of the material weights (board and hand, both halves of the layout)
        fixed, or of the hand weights only (the sources' "sum of the hand pieces' values",
        eq. (8)), or nothing.
    l1_weight : float
        w₁ of eq. (11), per training position (the objective is ``J/N + w₁ Σ_R |v_i|``), on every
        weight but the material weights (R: the positional weights, whichever constraint).
    l1_step : {"subgradient", "proximal"}
    window : float or None
        Clip x to ±window in T (None: the sources' plain sigmoid).
    search : SearchSettings
    chunk_size : int
        Positions per search job.
    """

    batch_size: int | None = None
    refresh_every: int = 1
    learning_rate: float = 1e-3
    update: str = "gradient"
    constraint: str = "hand"
    l1_weight: float = 0.0
    l1_step: str = "subgradient"
    window: float | None = None
    search: SearchSettings = SearchSettings()
    chunk_size: int = 64

    def __post_init__(self):
        if self.batch_size is not None:
            check_integer("batch_size", self.batch_size)
        check_integer("refresh_every", self.refresh_every)
        check_integer("chunk_size", self.chunk_size)
        check_float("learning_rate", self.learning_rate, positive=True)
        check_float("l1_weight", self.l1_weight)
        if self.update not in ("gradient", "sign"):
            raise ValueError(f"unknown update {self.update!r}; use 'gradient' or 'sign'")
        if self.constraint not in CONSTRAINTS:
            raise ValueError(f"unknown constraint {self.constraint!r}; use one of {CONSTRAINTS}")
        if self.l1_step not in ("subgradient", "proximal"):
            raise ValueError(f"unknown l1_step {self.l1_step!r}; use 'subgradient' or "
                             f"'proximal'")
        if self.update == "sign" and self.l1_step == "proximal":
            raise ValueError("l1_step='proximal' needs update='gradient'")
        if self.window is not None:
            check_float("window", self.window, positive=True)
        if not isinstance(self.search, SearchSettings):
            raise ValueError("search must be a SearchSettings")

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "BonanzaSettings":
        d = dict(d)
        if isinstance(d.get("search"), dict):
            d["search"] = SearchSettings(**d["search"])
        return cls(**d)

    def steps_per_epoch(self, n: int) -> int:
        """Steps that use every training position once (1 in batch mode)."""
        b = n if self.batch_size is None else min(self.batch_size, n)
        return -(-n // b)


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
    permutation ``derive_rng(seed, "epoch", e)``."""
    spe = settings.steps_per_epoch(n)
    if spe == 1:
        return np.arange(n)
    e, j = divmod(t, spe)
    b = settings.batch_size
    perm = derive_rng(seed, "epoch", e).permutation(n)
    return np.sort(perm[j * b:(j + 1) * b])


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
    k = settings.refresh_every
    if first_step % k:
        raise ValueError(f"first_step {first_step} is not a multiple of refresh_every {k}")
    train_ids = np.asarray(train_ids, dtype=np.int64)
    n = train_ids.size
    v = E.check_theta(theta).copy()
    mask = np.ones(v.size, dtype=bool)    # R of eq. (11): every weight but the piece values
    mask[material_indices("material")] = False
    searched, j_sum = 0, 0.0
    cache = None
    kw = dict(learning_rate=settings.learning_rate, update=settings.update,
              constraint=constraint, l1_weight=settings.l1_weight * n, l1_mask=mask,
              l1_step=settings.l1_step)
    for t in range(first_step, first_step + n_steps):
        batch = train_ids[step_batch(t, n, settings, seed)]
        if k == 1:
            j, g, _, m = chunk_sums(v, positions, batch, settings.search, slope=SLOPE,
                                    window=settings.window, chunk_size=settings.chunk_size,
                                    map_fn=map_fn)
            searched += m
        else:
            if t % k == 0:
                ahead = np.unique(np.concatenate(
                    [train_ids[step_batch(u, n, settings, seed)] for u in range(t, t + k)]))
                cache = search_positions(v, positions, ahead, settings.search,
                                         chunk_size=settings.chunk_size, map_fn=map_fn)
                searched += len(cache)
            j, g = 0.0, np.zeros(v.size)
            for rows in _chunks(cache.rows_of(batch), 4096):     # bounded float64 copies
                cj, cg = bz.objective_and_gradient(v, cache.comparison_set(rows), slope=SLOPE,
                                                   window=settings.window)
                j += cj
                g += cg
            m = batch.size
        j_sum += j / m
        v = bz.descent_step(v, g * (n / m), n, **kw)
    return v, {"positions_searched": searched, "J_batch": j_sum}


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

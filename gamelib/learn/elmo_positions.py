"""elmo's teacher data from game records, for any registered game: deep scores, shallow
features, results.

elmo's loss (:mod:`gamelib.learn.elmo`, eq. 5: ``L + λH``) needs, for every training position
s, a shallow evaluation ``θ·x(s)`` (its gradient is the feature vector x), a deep evaluation y
(a deeper search's score, the teacher) and the game's result t, all from the view of the side
to move at s. elmo made its positions by self-play of its own engine (5×5 shogi's experiment
does the same: :mod:`gamelib.learn.teacher`); here the positions are those of game records
(:class:`~gamelib.learn.bonanza_positions.ExpertPositions`: a start state and the moves played,
as the game's move codes), and each is labelled as follows.

* **Deep score** (:func:`deep_scores`): the score of the book's iterative-deepening search
  (:func:`gamelib.algorithms.deepening.deepen`: fail-soft PVS, transposition table of
  ``2**tt_bits`` entries, killers and history, no noise) of the teacher evaluation under a node
  budget, from the side to move's view; a forced game end found by the search is its game-end
  score ``±(MATE − plies)`` (:mod:`gamelib.algorithms.alphabeta`), whose win rate ``σ(y/K)`` is
  0 or 1. The search of every position starts afresh (table cleared, killers and history
  reset, a new generation of the evaluation cache), so a score is a function of the position,
  the weights and :class:`DeepSettings` alone: the score, depth and leaf kind of one
  :meth:`gamelib.play.games.SearchPlayer.search` call with these settings (tested), whatever
  positions are searched with it, in whatever chunks, on however many workers. One record's
  positions are replayed and searched in one numba loop (:func:`deep_record`, written once
  over the protocol and compiled per game; it repeats :func:`~gamelib.algorithms.deepening.deepen`'s
  iteration loop without its Python round trip per iteration).
* **Shallow side** (:func:`position_features`): the features of the position itself, the
  game's ``features`` (``x`` with ``evaluate(s, θ) = θ·x``). elmo's shallow search is a
  quiescence search and its leaf the principal leaf of that search; in a game without noisy
  moves (Othello: ``gen_noisy`` returns nothing, there are no checks) that search stands pat
  at once and its leaf *is* the position. In a game with noisy moves this is not elmo's
  shallow side (5×5 shogi's is the quiescence leaf, :func:`gamelib.learn.teacher.shallow_leaf`).
* **Result** (:func:`results_for_side_to_move`): the record's result from the first mover's
  view (+1 a win, 0 a draw, −1 a loss; the records' business, e.g. WTHOR's final score) turned
  to the view of the side to move at each position, read from the replayed state
  (``side_to_move``), and mapped to ``t = (r + 1) / 2``.

Work goes in chunks of positions (:func:`chunks`); each chunk is a job
(:func:`deep_chunk`, picklable, for :meth:`gamelib.runtime.executor.Executor.map`) that needs
only the positions' :meth:`~gamelib.learn.bonanza_positions.ExpertPositions.payload` and
the weights. The searches draw no random numbers (no noise), so a chunk needs no seed.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass
from typing import Callable

import numpy as np

from gamelib.algorithms import alphabeta as ab
from gamelib.algorithms.alphabeta import (C_ABORT, C_NODES, LEAF_MATED, LEAF_STATIC, MATE,
                                          MATE_BOUND, root_iteration, root_prepare, setup,
                                          static_eval)
from gamelib.games.protocol import (EVAL_LINEAR, Game, features, make_move, prepared_weights,
                                    side_to_move)
from gamelib.games.specialize import generic, specialize
from gamelib.learn import FeatureRows
from gamelib.learn.bonanza_positions import ExpertPositions, game_of
from gamelib.runtime.checks import check_integer

__all__ = ["DeepSettings", "DeepScores", "play_to", "deep_record", "features_record", "chunks",
           "deep_chunk", "deep_scores", "position_features", "results_for_side_to_move",
           "static_positions"]

@dataclass(frozen=True)
class DeepSettings:
    """The teacher's search of every position (:func:`gamelib.algorithms.deepening.deepen`).

    Attributes
    ----------
    node_budget : int
        Positions visited at most (the root and quiescence nodes included).
    max_depth : int
        Deepest iteration (full-width plies).
    qdepth : int
        Quiescence plies (Othello has no noisy moves: any value searches the same tree).
    max_plies : int
        The game-length cap the search knows (0: none; an Othello game ends by its rules
        within 120 plies).
    tt_bits : int
        The transposition table has ``2**tt_bits`` entries (the players' 16,
        :data:`gamelib.play.games.DEFAULT_TT_BITS`).
    """

    node_budget: int = 1000
    max_depth: int = 32
    qdepth: int = 0
    max_plies: int = 0
    tt_bits: int = 16

    def __post_init__(self):
        for name, low in (("node_budget", 1), ("max_depth", 1), ("qdepth", 0),
                          ("max_plies", 0), ("tt_bits", 0)):
            object.__setattr__(self, name, check_integer(name, getattr(self, name), low))
        if self.max_depth >= ab.MAX_PLY:
            raise ValueError(f"max_depth must be below {ab.MAX_PLY}, got {self.max_depth}")
        if self.tt_bits > 30:
            raise ValueError(f"tt_bits must be at most 30, got {self.tt_bits}")

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class DeepScores:
    """The deep search of positions ``ids`` (one entry each, in the order of ``ids``).

    Attributes
    ----------
    ids : int64 array
    score : float64 array
        The search's score (side to move's view; beyond ``±MATE_BOUND`` a forced game end).
    depth : int64 array
        Its last completed iteration (one less when the budget ran out inside an iteration
        whose first root move was finished, as :class:`~gamelib.algorithms.deepening.SearchResult`).
    nodes : int64 array
        Positions the whole search visited (its cost; a
        :class:`~gamelib.algorithms.deepening.SearchResult` counts those visited until the
        iteration whose result it keeps).
    leaf_kind : int64 array
        How the principal variation ends (``LEAF_STATIC`` 0: a static evaluation).
    """

    ids: np.ndarray
    score: np.ndarray
    depth: np.ndarray
    nodes: np.ndarray
    leaf_kind: np.ndarray

    def arrays(self) -> dict:
        return {k: getattr(self, k) for k in ("ids", "score", "depth", "nodes", "leaf_kind")}

    @classmethod
    def concatenate(cls, parts) -> "DeepScores":
        parts = list(parts)
        if not parts:
            z = np.zeros(0, dtype=np.int64)
            return cls(z, np.zeros(0), z, z, z)
        return cls(*(np.concatenate([getattr(p, k) for p in parts])
                     for k in ("ids", "score", "depth", "nodes", "leaf_kind")))


@generic(inline="always")
def play_to(s, codes, at, ply):
    """Play the record's moves ``codes[at:ply]`` on ``s`` (which has played the first ``at``);
    returns ``ply``, the moves played now."""
    while at < ply:
        make_move(s, np.int64(codes[at]))
        at += 1
    return at


@generic
def deep_record(s, codes, plies, weights, kind, max_depth, budget, qdepth, max_plies, seed, ws,
                root_moves, pv_out, info, r, score, depth, nodes, leaf_kind):
    """Search the positions of one record (the state ``s`` at its start; ``plies`` increasing:
    the moves of ``codes`` played before each) by iterative deepening under ``budget`` nodes,
    writing each position's score, last completed iteration, nodes and leaf kind at row ``r``
    on. The loop of :func:`gamelib.algorithms.deepening.deepen` (without a stop signal):
    a budget that runs out inside an iteration keeps its finished root moves' best, or the
    previous iteration's result when not even its first root move was finished; a forced game
    end within the full-width plies ends the deepening. A position without a legal move scores
    ``-MATE``. Returns the next row."""
    mv, ordk, pv, ctl, tt, tts, ec, ecv = ws
    at = 0
    for q in range(plies.shape[0]):
        at = play_to(s, codes, at, plies[q])
        setup(s, ctl, tt, budget, qdepth, kind, True, True, True, seed, max_plies)
        n = root_prepare(s, mv, ordk, ctl, root_moves)
        if n == 0:
            score[r] = -MATE
            depth[r] = 0
            nodes[r] = ctl[C_NODES]
            leaf_kind[r] = LEAF_MATED
            r += 1
            continue
        best = static_eval(s, weights, ctl, 0.0)
        best_depth = 0
        best_kind = np.int64(LEAF_STATIC)
        for d in range(1, max_depth + 1):
            v = root_iteration(s, weights, mv, ordk, pv, ctl, tt, tts, ec, ecv, 0.0,
                               np.int64(d), root_moves, np.int64(n), pv_out, info)
            if info[2] == 0:
                break
            aborted = ctl[C_ABORT] != 0
            best = v
            best_depth = d - 1 if aborted else d
            best_kind = info[3]
            if aborted:
                break
            if abs(v) > MATE_BOUND and MATE - abs(v) <= d:
                break
        score[r] = best
        depth[r] = best_depth
        nodes[r] = ctl[C_NODES]
        leaf_kind[r] = best_kind
        r += 1
    return r


@generic
def features_record(s, codes, plies, idx_buf, val_buf, r, ptr, idx, val, stm):
    """The game's ``features`` of the positions of one record (as :func:`deep_record` replays
    them) into compressed rows from row ``r`` on (``ptr[r]`` set), and each position's
    ``side_to_move``. Returns the next row."""
    at = 0
    for q in range(plies.shape[0]):
        at = play_to(s, codes, at, plies[q])
        n = features(s, idx_buf, val_buf)
        e0 = ptr[r]
        for j in range(n):
            idx[e0 + j] = idx_buf[j]
            val[e0 + j] = val_buf[j]
        ptr[r + 1] = e0 + n
        stm[r] = side_to_move(s)
        r += 1
    return r


def _kernels(game: Game):
    return specialize(game, sys.modules[__name__])


_WORKSPACES: dict = {}


def _workspace(game: Game, tt_bits: int):
    """One search workspace per game and table size in a process."""
    key = (game.name, tt_bits)
    if key not in _WORKSPACES:
        _WORKSPACES[key] = ab.new_workspace(game, tt_bits)
    return _WORKSPACES[key]


def _check_positions(positions) -> ExpertPositions:
    if not isinstance(positions, ExpertPositions):
        raise ValueError(f"positions must be ExpertPositions, got {type(positions).__name__}")
    return positions


def _check_ids(positions: ExpertPositions, ids) -> np.ndarray:
    ids = np.asarray(ids, dtype=np.int64).ravel()
    if ids.size and (np.any(np.diff(ids) <= 0) or ids[0] < 0 or ids[-1] >= len(positions)):
        raise ValueError(f"ids must be increasing position ids in [0, {len(positions)})")
    return ids


def chunks(ids, chunk_size: int) -> list[np.ndarray]:
    """``ids`` cut into consecutive chunks of ``chunk_size`` (the last may be shorter)."""
    ids = np.asarray(ids, dtype=np.int64)
    chunk_size = check_integer("chunk_size", chunk_size)
    return [ids[i:i + chunk_size] for i in range(0, ids.size, chunk_size)]


def _deep_payload(game: Game, theta, payload, settings: DeepSettings, ids) -> DeepScores:
    kernel = _kernels(game).deep_record
    weights = prepared_weights(game, theta)
    ws = _workspace(game, settings.tt_bits)
    n = int(sum(len(p[2]) for p in payload))
    score, depth = np.zeros(n), np.zeros(n, dtype=np.int64)
    nodes, kind = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    root_moves = np.zeros(game.MAX_MOVES, dtype=np.int32)
    pv_out = np.zeros(ab.MAX_PLY + 2, dtype=np.int32)
    info = np.zeros(4, dtype=np.int64)
    r = 0
    for start, codes, plies in payload:
        s = game.with_room(start, len(codes) + ab.MAX_PLY + 2)
        r = kernel(s, np.asarray(codes, dtype=np.int32), np.asarray(plies, dtype=np.int64),
                   weights, EVAL_LINEAR, settings.max_depth, min(settings.node_budget, 1 << 62),
                   settings.qdepth, settings.max_plies, np.int64(0), ws, root_moves, pv_out,
                   info, r, score, depth, nodes, kind)
    return DeepScores(np.asarray(ids, dtype=np.int64), score, depth, nodes, kind)


def deep_chunk(job) -> DeepScores:
    """One chunk's job: ``(game name, θ, payload, DeepSettings, ids)`` → :class:`DeepScores`
    (the job that :func:`deep_scores` maps)."""
    name, theta, payload, settings, ids = job
    return _deep_payload(game_of(name), theta, payload, settings, ids)


def _serial_map(fn, items):
    return [fn(x) for x in items]


def deep_scores(theta, positions: ExpertPositions, ids, settings: DeepSettings = DeepSettings(),
                *, chunk_size: int = 256, map_fn: Callable | None = None) -> DeepScores:
    """The deep search (module doc) of positions ``ids`` (increasing) with the linear
    evaluation ``theta``, ``chunk_size`` positions a job on ``map_fn`` (e.g.
    :meth:`gamelib.runtime.executor.Executor.map`; default serial). The numbers do not depend
    on ``chunk_size`` nor on the map."""
    positions = _check_positions(positions)
    ids = _check_ids(positions, ids)
    if not isinstance(settings, DeepSettings):
        raise ValueError(f"settings must be a DeepSettings, got {type(settings).__name__}")
    game = positions.rules
    theta = game.check_theta(theta)
    jobs = [(game.name, theta, positions.payload(c), settings, c)
            for c in chunks(ids, chunk_size)]
    return DeepScores.concatenate((map_fn or _serial_map)(deep_chunk, jobs))


def position_features(positions: ExpertPositions, ids) -> tuple[FeatureRows, np.ndarray]:
    """``(features, side_to_move)`` of positions ``ids`` (increasing): the game's ``features``
    of each position itself, the shallow side of elmo's loss in a game without quiescence
    moves (module doc), and who is to move there (0 the first mover)."""
    positions = _check_positions(positions)
    ids = _check_ids(positions, ids)
    game = positions.rules
    kernel = _kernels(game).features_record
    n = ids.size
    ptr = np.zeros(n + 1, dtype=np.int64)
    idx = np.zeros(n * game.MAX_ACTIVE, dtype=np.int32)
    val = np.zeros(n * game.MAX_ACTIVE, dtype=np.float64)
    stm = np.zeros(n, dtype=np.int64)
    idx_buf = np.zeros(game.MAX_ACTIVE, dtype=np.int32)
    val_buf = np.zeros(game.MAX_ACTIVE, dtype=np.float64)
    r = 0
    for start, codes, plies in positions.payload(ids):
        s = game.with_room(start, len(codes) + 1)
        r = kernel(s, np.asarray(codes, dtype=np.int32), np.asarray(plies, dtype=np.int64),
                   idx_buf, val_buf, r, ptr, idx, val, stm)
    nnz = int(ptr[-1])
    return FeatureRows(ptr, idx[:nnz], val[:nnz], game.N_FEATURES), stm


def results_for_side_to_move(first_mover_result, games, side) -> np.ndarray:
    """``t ∈ {0, ½, 1}`` of positions: the result of their record (``first_mover_result[g]``:
    +1 the first mover won, 0 a draw, −1 it lost) from the view of the side to move there
    (``side``: 0 the first mover, 1 the other; ``games``: each position's record)."""
    r = np.asarray(first_mover_result)
    games, side = np.asarray(games, dtype=np.int64), np.asarray(side, dtype=np.int64)
    if games.shape != side.shape:
        raise ValueError(f"games and side must have one entry per position, got shapes "
                         f"{games.shape} and {side.shape}")
    if r.size and not np.all(np.isin(r, (-1, 0, 1))):
        raise ValueError("first_mover_result must hold +1 (win), 0 (draw) or -1 (loss)")
    if not np.all(np.isin(side, (0, 1))):
        raise ValueError("side must be 0 (the first mover) or 1")
    mine = r[games] * np.where(side == 0, 1, -1)
    return (mine + 1) / 2.0


def static_positions(scores) -> np.ndarray:
    """Whether each deep score is a static evaluation or a proven draw (0), not a forced win
    or loss (``|y| <= MATE_BOUND``): the scores a win-rate scale can be fitted to
    (:func:`gamelib.learn.elmo_train.fit_scale`; a game-end score's win rate is 0 or 1 at any
    scale, and one that the record's result contradicts -- a player who later threw away a
    won position -- would pull the fitted scale by a thousand evaluation units)."""
    return np.abs(np.asarray(scores, dtype=np.float64)) <= MATE_BOUND

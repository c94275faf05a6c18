"""Iterative deepening under a node budget over the game protocol: an engine's move choice.

:func:`deepen` checks the search's settings, clears the transposition table and deepens one
iteration at a time with the game's :func:`gamelib.algorithms.alphabeta.root_iteration`
(fail-soft PVS with quiescence, see :mod:`gamelib.algorithms.alphabeta`). The same position,
parameters, budget and seed give the same result on any machine: the node budget, not the
clock, stops the search, and nothing is kept between calls. A :class:`StopSignal` lets another
thread end a search early (the USI engine's ``stop`` and time limits); ``on_iteration`` reports
each finished iteration. A game's front end (5×5 shogi: :func:`gamelib.search.search`) checks
the position and the evaluation's parameters and hands over a state with room for the search.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gamelib.games.protocol import Game
from gamelib.runtime.checks import check_integer

from . import alphabeta as ab

__all__ = ["SearchResult", "StopSignal", "deepen", "mate_plies", "check_workspace"]


def mate_plies(score: float) -> int | None:
    """Plies to the forced game end a score announces (> 0 a win, < 0 a loss), else None."""
    if abs(score) <= ab.MATE_BOUND:
        return None
    plies = int(round(ab.MATE - abs(score)))
    return plies if score > 0 else -plies


@dataclass(frozen=True)
class SearchResult:
    """Result of :func:`deepen`.

    Attributes
    ----------
    move : int
        Best move (the game's move code), -1 if the side to move has no legal move.
    score : float
        Its value from the side to move's view (evaluation units); beyond ±``MATE_BOUND`` a
        forced game end (:func:`mate_plies`).
    pv : int32 array
        The principal variation from ``move`` on; playing it reaches the principal leaf.
    depth : int
        Last completed iteration (full-width plies; 0 if none completed).
    nodes : int
        Positions visited, quiescence included (never more than the budget).
    partial : bool
        The result comes from the unfinished iteration ``depth + 1`` (its first root move, the
        previous best, was finished and ``move`` is the best of the finished root moves).
    leaf_kind : int
        How the PV ends (``LEAF_STATIC``, ``LEAF_MATED``, ``LEAF_REPETITION``, ``LEAF_CAP``).
    seldepth : int
        Deepest ply reached (quiescence included).
    n_legal : int
        Number of legal root moves.
    """

    move: int
    score: float
    pv: np.ndarray = field(repr=False)
    depth: int
    nodes: int
    partial: bool = False
    leaf_kind: int = ab.LEAF_STATIC
    seldepth: int = 0
    n_legal: int = 0

    @property
    def mate(self) -> int | None:
        """Plies to a forced game end (> 0: the side to move wins), or None."""
        return mate_plies(self.score)


class StopSignal:
    """Ends a running search from another thread (the search releases the GIL).

    ``stop()`` makes the search return as if its node budget had run out (the result of the
    finished iterations, or of the unfinished one's finished root moves). A signal stopped
    before the search starts stops it at once; use a new signal per search.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ctl = None
        self.stopped = False

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            if self._ctl is not None:
                self._ctl[ab.C_BUDGET] = 0

    def _attach(self, ctl) -> None:
        with self._lock:
            self._ctl = ctl
            if self.stopped:
                ctl[ab.C_BUDGET] = 0

    def _detach(self) -> None:
        with self._lock:
            self._ctl = None


def check_workspace(game: Game, ws):
    """``ws`` if it is a workspace of :func:`gamelib.algorithms.alphabeta.new_workspace` for
    ``game`` (any table size), else ``ValueError``."""
    ref = ab.new_workspace(game, 0)
    if not isinstance(ws, ab.Workspace):
        raise ValueError("workspace must be the Workspace made by new_workspace")
    for name, a, b in zip(ab.Workspace._fields, ws, ref):
        ok = isinstance(a, np.ndarray) and a.dtype == b.dtype and a.flags.c_contiguous and a.ndim == b.ndim
        table = name in ("tt", "tts")                  # (any size)
        if not ok or (not table and a.shape != b.shape) or (name == "tt" and (a.shape[1] != 2 or a.shape[0] & (a.shape[0] - 1))):
            raise ValueError(f"workspace array {name} does not match new_workspace's")
    if ws.tts.shape[0] != ws.tt.shape[0]:
        raise ValueError("workspace table arrays differ in size")
    return ws


def check_settings(max_depth, node_budget, qdepth, max_plies, tt_bits, seed, noise_std):
    """The search's settings checked (one ``ValueError`` naming the first bad one):
    ``(max_depth, node_budget, qdepth, max_plies, tt_bits, seed as int64, noise_std)``."""
    max_depth = check_integer("max_depth", max_depth, 1)
    node_budget = check_integer("node_budget", node_budget, 1)
    qdepth = check_integer("qdepth", qdepth, 0)
    max_plies = check_integer("max_plies", max_plies, 0)
    tt_bits = check_integer("tt_bits", tt_bits, 0)
    if tt_bits > 30:
        raise ValueError(f"tt_bits must be at most 30, got {tt_bits}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    noise_std = float(noise_std)
    if not np.isfinite(noise_std) or noise_std < 0:
        raise ValueError(f"noise_std must be a finite number >= 0, got {noise_std!r}")
    seed64 = np.int64(np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF).view(np.int64))
    return min(max_depth, ab.MAX_PLY - 1), node_budget, qdepth, max_plies, tt_bits, seed64, noise_std


def deepen(game: Game, st: np.ndarray, theta: np.ndarray, kind: int, max_depth: int, node_budget: int,
           qdepth: int, noise_std: float, seed: np.int64, max_plies: int, use_tt: bool, killers: bool,
           history: bool, ws: tuple, stop: StopSignal | None = None,
           on_iteration: Callable | None = None, result_type: type = SearchResult):
    """Best move of ``st`` by iterative deepening under a node budget (settings checked by
    :func:`check_settings`; ``st`` a state of ``game`` with room for ``MAX_PLY + 2`` more
    plies, searched in place and restored; ``ws`` a workspace).

    Returns a ``result_type`` (:class:`SearchResult` or a subclass): the last finished
    iteration's result, or the unfinished iteration's if it finished at least its first root
    move (``partial``). If not even that happened (a tiny budget), the first root move in move
    order with the root's static evaluation and ``depth = 0``. A forced game end found within
    the full-width plies ends the deepening early. Without a legal move: move -1, score
    ``-MATE``, ``LEAF_MATED``.
    """
    k = ab.kernels(game)
    mv, ordk, pv, ctl, tt, tts, ec, ecv = ws
    k.setup(st, ctl, tt, min(node_budget, 1 << 62), qdepth, kind, use_tt, killers, history, seed, max_plies)
    root_moves = np.zeros(game.MAX_MOVES, dtype=np.int32)
    n = k.root_prepare(st, mv, ordk, ctl, root_moves)
    if n == 0:
        return result_type(-1, -ab.MATE, np.zeros(0, dtype=np.int32), 0, int(ctl[ab.C_NODES]), False, ab.LEAF_MATED, 0, 0)
    noise = np.float64(noise_std)
    pv_out = np.zeros(ab.MAX_PLY + 2, dtype=np.int32)
    info = np.zeros(4, dtype=np.int64)

    def result(move, score, pv_len, depth, partial, leaf_kind):
        return result_type(
            move=int(move),
            score=float(score),
            pv=pv_out[:pv_len].copy(),
            depth=depth,
            nodes=int(ctl[ab.C_NODES]),
            partial=partial,
            leaf_kind=int(leaf_kind),
            seldepth=int(ctl[ab.C_SELDEPTH]),
            n_legal=int(n),
        )

    pv_out[0] = root_moves[0]
    best = result(root_moves[0], k.static_eval(st, theta, ctl, noise), 1, 0, False, ab.LEAF_STATIC)
    if stop is not None:
        stop._attach(ctl)
    try:
        for depth in range(1, max_depth + 1):
            score = k.root_iteration(st, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, noise, np.int64(depth), root_moves, np.int64(n), pv_out, info)
            if info[2] == 0:
                break  # stopped before the first root move finished
            aborted = ctl[ab.C_ABORT] != 0
            best = result(info[0], score, info[1], depth - 1 if aborted else depth, aborted, info[3])
            if aborted:
                break
            if on_iteration is not None:
                on_iteration(best)
            if abs(score) > ab.MATE_BOUND and ab.MATE - abs(score) <= depth:
                break  # a forced game end within the full-width plies: deeper cannot change it
    finally:
        if stop is not None:
            stop._detach()
    return best

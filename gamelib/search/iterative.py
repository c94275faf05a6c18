"""Iterative-deepening search under a node budget: the engine's move choice.

:func:`search` validates its input, copies the state into a buffer with room for the search,
clears the transposition table and deepens one iteration at a time with
:func:`gamelib.search.core.root_iteration` (fail-soft PVS with quiescence, see
:mod:`gamelib.search.core`). The same position, parameters, budget and seed give the same
result on any machine: the node budget, not the clock, stops the search, and nothing is kept
between calls. A :class:`StopSignal` lets another thread end a search early (the USI engine's
``stop`` and time limits); ``on_iteration`` reports each finished iteration.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gamelib.evaluation import shogi as ev
from gamelib.minishogi import core as mc
from gamelib.minishogi.notation import format_usi
from gamelib.runtime.checks import check_integer

from . import core as sc
from .state import as_search_state, check_eval_args, thread_workspace

__all__ = ["SearchResult", "StopSignal", "search", "DEFAULT_TT_BITS", "mate_plies", "principal_leaf"]

#: Default transposition table: 2**16 entries (1.5 MB).
DEFAULT_TT_BITS = 16


def mate_plies(score: float) -> int | None:
    """Plies to the forced game end a score announces (> 0 a win, < 0 a loss), else None."""
    if abs(score) <= sc.MATE_BOUND:
        return None
    plies = int(round(sc.MATE - abs(score)))
    return plies if score > 0 else -plies


@dataclass(frozen=True)
class SearchResult:
    """Result of :func:`search`.

    Attributes
    ----------
    move : int
        Best move (engine integer move), -1 if the side to move has no legal move.
    score : float
        Its value from the side to move's view (evaluation units, a pawn = 0.02); beyond
        ±``MATE_BOUND`` a forced game end (:func:`mate_plies`).
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
    leaf_kind: int = sc.LEAF_STATIC
    seldepth: int = 0
    n_legal: int = 0

    @property
    def usi(self) -> str | None:
        """The move in USI notation, None if there is none."""
        return None if self.move < 0 else format_usi(self.move)

    @property
    def pv_usi(self) -> list[str]:
        """The PV in USI notation."""
        return [format_usi(int(m)) for m in self.pv]

    @property
    def mate(self) -> int | None:
        """Plies to a forced game end (> 0: the side to move wins), or None."""
        return mate_plies(self.score)


class StopSignal:
    """Ends a running :func:`search` from another thread (the search releases the GIL).

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
                self._ctl[sc.C_BUDGET] = 0

    def _attach(self, ctl) -> None:
        with self._lock:
            self._ctl = ctl
            if self.stopped:
                ctl[sc.C_BUDGET] = 0

    def _detach(self) -> None:
        with self._lock:
            self._ctl = None


def _check_workspace(ws):
    ref = sc.new_workspace(0)
    if not isinstance(ws, tuple) or len(ws) != len(ref):
        raise ValueError("workspace must be the tuple of arrays made by gamelib.search.core.new_workspace")
    for k, (a, b) in enumerate(zip(ws, ref)):
        ok = isinstance(a, np.ndarray) and a.dtype == b.dtype and a.flags.c_contiguous and a.ndim == b.ndim
        if not ok or (k != 4 and k != 5 and a.shape != b.shape) or (k == 4 and (a.shape[1] != 2 or a.shape[0] & (a.shape[0] - 1))):
            raise ValueError(f"workspace array {k} does not match gamelib.search.core.new_workspace's")
    if ws[5].shape[0] != ws[4].shape[0]:
        raise ValueError("workspace table arrays differ in size")
    return ws


def search(
    s,
    theta,
    kind,
    max_depth: int,
    node_budget: int,
    qdepth: int = 8,
    noise_std: float = 0.0,
    seed: int = 0,
    *,
    max_plies: int = 0,
    tt_bits: int = DEFAULT_TT_BITS,
    use_tt: bool = True,
    killers: bool = True,
    history: bool = True,
    stop: StopSignal | None = None,
    on_iteration: Callable[[SearchResult], None] | None = None,
    workspace: tuple | None = None,
) -> SearchResult:
    """Best move of ``s`` by iterative deepening under a node budget.

    Parameters
    ----------
    s : int64 state array or :class:`gamelib.minishogi.Position`
        The position with its game history (used for repetitions; not modified).
    theta : float64 array of length ``N_FEATURES``
        The evaluation's parameters.
    kind : int
        ``EVAL_MATERIAL`` or ``EVAL_LINEAR`` (:mod:`gamelib.evaluation.shogi`).
    max_depth : int
        Deepest full-width iteration (``>= 1``; capped at ``MAX_PLY - 1``).
    node_budget : int
        Most positions to visit (``>= 1``), quiescence included.
    qdepth : int
        Quiescence plies below the full-width horizon.
    noise_std : float
        Standard deviation of the Gaussian evaluation noise (the paper's matches:
        ``sqrt(0.001)``); 0 for none.
    seed : int
        Seed of the noise (any integer; only its low 64 bits matter).
    max_plies : int
        Game-length cap of the game (a position at that ply is a draw), 0 for none.
    tt_bits : int
        Transposition table size ``2**tt_bits`` entries.
    use_tt, killers, history : bool
        Switches of the TT (with the evaluation cache, :mod:`gamelib.search.core`) and of the
        killer and history move orderings (for measurements).
    stop : StopSignal, optional
        Lets another thread end the search early.
    on_iteration : callable, optional
        Called with the :class:`SearchResult` so far after every finished iteration.
    workspace : tuple, optional
        Arrays from :func:`gamelib.search.core.new_workspace` to search in (its table size
        replaces ``tt_bits``); by default a per-thread workspace. One search at a time per
        workspace.

    Returns
    -------
    SearchResult
        The last finished iteration's result, or the unfinished iteration's if it finished
        at least its first root move (``partial``). If not even that happened (a tiny budget),
        the first root move in move order with the root's static evaluation and ``depth = 0``.
        A forced game end found within the full-width plies ends the deepening early.
    """
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
    theta, kind = check_eval_args(theta, kind)
    if kind == ev.EVAL_LINEAR:   # θ with its pair table (a faster evaluation, the same values)
        theta = ev.prepare(theta)
    max_depth = min(max_depth, sc.MAX_PLY - 1)
    st = as_search_state(s, sc.MAX_PLY + 2)
    mv, ordk, pv, ctl, tt, tts, ec, ecv = thread_workspace(tt_bits) if workspace is None else _check_workspace(workspace)
    seed64 = np.int64(np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF).view(np.int64))
    sc.setup(st, ctl, tt, min(node_budget, 1 << 62), qdepth, kind, use_tt, killers, history, seed64, max_plies)
    root_moves = np.zeros(mc.MAX_MOVES, dtype=np.int32)
    n = sc.root_prepare(st, mv, ordk, ctl, root_moves)
    if n == 0:
        return SearchResult(-1, -sc.MATE, np.zeros(0, dtype=np.int32), 0, int(ctl[sc.C_NODES]), False, sc.LEAF_MATED, 0, 0)
    noise = np.float64(noise_std)
    pv_out = np.zeros(sc.MAX_PLY + 2, dtype=np.int32)
    info = np.zeros(4, dtype=np.int64)

    def result(move, score, pv_len, depth, partial, leaf_kind):
        return SearchResult(
            move=int(move),
            score=float(score),
            pv=pv_out[:pv_len].copy(),
            depth=depth,
            nodes=int(ctl[sc.C_NODES]),
            partial=partial,
            leaf_kind=int(leaf_kind),
            seldepth=int(ctl[sc.C_SELDEPTH]),
            n_legal=int(n),
        )

    pv_out[0] = root_moves[0]
    best = result(root_moves[0], sc.static_eval(st, theta, ctl, noise), 1, 0, False, sc.LEAF_STATIC)
    if stop is not None:
        stop._attach(ctl)
    try:
        for depth in range(1, max_depth + 1):
            score = sc.root_iteration(st, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, noise, np.int64(depth), root_moves, np.int64(n), pv_out, info)
            if info[2] == 0:
                break  # stopped before the first root move finished
            aborted = ctl[sc.C_ABORT] != 0
            best = result(info[0], score, info[1], depth - 1 if aborted else depth, aborted, info[3])
            if aborted:
                break
            if on_iteration is not None:
                on_iteration(best)
            if abs(score) > sc.MATE_BOUND and sc.MATE - abs(score) <= depth:
                break  # a forced game end within the full-width plies: deeper cannot change it
    finally:
        if stop is not None:
            stop._detach()
    return best


def principal_leaf(s, result: SearchResult) -> np.ndarray:
    """The state at the end of ``result.pv`` played from ``s`` (a copy; ``s`` is not modified)."""
    st = as_search_state(s, len(result.pv) + 1)
    for m in result.pv:
        mc.make_move(st, int(m))
    return st

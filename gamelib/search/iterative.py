"""Iterative-deepening search under a node budget: the 5×5 shogi engine's move choice.

:func:`search` validates its input, copies the state into a buffer with room for the search
and hands it to :func:`gamelib.algorithms.deepening.deepen` (fail-soft PVS with quiescence, see
:mod:`gamelib.algorithms.alphabeta`), which deepens one iteration at a time. The same
position, parameters, budget and seed give the same result on any machine: the node budget,
not the clock, stops the search, and nothing is kept between calls. A :class:`StopSignal` lets another thread end a search early (the USI engine's
``stop`` and time limits); ``on_iteration`` reports each finished iteration.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gamelib.algorithms import deepening
from gamelib.algorithms.alphabeta import thread_workspace
from gamelib.algorithms.deepening import StopSignal, mate_plies
from gamelib.games.minishogi import features as ev
from gamelib.games.minishogi import core as mc
from gamelib.games.minishogi.notation import format_usi

from . import core as sc
from .state import as_search_state, check_eval_args

__all__ = ["SearchResult", "StopSignal", "search", "DEFAULT_TT_BITS", "mate_plies", "principal_leaf"]

#: Default transposition table: 2**16 entries (1.5 MB).
DEFAULT_TT_BITS = 16


class SearchResult(deepening.SearchResult):
    """Result of :func:`search`: :class:`gamelib.algorithms.deepening.SearchResult` (``move``
    an engine integer move, scores in the evaluation's units, a pawn = 0.02) with the moves in
    USI notation."""

    @property
    def usi(self) -> str | None:
        """The move in USI notation, None if there is none."""
        return None if self.move < 0 else format_usi(self.move)

    @property
    def pv_usi(self) -> list[str]:
        """The PV in USI notation."""
        return [format_usi(int(m)) for m in self.pv]


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
    s : int64 state array or :class:`gamelib.games.minishogi.Position`
        The position with its game history (used for repetitions; not modified).
    theta : float64 array of length ``N_FEATURES``
        The evaluation's parameters.
    kind : int
        ``EVAL_MATERIAL`` or ``EVAL_LINEAR`` (:mod:`gamelib.games.minishogi.features`).
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
    max_depth, node_budget, qdepth, max_plies, tt_bits, seed64, noise_std = deepening.check_settings(
        max_depth, node_budget, qdepth, max_plies, tt_bits, seed, noise_std)
    theta, kind = check_eval_args(theta, kind)
    if kind == ev.EVAL_LINEAR:   # θ with its pair table (a faster evaluation, the same values)
        theta = ev.prepare(theta)
    st = as_search_state(s, sc.MAX_PLY + 2)
    ws = thread_workspace(sc.GAME, tt_bits) if workspace is None else deepening.check_workspace(sc.GAME, workspace)
    return deepening.deepen(sc.GAME, st, theta, kind, max_depth, node_budget, qdepth, noise_std, seed64,
                            max_plies, use_tt, killers, history, ws, stop, on_iteration, SearchResult)


def principal_leaf(s, result: SearchResult) -> np.ndarray:
    """The state at the end of ``result.pv`` played from ``s`` (a copy; ``s`` is not modified)."""
    st = as_search_state(s, len(result.pv) + 1)
    for m in result.pv:
        mc.make_move(st, int(m))
    return st

"""The 5×5 shogi search kernels: :mod:`gamelib.algorithms.alphabeta` compiled for the game
``minishogi`` of :mod:`gamelib.games.registry` (fail-soft PVS with quiescence and the principal
leaf, transposition table, killers and history, evaluation cache, noise, repetition rules; the
algorithm notes are in that module's docstring).

Every kernel here is that module's generic function specialised for 5×5 shogi
(:func:`gamelib.games.specialize.specialize`: direct calls of the game's kernels, cached on
disk); the constants, the control block's layout and the noise are that module's. The Python
front ends are :func:`gamelib.search.search` and :func:`gamelib.search.root_leaves`.
:func:`repetition_verdict` is the game's repetition rule with in-search cycles
(:mod:`gamelib.games.minishogi.game`).
"""

from __future__ import annotations

from gamelib.algorithms import alphabeta as _ab
from gamelib.algorithms.alphabeta import (C_ABORT, C_BUDGET, C_EVAL_CACHE, C_EVAL_GEN, C_LEAF,
                                          C_NODES, C_PVLEN, C_REP, C_REP_CLEAN, C_SELDEPTH,
                                          CTL_SIZE, EVAL_CACHE_BITS, INF, LEAF_CAP, LEAF_MATED,
                                          LEAF_REPETITION, LEAF_STATIC, MATE, MATE_BOUND,
                                          MAX_PLY, REP_BITS, REP_MASK, result_score)
from gamelib.algorithms.noise import gauss_noise, mix_seed
from gamelib.games import registry as _registry
from gamelib.games.minishogi.game import in_check, repetition_verdict

__all__ = [
    "MATE", "MATE_BOUND", "INF", "MAX_PLY", "LEAF_STATIC", "LEAF_MATED", "LEAF_REPETITION",
    "LEAF_CAP", "C_ABORT", "C_BUDGET", "C_EVAL_CACHE", "C_EVAL_GEN", "C_LEAF", "C_NODES",
    "C_PVLEN", "C_REP", "C_REP_CLEAN", "C_SELDEPTH", "CTL_SIZE", "EVAL_CACHE_BITS", "REP_BITS",
    "REP_MASK", "GAME", "new_workspace", "setup", "static_eval", "noisy_static",
    "cached_static", "root_prepare", "root_iteration", "search_root_move", "qsearch", "pvs",
    "make", "unmake", "search_repetition", "at_game_cap", "in_check", "init_repetition",
    "release_repetition", "result_score", "end_score", "gauss_noise", "mix_seed",
    "repetition_verdict",
]

#: The game these kernels are compiled for.
GAME = _registry.get("minishogi")
_K = _ab.kernels(GAME)

setup = _K.setup
static_eval = _K.static_eval
noisy_static = _K.noisy_static
cached_static = _K.cached_static
root_prepare = _K.root_prepare
root_iteration = _K.root_iteration
search_root_move = _K.search_root_move
qsearch = _K.qsearch
pvs = _K.pvs
make = _K.make
unmake = _K.unmake
search_repetition = _K.search_repetition
at_game_cap = _K.at_game_cap
init_repetition = _K.init_repetition
release_repetition = _K.release_repetition
end_score = _K.end_score


def new_workspace(tt_bits: int = 16):
    """Arrays for one search at a time: ``(mv, ordk, pv, ctl, tt, tts, ec, ecv)``
    (:func:`gamelib.algorithms.alphabeta.new_workspace` for 5×5 shogi)."""
    return _ab.new_workspace(GAME, tt_bits)

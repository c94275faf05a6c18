"""Negamax αβ (PVS) with quiescence and the principal leaf, written once over the game protocol.

Every function marked :func:`~gamelib.games.specialize.generic` here calls the protocol's
kernels (:mod:`gamelib.games.protocol`); :func:`kernels` compiles them for one game
(:func:`gamelib.games.specialize.specialize`), so that each call is a direct call of the game's
kernel. All are allocation-free (``@kernel``-like: ``_nrt=False``) and work on the game's state
array with make/unmake. The 5×5 shogi front ends are :func:`gamelib.search.search` and
:func:`gamelib.search.root_leaves`; :func:`gamelib.algorithms.deepening.deepen` is the
iterative-deepening loop for any game.

Scores
------
Scores are floats in the evaluation's units (a pawn = 0.02), always from the point of view of
the side to move at the node (negamax). A node whose side to move has no legal move (checkmate
or stalemate, both a loss in shogi; in Othello the game is over) ends the game: its result by the rules (``outcome``) scores
``±(MATE - ply)`` (a win or a loss of the side to move) or 0 (a draw), ``ply`` being its
distance from the root, so a score ``v`` with ``|v| > MATE_BOUND`` is a forced game end in ``MATE - |v|`` plies
(a win if ``v > 0``). A repetition that ends the game (``repetition``) scores the same way; a position that reaches the game-length cap ``max_plies``
scores 0.

The search (eqs. of no paper: the classical algorithms)
-------------------------------------------------------
* **Fail-soft principal variation search**: the first move of a node gets the full window
  ``(α, β)``, the others a null window ``(α, α⁺)`` (``α⁺ = nextafter(α, +∞)``) and a re-search with
  the full window when they land inside ``(α, β)``. Returned values may lie outside the window
  (fail-soft): a fail-high value is a lower bound, a fail-low one an upper bound, a value inside
  the window is exact. With the root window ``(-INF, INF)`` the root value equals the plain
  minimax value of the same tree (tested).
* **Quiescence search** below the full-width horizon: stand pat on the static evaluation, then
  the game's noisy moves (``gen_noisy``: captures in shogi, none in Othello) by ``order_key``
  (MVV-LVA); a side in check may not stand pat and
  searches all its evasions, and is mated if there are none. At most ``qdepth`` plies of
  quiescence; at that limit the static evaluation is returned (in check too, after the mate
  test). Quiescence nodes are not tested for repetition and a quiet side without any legal move
  (stalemate, which practically never happens in minishogi) stands pat there.
* **Principal variation**: a triangular PV table; the last position of the PV is the principal
  leaf. Its static evaluation (or its game-end score) *is* the root score, up to the sign of the
  side to move (tested): PV nodes (full window) never take transposition-table cutoffs, so the PV
  is never cut short, and each PV node records how its line ends (``LEAF_*``).
* **Transposition table** keyed by ``hash_key``: ``tt[i, 0]`` the key,
  ``tt[i, 1]`` ``move_code`` | (depth + 1) << 16 | bound << 24 (0 = empty), ``tts[i]`` the score (mate
  scores stored relative to the node). Always-replace, cleared at the start of every search (so
  results never depend on earlier searches). Cutoffs only at null-window nodes.
* **Move ordering**: the TT move, then noisy moves by ``order_key`` (captures by MVV-LVA,
  promotions), two killer moves per ply, then quiet moves by the history heuristic (a table
  per side to move of ``MOVE_INDEX_SIZE`` rows, ``move_index``) (all switchable for measurement).
* **Repetition** (only in a game with ``HAS_REPETITION``; 5×5 shogi's rules: the 4th occurrence of a position ends the game, a loss for sente unless
  one side gave check with each of its moves since the first occurrence: that side loses, both:
  draw). At a full-width node, a position whose earlier occurrence lies *inside the search*
  (at or after the root) is scored as the game would end if the cycle were repeated to the 4th
  occurrence: the rule's verdict over that cycle (sound under best play: whoever could avoid the
  cycle would already have avoided it). A position whose earlier occurrences are all in the game
  history before the root is scored exactly: a game end only at its 4th occurrence. A key-count
  table ``rep[key & REP_MASK]`` over the game + search path lets almost every node skip the
  history scan. As usual, table entries of such path-dependent scores may be reused on other
  paths (graph-history interaction); PV nodes take no table cutoffs.
* **Evaluation noise**: ``noise_std · z(hash, seed)`` with ``z`` a standard normal drawn by a
  counter-based generator (:mod:`gamelib.algorithms.noise`). It is
  a seeded RNG whose draws depend on the position only, not on the order of the search: every
  occurrence of a position in one search gets the same noise, so the noisy evaluation is a
  consistent function that the TT, the re-searches and the deeper iterations all agree on.
* **Iterative deepening** (:func:`root_prepare`, then :func:`root_iteration` for depth 1, 2,
  ...; the loop is :func:`gamelib.algorithms.deepening.deepen`): the previous iteration's best root move
  first, killers, history and table kept between iterations; a budget that runs out inside an
  iteration keeps the best of its finished root moves.
* **Node budget**: every visited position (full-width and quiescence, the root included) is a
  node; the search stops before visiting node ``budget + 1``.

Workspace
---------
A search uses preallocated arrays (:func:`new_workspace`, a :class:`Workspace`): ``mv`` (int32 move buffers,
``MAX_MOVES`` per ply), ``ordk`` (int64 ordering keys, parallel to ``mv``), ``pv`` (int32
triangular PV table), ``ctl`` (int64 control block: counters, switches, killers, history,
PV lengths, leaf kinds, repetition counts; offsets ``C_*``), ``tt``/``tts`` (the table),
``ec``/``ecv`` (the evaluation cache).

Evaluation cache
----------------
The static evaluations of one search (with their noise) are kept in a direct-mapped table of
``2**EVAL_CACHE_BITS`` entries indexed by the position's hash: ``ec[i]`` holds the whole position
packed into three words (``pack_position``) and the search's
generation, ``ecv[i]`` its value. An entry is used only if the position and the generation are
equal, so a hit returns exactly what the evaluation would (no hash collision can matter), and
:func:`setup` starts a new generation instead of clearing the table: entries of an earlier
search (other parameters, another seed) are never used. A third of the evaluations of an
iterative-deepening search at 5,000 nodes are hits. The cache goes with the transposition table
(``use_tt``, switch ``ctl[C_EVAL_CACHE]``). In the single pass of one root
(:func:`gamelib.algorithms.leaves.root_leaves_into`, no table) only a tenth of the 5×5 shogi
evaluations are hits, which does not pay for the lookups; a learner's consecutive roots of one
game (θ fixed) share one generation (:func:`gamelib.algorithms.leaves.root_scores_into` with
``EVAL_CACHE_KEEP``), and a sixth of the evaluations of its 1-ply + 4-ply quiescence passes are
hits.
"""

from __future__ import annotations

import sys
import threading
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np
from numba import njit

from gamelib.games.protocol import (DRAW, HAS_REPETITION, MAX_MOVES, WIN, Game, evaluate_kind,
                                    game_ply, gen_moves, gen_noisy, has_moves, hash_key,
                                    history_key, in_check, is_quiet, make_move, move_code,
                                    move_index, order_key, outcome, pack_position, plies_made,
                                    repetition, side_to_move, unmake_move)
from gamelib.games.protocol import ONGOING
from gamelib.games.specialize import generic, specialize

from .noise import gauss_noise, mix_seed

__all__ = [
    "MATE",
    "MATE_BOUND",
    "INF",
    "MAX_PLY",
    "LEAF_STATIC",
    "LEAF_MATED",
    "LEAF_REPETITION",
    "LEAF_CAP",
    "kernels",
    "Workspace",
    "new_workspace",
    "thread_workspace",
]

#: Score of a game won at the root; a game ended ``p`` plies from the root is ``±(MATE - p)``.
MATE = 1000.0
#: Maximum search ply (full width + quiescence) from the root.
MAX_PLY = 128
#: Scores beyond ±MATE_BOUND are forced game ends (mates, lost repetitions).
MATE_BOUND = MATE - MAX_PLY
#: The root window bound (finite, so that a null window above it exists).
INF = 1.0e6

#: How the principal variation ends.
LEAF_STATIC = 0  # static evaluation (quiescence stand pat, or the quiescence depth limit)
LEAF_MATED = 1  # the side to move at the leaf has no legal move: the game ended (shogi: it lost)
LEAF_REPETITION = 2  # the repetition rule ends the game (or the in-search cycle, see above)
LEAF_CAP = 3  # the game-length cap: a draw

# ---------------------------------------------------------------- control block layout
C_NODES = 0
C_BUDGET = 1
C_ABORT = 2
C_ROOT_PLY = 3
C_QDEPTH = 4
C_KIND = 5
C_USE_TT = 6
C_USE_KILLERS = 7
C_USE_HISTORY = 8
C_SEED = 9
C_MAX_PLIES = 10
C_SELDEPTH = 11
C_EVAL_CACHE = 12  # 1: the static evaluations go through the evaluation cache
C_KILLERS = 16
C_HISTORY = C_KILLERS + 2 * (MAX_PLY + 1)
#: The history rows of one side (a game's MOVE_INDEX_SIZE is at most this).
HISTORY_ROWS = 1024
HISTORY_SIZE = 2 * HISTORY_ROWS
C_PVLEN = C_HISTORY + HISTORY_SIZE
C_LEAF = C_PVLEN + MAX_PLY + 2
REP_BITS = 12
REP_MASK = (1 << REP_BITS) - 1
C_REP = C_LEAF + MAX_PLY + 2
C_EVAL_GEN = C_REP + (1 << REP_BITS)  # the evaluation cache's generation (setup counts up)
C_REP_CLEAN = C_EVAL_GEN + 1  # 1: the key-count table is all zeros (release_repetition)
CTL_SIZE = C_REP_CLEAN + 1
#: The evaluation cache has ``2**EVAL_CACHE_BITS`` entries (32 bytes each).
EVAL_CACHE_BITS = 12
_EVAL_CACHE_MASK = (1 << EVAL_CACHE_BITS) - 1

# TT entry fields (tt[i, 1])
_BOUND_EXACT = 1
_BOUND_LOWER = 2
_BOUND_UPPER = 3

# Recursive calls must pass exactly the argument types of the compiled signature: numba's
# on-disk cache of a recursive function that was called with other (e.g. literal) types
# crashes when it is loaded (numba issue 6713). Hence int64 flags and typed constants.
_PV = np.int64(1)
_NON_PV = np.int64(0)
_ONE = np.int64(1)

# ordering keys above the game's history values (< 2**30 after halving) and below its noisy
# moves' (order_key >= 2**35)
_KEY_TT = 1 << 40
_KEY_KILLER1 = (1 << 34) + 1
_KEY_KILLER2 = 1 << 34
_HISTORY_MAX = 1 << 30


class Workspace(NamedTuple):
    """The arrays of one search at a time, by name (see the module's text; the kernels unpack
    them: ``mv, ordk, pv, ctl, tt, tts, ec, ecv = ws``)."""

    mv: np.ndarray     #: int32 move buffers, ``MAX_MOVES`` per ply
    ordk: np.ndarray   #: int64 ordering keys, parallel to ``mv``
    pv: np.ndarray     #: int32 triangular principal-variation table
    ctl: np.ndarray    #: int64 control block (offsets ``C_*``)
    tt: np.ndarray     #: the transposition table's keys and packed entries
    tts: np.ndarray    #: its scores
    ec: np.ndarray     #: the evaluation cache's packed positions and generations
    ecv: np.ndarray    #: its values


def new_workspace(game: Game, tt_bits: int = 16) -> Workspace:
    """Arrays for one search of ``game`` at a time (a :class:`Workspace`).

    ``tt_bits`` sets the transposition table to ``2**tt_bits`` entries (24 bytes each); 0 gives
    a one-entry table (use ``use_tt=False`` to switch it off).
    """
    size = 1 << int(tt_bits)
    mv = np.zeros((MAX_PLY + 2) * game.MAX_MOVES, dtype=np.int32)
    ordk = np.zeros((MAX_PLY + 2) * game.MAX_MOVES, dtype=np.int64)
    pv = np.zeros((MAX_PLY + 2, MAX_PLY + 2), dtype=np.int32)
    ctl = np.zeros(CTL_SIZE, dtype=np.int64)
    tt = np.zeros((size, 2), dtype=np.int64)
    tts = np.zeros(size, dtype=np.float64)
    ec = np.zeros((1 << EVAL_CACHE_BITS, 3), dtype=np.int64)
    ecv = np.zeros(1 << EVAL_CACHE_BITS, dtype=np.float64)
    return Workspace(mv, ordk, pv, ctl, tt, tts, ec, ecv)


_LOCAL = threading.local()


def thread_workspace(game: Game, tt_bits: int = 16):
    """This thread's :func:`new_workspace` for ``game`` with a ``2**tt_bits``-entry table, made on
    first use and kept (one search at a time per thread)."""
    cache = getattr(_LOCAL, "workspaces", None)
    if cache is None:
        cache = _LOCAL.workspaces = {}
    key = (game.name, int(tt_bits))
    if key not in cache:
        cache[key] = new_workspace(game, tt_bits)
    return cache[key]


def kernels(game: Game) -> SimpleNamespace:
    """This module's generic functions compiled for ``game`` (once per process)."""
    if max(game.MOVE_INDEX_SIZE, 1) > HISTORY_ROWS:
        raise ValueError(f"game {game.name!r}: MOVE_INDEX_SIZE above {HISTORY_ROWS}")
    return specialize(game, sys.modules[__name__])


# ---------------------------------------------------------------- static evaluation
@generic(_nrt=False, inline="always")
def noisy_static(s, theta, ctl, noise_std):
    """The static evaluation of kind ``ctl[C_KIND]`` plus ``noise_std · z(key, seed)``."""
    v = evaluate_kind(s, theta, ctl[C_KIND])
    if noise_std > 0.0:
        v += noise_std * gauss_noise(hash_key(s), ctl[C_SEED])
    return v


@generic(_nrt=False, inline="always")
def cached_static(s, theta, ctl, ec, ecv, noise_std):
    """:func:`noisy_static` through the evaluation cache if ``ctl[C_EVAL_CACHE]`` is set (see the
    module doc)."""
    if ctl[C_EVAL_CACHE] == 0:
        return noisy_static(s, theta, ctl, noise_std)
    a, b, c = pack_position(s, ctl[C_EVAL_GEN])
    i = hash_key(s) & _EVAL_CACHE_MASK
    if ec[i, 0] == a and ec[i, 1] == b and ec[i, 2] == c:
        return ecv[i]
    v = noisy_static(s, theta, ctl, noise_std)
    ec[i, 0] = a
    ec[i, 1] = b
    ec[i, 2] = c
    ecv[i] = v
    return v


@generic(_nrt=False)
def static_eval(s, theta, ctl, noise_std):
    """The static evaluation the search uses (with its noise) of the current position."""
    return noisy_static(s, theta, ctl, noise_std)


# ---------------------------------------------------------------- game ends
@njit(cache=True, inline="always")
def result_score(result, ply):
    """The score of a game ended ``ply`` plies from the root with ``result`` (WIN, DRAW, LOSS
    for the side to move there)."""
    if result == DRAW:
        return 0.0
    return (MATE - ply) if result == WIN else -(MATE - ply)


@generic(_nrt=False, inline="always")
def end_score(s, mv, base, ply):
    """The score of a node whose side to move has no legal move: the rules' result."""
    return result_score(outcome(s, mv, base), ply)


@generic(_nrt=False, inline="always")
def search_repetition(s, ctl):
    """The repetition rule at a node of the search: ``ONGOING`` or the result, asked of the
    game's ``repetition`` only when the key-count table has seen the position before. With
    :func:`at_game_cap` and ``in_check``, the end-of-game tests that :func:`pvs` and
    :func:`qsearch` make, in that order, and that a leaf taken without the search (the 5×5
    shogi :func:`gamelib.search.leaves.child_leaves_into`) must make the same way."""
    if HAS_REPETITION == 0:
        return ONGOING
    if ctl[C_REP + (hash_key(s) & REP_MASK)] >= 2:
        return repetition(s, ctl[C_ROOT_PLY])
    return ONGOING


@generic(_nrt=False, inline="always")
def at_game_cap(s, ctl):
    """Whether the game-length cap is reached at this node (a draw unless the side to move has
    no legal move)."""
    return ctl[C_MAX_PLIES] > 0 and game_ply(s) >= ctl[C_MAX_PLIES]


@generic(_nrt=False)
def init_repetition(s, ctl):
    """Fill the key-count table with the positions of the game history up to the root. The
    table is cleared first unless :func:`release_repetition` left it all zeros."""
    if HAS_REPETITION == 0:
        return
    if ctl[C_REP_CLEAN] == 0:
        for k in range(1 << REP_BITS):
            ctl[C_REP + k] = 0
    ctl[C_REP_CLEAN] = 0
    for p in range(plies_made(s) + 1):
        ctl[C_REP + (history_key(s, p) & REP_MASK)] += 1


@generic(_nrt=False)
def release_repetition(s, ctl):
    """Take the game history up to the root (``s`` at the root again) out of the key-count
    table after a search that ended normally, every move it made taken back: the table is all
    zeros again, which spares the next :func:`setup` clearing its 4,096 entries. A search that
    raised never gets here, so the next setup clears the table."""
    if HAS_REPETITION == 0:
        return
    for p in range(plies_made(s) + 1):
        ctl[C_REP + (history_key(s, p) & REP_MASK)] -= 1
    ctl[C_REP_CLEAN] = 1


@generic(_nrt=False, inline="always")
def make(s, ctl, m):
    """``make_move`` and the key-count table."""
    make_move(s, m)
    if HAS_REPETITION != 0:
        ctl[C_REP + (hash_key(s) & REP_MASK)] += 1


@generic(_nrt=False, inline="always")
def unmake(s, ctl):
    """``unmake_move`` and the key-count table."""
    if HAS_REPETITION != 0:
        ctl[C_REP + (hash_key(s) & REP_MASK)] -= 1
    unmake_move(s)


# ---------------------------------------------------------------- move ordering
@generic(_nrt=False)
def _order(s, mv, ordk, base, n, ttm, ply, ctl):
    """Ordering keys (all >= 0) of the moves ``mv[base:base + n]``; returns how many are > 0."""
    side = side_to_move(s)
    k1 = ctl[C_KILLERS + 2 * ply]
    k2 = ctl[C_KILLERS + 2 * ply + 1]
    use_hist = ctl[C_USE_HISTORY] != 0
    positive = 0
    for i in range(base, base + n):
        m = np.int64(mv[i])
        if move_code(m) == ttm:
            ordk[i] = _KEY_TT
            positive += 1
            continue
        key = order_key(s, m)
        if key == 0:
            if m == k1:
                key = _KEY_KILLER1
            elif m == k2:
                key = _KEY_KILLER2
            elif use_hist:
                key = ctl[C_HISTORY + side * HISTORY_ROWS + move_index(m)]
        ordk[i] = key
        positive += key > 0
    return positive


@njit(cache=True, inline="always")
def _pick(mv, ordk, i, end):
    """Selection sort step: bring the best remaining move to index i."""
    b = i
    bk = ordk[i]
    for j in range(i + 1, end):
        if ordk[j] > bk:
            bk = ordk[j]
            b = j
    if b != i:
        t = mv[i]
        mv[i] = mv[b]
        mv[b] = t
        ordk[b] = ordk[i]
        ordk[i] = bk
    return np.int64(mv[i])


@generic(_nrt=False, inline="always")
def _reward_quiet(s, ctl, m, ply, depth):
    if ctl[C_USE_KILLERS] != 0 and ctl[C_KILLERS + 2 * ply] != m:
        ctl[C_KILLERS + 2 * ply + 1] = ctl[C_KILLERS + 2 * ply]
        ctl[C_KILLERS + 2 * ply] = m
    if ctl[C_USE_HISTORY] != 0:
        i = C_HISTORY + side_to_move(s) * HISTORY_ROWS + move_index(m)
        ctl[i] += depth * depth
        if ctl[i] > _HISTORY_MAX:
            for k in range(C_HISTORY, C_HISTORY + HISTORY_SIZE):
                ctl[k] >>= 1


@njit(cache=True, inline="always")
def _set_pv(pv, ctl, ply, m):
    """PV at ply = m followed by the child's PV; the leaf kind comes with it."""
    pv[ply, 0] = m
    n = ctl[C_PVLEN + ply + 1]
    for k in range(n):
        pv[ply, k + 1] = pv[ply + 1, k]
    ctl[C_PVLEN + ply] = n + 1
    ctl[C_LEAF + ply] = ctl[C_LEAF + ply + 1]


@njit(cache=True, inline="always")
def _leaf(ctl, ply, kind):
    ctl[C_PVLEN + ply] = 0
    ctl[C_LEAF + ply] = kind


# ---------------------------------------------------------------- quiescence
@generic(_nrt=False)
def qsearch(s, theta, mv, ordk, pv, ctl, ec, ecv, noise_std, alpha, beta, ply, qleft):
    """Fail-soft quiescence search; ``qleft`` plies of quiescence left. See the module doc."""
    if ctl[C_NODES] >= ctl[C_BUDGET]:
        ctl[C_ABORT] = 1
        return 0.0
    ctl[C_NODES] += 1
    if ply > ctl[C_SELDEPTH]:
        ctl[C_SELDEPTH] = ply
    _leaf(ctl, ply, LEAF_STATIC)
    base = ply * MAX_MOVES
    if in_check(s):
        if qleft <= 0 or ply >= MAX_PLY:  # only the mate test: does an evasion exist?
            if not has_moves(s, mv, base):
                _leaf(ctl, ply, LEAF_MATED)
                return end_score(s, mv, base, ply)
            return cached_static(s, theta, ctl, ec, ecv, noise_std)
        n = gen_moves(s, mv, base)
        if n == 0:
            _leaf(ctl, ply, LEAF_MATED)
            return end_score(s, mv, base, ply)
        best = -INF - 1.0
    else:
        best = cached_static(s, theta, ctl, ec, ecv, noise_std)
        if qleft <= 0 or ply >= MAX_PLY or best >= beta:
            return best
        if best > alpha:
            alpha = best
        n = gen_noisy(s, mv, base)
    for i in range(base, base + n):
        ordk[i] = order_key(s, np.int64(mv[i]))
    for i in range(base, base + n):
        m = _pick(mv, ordk, i, base + n)
        make_move(s, m)
        v = -qsearch(s, theta, mv, ordk, pv, ctl, ec, ecv, noise_std, -beta, -alpha, ply + 1, qleft - 1)
        unmake_move(s)
        if ctl[C_ABORT] != 0:
            return 0.0
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                _set_pv(pv, ctl, ply, m)
                if v >= beta:
                    break
    return best


# ---------------------------------------------------------------- full width
@generic(_nrt=False)
def pvs(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, noise_std, alpha, beta, depth, ply, pv_node):
    """Fail-soft principal variation search of a non-root node at ``ply`` (>= 1).

    ``pv_node`` (int64 1/0): a full-window node, which takes no table cutoffs and keeps its PV.
    All arguments must keep their types (float64 scores, int64 depths and flags).
    """
    _leaf(ctl, ply, LEAF_STATIC)
    # game end by repetition (in-search cycles: see the module doc)
    r = search_repetition(s, ctl)
    if r != ONGOING:
        if ctl[C_NODES] >= ctl[C_BUDGET]:
            ctl[C_ABORT] = 1
            return 0.0
        ctl[C_NODES] += 1
        _leaf(ctl, ply, LEAF_REPETITION)
        return result_score(r, ply)
    base = ply * MAX_MOVES
    # game-length cap: a draw unless the side to move has no legal move
    if at_game_cap(s, ctl):
        if ctl[C_NODES] >= ctl[C_BUDGET]:
            ctl[C_ABORT] = 1
            return 0.0
        ctl[C_NODES] += 1
        if not has_moves(s, mv, base):
            _leaf(ctl, ply, LEAF_MATED)
            return end_score(s, mv, base, ply)
        _leaf(ctl, ply, LEAF_CAP)
        return 0.0
    if depth <= 0 or ply >= MAX_PLY:
        return qsearch(s, theta, mv, ordk, pv, ctl, ec, ecv, noise_std, alpha, beta, ply, ctl[C_QDEPTH])
    if ctl[C_NODES] >= ctl[C_BUDGET]:
        ctl[C_ABORT] = 1
        return 0.0
    ctl[C_NODES] += 1
    if ply > ctl[C_SELDEPTH]:
        ctl[C_SELDEPTH] = ply
    h = hash_key(s)
    ttm = -1
    use_tt = ctl[C_USE_TT] != 0
    if use_tt:
        slot = h & (tt.shape[0] - 1)
        if tt[slot, 0] == h and tt[slot, 1] != 0:
            data = tt[slot, 1]
            ttm = data & 0xFFFF
            if pv_node == 0 and ((data >> 16) & 255) - 1 >= depth:
                v = tts[slot]
                if v > MATE_BOUND:
                    v -= ply
                elif v < -MATE_BOUND:
                    v += ply
                bound = (data >> 24) & 3
                if bound == _BOUND_EXACT or (bound == _BOUND_LOWER and v >= beta) or (bound == _BOUND_UPPER and v <= alpha):
                    return v
    n = gen_moves(s, mv, base)
    if n == 0:
        _leaf(ctl, ply, LEAF_MATED)
        return end_score(s, mv, base, ply)
    # selection sort, but once the moves with a positive key are picked the others (key 0) come
    # in array order, as _pick would give them (it takes the first of equal keys)
    sorted_end = base + _order(s, mv, ordk, base, n, ttm, ply, ctl)
    alpha0 = alpha
    best = -INF - 1.0
    best_move = np.int64(-1)
    for i in range(base, base + n):
        m = _pick(mv, ordk, i, base + n) if i < sorted_end else np.int64(mv[i])
        make(s, ctl, m)
        if i == base or pv_node == 0:
            v = -pvs(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, noise_std, -beta, -alpha, depth - 1, ply + 1, pv_node)
        else:
            v = -pvs(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, noise_std, -np.nextafter(alpha, INF), -alpha, depth - 1, ply + 1, _NON_PV)
            if v > alpha and v < beta and ctl[C_ABORT] == 0:
                v = -pvs(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, noise_std, -beta, -alpha, depth - 1, ply + 1, _PV)
        unmake(s, ctl)
        if ctl[C_ABORT] != 0:
            return 0.0
        if v > best:
            best = v
            best_move = m
            if v > alpha:
                alpha = v
                if pv_node != 0:
                    _set_pv(pv, ctl, ply, m)
                if v >= beta:
                    if is_quiet(m):
                        _reward_quiet(s, ctl, m, ply, depth)
                    break
    if use_tt:
        if best >= beta:
            bound = _BOUND_LOWER
        elif best > alpha0:
            bound = _BOUND_EXACT
        else:
            bound = _BOUND_UPPER
        v = best
        if v > MATE_BOUND:
            v += ply
        elif v < -MATE_BOUND:
            v -= ply
        slot = h & (tt.shape[0] - 1)
        tt[slot, 0] = h
        tt[slot, 1] = move_code(best_move) | ((depth + 1) << 16) | (bound << 24)
        tts[slot] = v
    return best


@generic(_nrt=False)
def search_root_move(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, noise_std, m, alpha, beta, depth):
    """Value of root move ``m`` (root side's view) searched ``depth`` plies (``m`` is ply 1).

    The line that follows is left in ``pv[1, :ctl[C_PVLEN + 1]]`` with its end kind in
    ``ctl[C_LEAF + 1]``. Returns 0.0 with ``ctl[C_ABORT]`` set if the budget ran out.
    """
    make(s, ctl, m)
    v = -pvs(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, np.float64(noise_std), np.float64(-beta), np.float64(-alpha), np.int64(depth - 1), _ONE, _PV)
    unmake(s, ctl)
    return v


@generic(_nrt=False)
def setup(s, ctl, tt, budget, qdepth, kind, use_tt, use_killers, use_history, seed, max_plies):
    """Reset the control block (counters, switches, killers, history, repetition counts) and TT;
    start a new generation of the evaluation cache, which is on with the table. The history
    table is cleared only for a search that uses it (no other reads it)."""
    for k in range(C_HISTORY):
        ctl[k] = 0
    if use_history:
        for k in range(C_HISTORY, C_PVLEN):
            ctl[k] = 0
    for k in range(C_PVLEN, C_REP):
        ctl[k] = 0
    ctl[C_EVAL_GEN] += 1
    ctl[C_BUDGET] = budget
    ctl[C_ROOT_PLY] = plies_made(s)
    ctl[C_QDEPTH] = qdepth
    ctl[C_KIND] = kind
    ctl[C_USE_TT] = 1 if use_tt else 0
    ctl[C_EVAL_CACHE] = 1 if use_tt else 0
    ctl[C_USE_KILLERS] = 1 if use_killers else 0
    ctl[C_USE_HISTORY] = 1 if use_history else 0
    ctl[C_SEED] = mix_seed(seed)
    ctl[C_MAX_PLIES] = max_plies
    init_repetition(s, ctl)
    if use_tt:
        tt[:, 1] = 0


@generic(_nrt=False)
def root_prepare(s, mv, ordk, ctl, root_moves):
    """Generate and order the root moves into ``root_moves``; count the root as a node.

    Call :func:`setup` first. Returns the number of legal root moves.
    """
    n = gen_moves(s, mv, 0)
    if ctl[C_NODES] < ctl[C_BUDGET]:
        ctl[C_NODES] += 1
    _order(s, mv, ordk, 0, n, -1, 0, ctl)
    for i in range(n):
        root_moves[i] = _pick(mv, ordk, i, n)
    return n


@generic(_nrt=False, nogil=True)
def root_iteration(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, noise_std, depth, root_moves, n, pv_out, info):
    """One iteration of iterative deepening: the root moves in order, ``depth`` plies each.

    The first move gets the full window, the others a null window above the best so far and a
    full-window re-search if they beat it. If the budget runs out (``ctl[C_ABORT]``), the
    finished root moves still count: the best of them is a move proved at least as good as the
    first one, the previous iteration's best. Writes ``info = [best move, PV length, finished
    root moves, leaf kind]`` and the PV into ``pv_out`` (only if a root move finished), moves
    the best move to the front of ``root_moves`` and returns its score. Releases the GIL, so
    another thread may stop the search by setting ``ctl[C_BUDGET] = 0``.
    """
    alpha = -INF
    best = -INF - 1.0
    best_move = np.int64(-1)
    done = 0
    info[2] = 0
    for i in range(n):
        m = np.int64(root_moves[i])
        if i == 0:
            v = search_root_move(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, noise_std, m, alpha, INF, depth)
        else:
            v = search_root_move(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, noise_std, m, alpha, np.nextafter(alpha, INF), depth)
            if v > alpha and ctl[C_ABORT] == 0:
                v = search_root_move(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, noise_std, m, alpha, INF, depth)
        if ctl[C_ABORT] != 0:
            break
        done += 1
        if v > best:
            best = v
            best_move = m
            if v > alpha:
                alpha = v
            pv_out[0] = m
            ln = ctl[C_PVLEN + 1]
            for k in range(ln):
                pv_out[k + 1] = pv[1, k]
            info[0] = m
            info[1] = ln + 1
            info[3] = ctl[C_LEAF + 1]
    info[2] = done
    if done > 0:
        j = 0
        while root_moves[j] != best_move:
            j += 1
        while j > 0:
            root_moves[j] = root_moves[j - 1]
            j -= 1
        root_moves[0] = best_move
    return best

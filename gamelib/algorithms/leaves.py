"""Principal leaves of every root move over the game protocol: ``evl(s, a; θ)`` and
``φ(s̃; s, a)`` of the PGLeaf paper, eq. (5), written once for any game.

For each legal move ``a`` of a root position ``s``, :func:`root_scores_into` searches the
position after ``a`` with the full window (exact value, no pruning across root moves, no
transposition table, no noise) ``depth`` plies full width counting ``a`` as ply 1, then
``qdepth`` plies of quiescence (:func:`gamelib.algorithms.alphabeta.search_root_move`); the
paper's learning setting, "1 ply full width + 4 plies of quiescence", is ``depth=1, qdepth=4``
(``depth=1, qdepth=0``: the position right after ``a``, as REINFORCE and TD(λ) use it). The
scores are from the view of the side to move at ``s``, and the features of a principal leaf
``s̃_k`` **from the same side's view**: ``φ = +φ_eval(s̃)`` if the side to move at ``s̃`` is the
root's, ``-φ_eval(s̃)`` otherwise (the evaluation is zero-sum), so that

.. math:: evl(s, a_k; θ) = θ · φ(s̃_k)   \\qquad \\text{(eq. 5)}

for every leaf that does not end the game; a leaf that ends it (``leaf_kind != LEAF_STATIC``)
has the game-end score of :mod:`gamelib.algorithms.alphabeta` and no features.

The buffers ``out`` (:func:`new_leaves_buffers`) are ``(moves, scores, leaf_kind, leaf_ptr,
leaf_idx, leaf_val, fidx, fval, lines, scratch)``: the features in compressed sparse rows (row
``k`` is ``leaf_idx[leaf_ptr[k]:leaf_ptr[k+1]]``, ``leaf_val[...]``), one position's features,
each move's principal line (``lines[k, 0]`` plies after the move, then the moves) and the
zeroed scratch of the game's ``leaf_features``. The entry points:

* :func:`root_scores_into` -- every move's score, leaf kind and principal line;
  :func:`leaf_features_into` (sorted, the game's ``features``) or
  :func:`leaf_features_unsorted_into` (the game's ``leaf_features``: any order, which is all
  the learners' sums over a leaf's distinct features need) then give one leaf's features;
* :func:`root_leaves_into` -- both for every move;
* :func:`root_best_into` -- the moves within a tolerance of the best with exact scores, the
  others bounded (a window that prunes across root moves): the fixed-depth players' choice;
* :func:`child_scores_into` and :func:`child_leaves_into` -- ``depth=1, qdepth=0`` without the
  search's machinery (the same numbers): TD(λ)'s scores, REINFORCE's scores and features from
  one scan of each leaf.

``eval_cache`` of :func:`root_scores_into` names how the static evaluations use the
workspace's evaluation cache: :data:`EVAL_CACHE_OFF`, :data:`EVAL_CACHE_NEW` (under a new
generation) or :data:`EVAL_CACHE_KEEP` (under the previous call's generation, whose evaluations
are then reused: only for calls with the same θ and evaluation kind since the last
``EVAL_CACHE_NEW`` -- a learner's consecutive moves of one game, θ fixed). The results are the
same whichever is used.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from gamelib.games.protocol import (EVAL_LINEAR, MAX_MOVES, ONGOING, Game,
                                    evaluate_and_features, evaluate_kind, features, gen_moves,
                                    has_moves, in_check, leaf_features, make_move, room,
                                    side_to_move, unmake_move)
from gamelib.games.specialize import generic, specialize

from .alphabeta import (C_EVAL_CACHE, C_EVAL_GEN, C_LEAF, C_PVLEN, INF, LEAF_CAP, LEAF_MATED,
                        LEAF_REPETITION, LEAF_STATIC, MAX_PLY, at_game_cap, end_score, make,
                        release_repetition, result_score, search_repetition, search_root_move,
                        setup, unmake)

__all__ = ["EVAL_CACHE_OFF", "EVAL_CACHE_NEW", "EVAL_CACHE_KEEP", "LeafBuffers", "new_leaves_buffers",
           "kernels", "root_scores_into", "root_best_into", "leaf_features_into", "leaf_features_unsorted_into",
           "root_leaves_into", "child_scores_into", "child_leaves_into"]

#: Every static evaluation of the search is computed.
EVAL_CACHE_OFF = 0
#: The static evaluations go through the evaluation cache, under a new generation.
EVAL_CACHE_NEW = 1
#: ... under the previous call's generation (same θ and kind since the last EVAL_CACHE_NEW).
EVAL_CACHE_KEEP = 2

_NO_BUDGET = np.int64(1) << 62


class LeafBuffers(NamedTuple):
    """The output buffers of the root searches (:func:`root_leaves_into` and its variants), by
    name, sized for any position of a game (:func:`new_leaves_buffers`)."""

    moves: np.ndarray      #: int32, the legal moves
    scores: np.ndarray     #: float64, each move's score, evl(s, a) (eq. 5)
    leaf_kind: np.ndarray  #: int8, how each move's principal line ends (``LEAF_*``)
    leaf_ptr: np.ndarray   #: int64, each move's leaf features as CSR rows: the row starts
    leaf_idx: np.ndarray   #: int32, their feature indices
    leaf_val: np.ndarray   #: float64, their values
    fidx: np.ndarray       #: int32, one position's features (scratch)
    fval: np.ndarray       #: float64, their values (scratch)
    lines: np.ndarray      #: int32, each move's principal line
    scratch: np.ndarray    #: int32, the game's ``leaf_features`` scratch


def new_leaves_buffers(game: Game) -> LeafBuffers:
    """The :class:`LeafBuffers` of ``game``'s root searches, sized for any position
    (``MAX_MOVES`` moves)."""
    n = game.MAX_MOVES
    return LeafBuffers(
        np.zeros(n, dtype=np.int32),
        np.zeros(n, dtype=np.float64),
        np.zeros(n, dtype=np.int8),
        np.zeros(n + 1, dtype=np.int64),
        np.zeros(n * game.MAX_ACTIVE, dtype=np.int32),
        np.zeros(n * game.MAX_ACTIVE, dtype=np.float64),
        np.zeros(game.MAX_ACTIVE, dtype=np.int32),
        np.zeros(game.MAX_ACTIVE, dtype=np.float64),
        np.zeros((n, MAX_PLY + 1), dtype=np.int32),
        np.zeros(game.N_FEATURES, dtype=np.int32),
    )


def kernels(game: Game) -> SimpleNamespace:
    """This module's generic functions compiled for ``game`` (once per process)."""
    return specialize(game, sys.modules[__name__])


@generic(inline="always")
def _check_root_search(s, depth, qdepth):
    """``ValueError`` unless a root search of ``depth`` full-width and ``qdepth`` quiescence
    plies fits the search's plies and the state's history."""
    if depth < 1 or qdepth < 0 or depth + qdepth >= MAX_PLY:
        raise ValueError("a root search needs depth >= 1, qdepth >= 0 and depth + qdepth < MAX_PLY")
    if room(s) < depth + qdepth + 1:
        raise ValueError("a root search: the state's history is too short for the search")


@generic
def root_scores_into(s, theta, kind, depth, qdepth, max_plies, ws, out, eval_cache=EVAL_CACHE_OFF):
    """:func:`root_leaves_into` without the features: fills ``moves[:n]``, ``scores[:n]``,
    ``leaf_kind[:n]`` and each move's principal line, returns ``n``; ``eval_cache`` is
    :data:`EVAL_CACHE_OFF`, :data:`EVAL_CACHE_NEW` or :data:`EVAL_CACHE_KEEP` (module doc)."""
    mv, ordk, pv, ctl, tt, tts, ec, ecv = ws
    moves, scores, leaf_kind, lines = out.moves, out.scores, out.leaf_kind, out.lines
    # the recursive search must always see the same array types (C-contiguous): numba's
    # cache of a recursive function compiled for two signatures crashes when loaded
    s = np.ascontiguousarray(s)
    theta = np.ascontiguousarray(theta)
    _check_root_search(s, depth, qdepth)
    gen = ctl[C_EVAL_GEN]
    # killers and history order the moves of full-width nodes below ply 1: none at depth 1
    setup(s, ctl, tt, _NO_BUDGET, qdepth, kind, False, depth > 1, depth > 1, 0, max_plies)
    if eval_cache != EVAL_CACHE_OFF:
        ctl[C_EVAL_CACHE] = 1
        if eval_cache == EVAL_CACHE_KEEP:
            ctl[C_EVAL_GEN] = gen
    n = gen_moves(s, mv, 0)
    for k in range(n):
        moves[k] = mv[k]
    for k in range(n):
        m = np.int64(moves[k])
        scores[k] = search_root_move(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, 0.0, m, -INF, INF, depth)
        leaf_kind[k] = ctl[C_LEAF + 1]
        plen = ctl[C_PVLEN + 1]
        lines[k, 0] = plen
        for j in range(plen):
            lines[k, j + 1] = pv[1, j]
    release_repetition(s, ctl)
    return n


@generic
def root_best_into(s, theta, kind, depth, qdepth, max_plies, ws, out, tol):
    """The best root moves with exact scores, the others bounded: fills ``moves[:n]`` and
    ``scores[:n]`` (the game's ``gen_moves`` order), returns ``n``.

    Each root move is searched as by :func:`root_scores_into` (``depth`` plies full width
    counting the move, ``qdepth`` of quiescence, no transposition table, no noise), but with the
    window :math:`(b - tol, \\infty)`, ``b`` the best score so far: a move within ``tol`` of
    the best gets its exact score, a worse one only an upper bound ``<= b - tol``. So after the
    loop the moves with ``scores[k] > max(scores) - tol`` are exactly those whose value is within
    ``tol`` of the best (a bound of a worse move is at most the best at its time minus ``tol``),
    at the cost of a search that prunes across root moves as the old fixed-depth players' did.
    """
    mv, ordk, pv, ctl, tt, tts, ec, ecv = ws
    moves, scores = out.moves, out.scores
    s = np.ascontiguousarray(s)
    theta = np.ascontiguousarray(theta)
    _check_root_search(s, depth, qdepth)
    setup(s, ctl, tt, _NO_BUDGET, qdepth, kind, False, depth > 1, depth > 1, 0, max_plies)
    n = gen_moves(s, mv, 0)
    for k in range(n):
        moves[k] = mv[k]
    best = -INF - 1.0
    for k in range(n):
        m = np.int64(moves[k])
        alpha = best - tol if k > 0 else -INF
        scores[k] = search_root_move(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, 0.0, m, alpha, INF, depth)
        if scores[k] > best:
            best = scores[k]
    release_repetition(s, ctl)
    return n


@generic(inline="always")
def _to_leaf(s, k, out):
    """Play root move ``k`` and its principal line; returns the number of moves played."""
    moves, lines = out.moves, out.lines
    plen = lines[k, 0]
    make_move(s, np.int64(moves[k]))
    for j in range(plen):
        make_move(s, np.int64(lines[k, j + 1]))
    return plen + 1


@generic(inline="always")
def _back_to_root(s, plies, nf, sign, fidx, fval, idx, val, start):
    """Take back ``plies`` moves; copy ``nf`` features times ``sign`` to ``idx/val[start:]``."""
    for j in range(plies):
        unmake_move(s)
    for j in range(nf):
        idx[start + j] = fidx[j]
        val[start + j] = sign * fval[j]
    return nf


@generic
def leaf_features_into(s, k, out, idx, val, start):
    """Write the features of root move ``k``'s principal leaf, from the root side to move's view,
    into ``idx[start:]``/``val[start:]`` (sorted as the game's ``features``) after
    :func:`root_scores_into` filled ``out``; returns their number (0 for a leaf that ends the
    game). ``s`` (the root) is restored."""
    if out.leaf_kind[k] != LEAF_STATIC:
        return 0
    root_side = side_to_move(s)
    plies = _to_leaf(s, k, out)
    nf = features(s, out.fidx, out.fval)
    sign = 1.0 if side_to_move(s) == root_side else -1.0
    return _back_to_root(s, plies, nf, sign, out.fidx, out.fval, idx, val, start)


@generic(_nrt=False)
def leaf_features_unsorted_into(s, k, out, idx, val, start):
    """:func:`leaf_features_into` with the entries of the game's ``leaf_features`` (any order):
    the learners' sums over a leaf's features do not depend on the order of its distinct
    indices."""
    if out.leaf_kind[k] != LEAF_STATIC:
        return 0
    root_side = side_to_move(s)
    plies = _to_leaf(s, k, out)
    nf = leaf_features(s, out.fidx, out.fval, out.scratch)
    sign = 1.0 if side_to_move(s) == root_side else -1.0
    return _back_to_root(s, plies, nf, sign, out.fidx, out.fval, idx, val, start)


@generic
def root_leaves_into(s, theta, kind, depth, qdepth, max_plies, ws, out):
    """Every root move's score, leaf kind, principal line and leaf features: fills the buffers
    ``out`` (module doc) and returns the number of moves.

    ``s`` is the root state (restored on return; :func:`room` for ``depth + qdepth + 1``
    plies), ``theta`` the evaluation's parameters, ``kind`` the evaluation kind, ``depth`` and
    ``qdepth`` the full-width plies (the move itself is ply 1) and the quiescence plies,
    ``max_plies`` the game-length cap (0 for none) and ``ws`` a workspace of
    :func:`gamelib.algorithms.alphabeta.new_workspace`.
    """
    leaf_ptr, leaf_idx, leaf_val = out.leaf_ptr, out.leaf_idx, out.leaf_val
    s = np.ascontiguousarray(s)
    n = root_scores_into(s, theta, kind, depth, qdepth, max_plies, ws, out, EVAL_CACHE_OFF)
    leaf_ptr[0] = 0
    nnz = 0
    for k in range(n):
        nnz += leaf_features_into(s, k, out, leaf_idx, leaf_val, nnz)
        leaf_ptr[k + 1] = nnz
    return n


@generic(inline="always")
def _child_end(s, mv, ctl):
    """How the search ``depth=1, qdepth=0`` of a root move ends at the position after the move
    (ply 1), as :func:`gamelib.algorithms.alphabeta.pvs` and ``qsearch`` end there, short of
    the static evaluation: ``(value for the side to move at the child, leaf kind)``, kind
    ``LEAF_STATIC`` (value 0.0) if the child is to be evaluated. The checks are the search's
    own (``search_repetition``, ``at_game_cap``, ``in_check``) in its order."""
    base = MAX_MOVES
    r = search_repetition(s, ctl)
    if r != ONGOING:
        return result_score(r, 1), LEAF_REPETITION
    if at_game_cap(s, ctl):
        if not has_moves(s, mv, base):
            return end_score(s, mv, base, 1), LEAF_MATED
        return 0.0, LEAF_CAP
    if in_check(s) and not has_moves(s, mv, base):
        return end_score(s, mv, base, 1), LEAF_MATED
    return 0.0, LEAF_STATIC


@generic(_nrt=False)
def _child_leaf(s, theta, mv, ctl, idx, val, start, scratch):
    """The leaf of a root move searched ``depth=1, qdepth=0`` (:func:`_child_end`): ``(value for
    the side to move at the child, leaf kind, number of features written to idx/val[start:])``;
    a static leaf is evaluated and its features taken in one scan."""
    v, end = _child_end(s, mv, ctl)
    if end != LEAF_STATIC:
        return v, end, 0
    nf, v = evaluate_and_features(s, theta, idx[start:], val[start:], scratch)
    return v, LEAF_STATIC, nf


@generic(_nrt=False)
def child_scores_into(s, theta, kind, max_plies, ws, out):
    """:func:`root_scores_into` with ``depth=1, qdepth=0`` and no evaluation cache, without the
    search's machinery (a root move's search ends at the child: :func:`_child_end`, else its
    static evaluation ``evaluate_kind``): fills ``moves[:n]``, ``scores[:n]``,
    ``leaf_kind[:n]`` and ``lines[:n, 0] = 0``, exactly as that call does, and returns ``n``
    (TD(λ)'s self-play: every leaf's value, one leaf's features)."""
    mv, ordk, pv, ctl, tt, tts, ec, ecv = ws
    moves, scores, leaf_kind, lines = out.moves, out.scores, out.leaf_kind, out.lines
    if room(s) < 2:
        raise ValueError("child_scores_into: the state's history is too short for the search")
    setup(s, ctl, tt, _NO_BUDGET, 0, kind, False, False, False, 0, max_plies)
    n = gen_moves(s, mv, 0)
    for k in range(n):
        m = mv[k]
        moves[k] = m
        make(s, ctl, np.int64(m))
        v, end = _child_end(s, mv, ctl)
        if end == LEAF_STATIC:
            v = evaluate_kind(s, theta, kind)
        unmake(s, ctl)
        scores[k] = -v
        leaf_kind[k] = end
        lines[k, 0] = 0
    release_repetition(s, ctl)
    return n


@generic(_nrt=False)
def child_leaves_into(s, theta, max_plies, ws, out):
    """:func:`root_scores_into` with ``depth=1, qdepth=0`` (the linear evaluation, no evaluation
    cache) and :func:`leaf_features_unsorted_into` of every root move at once: fills
    ``moves[:n]``, ``scores[:n]``, ``leaf_kind[:n]``, ``lines[:n, 0] = 0`` and the features in
    CSR rows ``leaf_ptr``/``leaf_idx``/``leaf_val`` (the root side's view: the child's features
    negated); returns ``n``. The scores, kinds and features are exactly those of the two calls;
    each leaf is scanned once instead of twice (REINFORCE's self-play, which needs every leaf's
    value and features)."""
    mv, ordk, pv, ctl, tt, tts, ec, ecv = ws
    moves, scores, leaf_kind, lines, scratch = out.moves, out.scores, out.leaf_kind, out.lines, out.scratch
    ptr, idx, val = out.leaf_ptr, out.leaf_idx, out.leaf_val
    if room(s) < 2:
        raise ValueError("child_leaves_into: the state's history is too short for the search")
    setup(s, ctl, tt, _NO_BUDGET, 0, EVAL_LINEAR, False, False, False, 0, max_plies)
    n = gen_moves(s, mv, 0)
    ptr[0] = 0
    for k in range(n):
        m = mv[k]
        moves[k] = m
        make(s, ctl, np.int64(m))
        v, end, nf = _child_leaf(s, theta, mv, ctl, idx, val, ptr[k], scratch)
        unmake(s, ctl)
        scores[k] = -v
        leaf_kind[k] = end
        lines[k, 0] = 0
        for j in range(ptr[k], ptr[k] + nf):
            val[j] = -val[j]
        ptr[k + 1] = ptr[k] + nf
    release_repetition(s, ctl)
    return n

"""Principal leaves of every root move: ``evl(s, a; θ)`` and ``φ(s̃; s, a)`` of the PGLeaf paper, eq. (5).

For each legal move ``a`` of a root position ``s``, :func:`root_leaves` searches the position
after ``a`` with the full window (exact value, no pruning across root moves, no transposition
table, no noise) ``depth`` plies full width counting ``a`` as ply 1, then ``qdepth`` plies of
quiescence; the paper's learning setting, "1 ply full width + 4 plies of quiescence", is
``depth=1, qdepth=4`` (``depth=1, qdepth=0``: the position right after ``a``, as REINFORCE and
TD(λ) use it). It returns

* ``scores[k] = evl(s, a_k; θ)``, from the point of view of the side to move at ``s``, and
* the sparse features ``φ(s̃_k)`` of the principal leaf ``s̃_k`` **from the same side's point of
  view**: ``φ = +φ_eval(s̃)`` if the side to move at ``s̃`` is the root's, ``-φ_eval(s̃)`` otherwise
  (``θ·φ_eval(s̃)`` is the value for the side to move at ``s̃``, and a zero-sum value for the
  other side is its negation -- the tempo feature included, which then counts -1), so that

  .. math:: evl(s, a_k; θ) = θ · φ(s̃_k)   \\qquad \\text{(eq. 5, tested to 1e-12)}

  for every non-terminal leaf. A leaf where the game ends (a mate or stalemate, the repetition
  rule, the game-length cap) has ``leaf_kind != LEAF_STATIC``, no features, and the constant
  game-end score of :mod:`gamelib.search.core` (``±(MATE - plies)``, or 0 for a draw); its
  gradient is zero.

The features are in compressed sparse rows: row ``k`` is
``leaf_idx[leaf_ptr[k]:leaf_ptr[k+1]]``, ``leaf_val[...]``. :func:`root_leaves_into` is the same
in nopython code for the learners' loops (buffers from :func:`new_leaves_buffers`);
:func:`root_scores_into` and :func:`leaf_features_into` split it for learners that need the
features of one leaf only (the TD learners: the chosen move's); :func:`leaf_features_unsorted_into`
gives the same entries in the order of the feature scan, which is all the learners' sums over a
leaf's features need (no sort).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from gamelib.evaluation.shogi import (EVAL_LINEAR, MAX_ACTIVE, N_FEATURES,
                                      evaluate_and_features_unsorted, evaluate_kind, features,
                                      features_unsorted)
from gamelib.games.protocol import ONGOING
from gamelib.minishogi import core as mc
from gamelib.runtime.kernels import kernel

from . import core as sc
from .state import as_search_state, check_eval_args, thread_workspace

__all__ = ["RootLeaves", "root_leaves", "root_leaves_into", "root_scores_into", "leaf_features_into",
           "leaf_features_unsorted_into", "child_leaves_into", "child_scores_into", "new_leaves_buffers"]

_NO_BUDGET = np.int64(1) << 62


def new_leaves_buffers():
    """Output buffers of :func:`root_leaves_into`: ``(moves, scores, leaf_kind, leaf_ptr,
    leaf_idx, leaf_val, fidx, fval, lines, pos)`` sized for any position (``MAX_MOVES``
    moves); ``pos`` is the zeroed scratch of :func:`leaf_features_unsorted_into`."""
    n = mc.MAX_MOVES
    return (
        np.zeros(n, dtype=np.int32),
        np.zeros(n, dtype=np.float64),
        np.zeros(n, dtype=np.int8),
        np.zeros(n + 1, dtype=np.int64),
        np.zeros(n * MAX_ACTIVE, dtype=np.int32),
        np.zeros(n * MAX_ACTIVE, dtype=np.float64),
        np.zeros(MAX_ACTIVE, dtype=np.int32),
        np.zeros(MAX_ACTIVE, dtype=np.float64),
        np.zeros((n, sc.MAX_PLY + 1), dtype=np.int32),
        np.zeros(N_FEATURES, dtype=np.int32),
    )


@njit(cache=True)
def root_scores_into(s, theta, kind, depth, qdepth, max_plies, ws, out, eval_cache=0):
    """:func:`root_leaves_into` without the features: fills ``moves[:n]``, ``scores[:n]``,
    ``leaf_kind[:n]`` and each move's principal line (``lines[k, 0]`` plies after the move,
    then the moves), returns ``n``; :func:`leaf_features_into` then gives the features of the
    leaves one needs (a TD learner: only the chosen move's). Same arguments as
    :func:`root_leaves_into`; the scores and lines are exactly its.

    ``eval_cache``: 0 evaluates every leaf; 1 keeps the static evaluations in the workspace's
    evaluation cache (:mod:`gamelib.search.core`) under a new generation; 2 under the generation
    of the previous call, whose evaluations are then reused -- only for a call with the same
    ``theta`` and ``kind`` as every call since the last ``eval_cache=1`` (a learner's
    consecutive moves of one game, θ fixed). Either way the results are the same."""
    mv, ordk, pv, ctl, tt, tts, ec, ecv = ws
    moves, scores, leaf_kind, lines = out[0], out[1], out[2], out[8]
    # the recursive search must always see the same array types (C-contiguous): numba's
    # cache of a recursive function compiled for two signatures crashes when loaded
    s = np.ascontiguousarray(s)
    theta = np.ascontiguousarray(theta)
    if depth < 1 or qdepth < 0 or depth + qdepth >= sc.MAX_PLY:
        raise ValueError("root_leaves_into: need depth >= 1, qdepth >= 0 and depth + qdepth < MAX_PLY")
    if s.shape[0] < mc.HIST + mc.HIST_STRIDE * (s[mc.PLY] + depth + qdepth + 2):
        raise ValueError("root_leaves_into: the state's history is too short for the search")
    gen = ctl[sc.C_EVAL_GEN]
    # killers and history order the moves of full-width nodes below ply 1: none at depth 1
    sc.setup(s, ctl, tt, _NO_BUDGET, qdepth, kind, False, depth > 1, depth > 1, 0, max_plies)
    if eval_cache != 0:
        ctl[sc.C_EVAL_CACHE] = 1
        if eval_cache == 2:
            ctl[sc.C_EVAL_GEN] = gen
    n = mc.gen_moves(s, mv, 0, False)
    for k in range(n):
        moves[k] = mv[k]
    for k in range(n):
        m = np.int64(moves[k])
        scores[k] = sc.search_root_move(s, theta, mv, ordk, pv, ctl, tt, tts, ec, ecv, 0.0, m, -sc.INF, sc.INF, depth)
        leaf_kind[k] = ctl[sc.C_LEAF + 1]
        plen = ctl[sc.C_PVLEN + 1]
        lines[k, 0] = plen
        for j in range(plen):
            lines[k, j + 1] = pv[1, j]
    sc.release_repetition(s, ctl)
    return n


@njit(cache=True, inline="always")
def _to_leaf(s, k, out):
    """Play root move ``k`` and its principal line; returns the number of moves played."""
    moves, lines = out[0], out[8]
    plen = lines[k, 0]
    mc.make_move(s, np.int64(moves[k]))
    for j in range(plen):
        mc.make_move(s, np.int64(lines[k, j + 1]))
    return plen + 1


@njit(cache=True, inline="always")
def _back_to_root(s, plies, nf, sign, fidx, fval, idx, val, start):
    """Take back ``plies`` moves; copy ``nf`` features times ``sign`` to ``idx/val[start:]``."""
    for j in range(plies):
        mc.unmake_move(s)
    for j in range(nf):
        idx[start + j] = fidx[j]
        val[start + j] = sign * fval[j]
    return nf


@njit(cache=True)
def leaf_features_into(s, k, out, idx, val, start):
    """Write the features of root move ``k``'s principal leaf, from the root side to move's view,
    into ``idx[start:]``/``val[start:]`` after :func:`root_scores_into` filled ``out``; returns
    their number (0 for a leaf that ends the game). ``s`` (the root) is restored."""
    if out[2][k] != sc.LEAF_STATIC:
        return 0
    root_side = s[mc.STM]
    plies = _to_leaf(s, k, out)
    nf = features(s, out[6], out[7])
    sign = 1.0 if s[mc.STM] == root_side else -1.0
    return _back_to_root(s, plies, nf, sign, out[6], out[7], idx, val, start)


@kernel
def leaf_features_unsorted_into(s, k, out, idx, val, start):
    """:func:`leaf_features_into` with the entries in the feature scan's order instead of sorted
    by index (:func:`gamelib.evaluation.shogi.features_unsorted`): the learners' sums over a
    leaf's features do not depend on the order of its distinct indices."""
    if out[2][k] != sc.LEAF_STATIC:
        return 0
    root_side = s[mc.STM]
    plies = _to_leaf(s, k, out)
    nf = features_unsorted(s, out[6], out[7], out[9])
    sign = 1.0 if s[mc.STM] == root_side else -1.0
    return _back_to_root(s, plies, nf, sign, out[6], out[7], idx, val, start)


@njit(cache=True)
def root_leaves_into(s, theta, kind, depth, qdepth, max_plies, ws, out):
    """Nopython :func:`root_leaves`: fills the buffers ``out`` and returns the number of moves.

    Parameters
    ----------
    s : int64 array
        The root state; restored on return. Its history must have room for
        ``s[PLY] + depth + qdepth + 1`` plies.
    theta : float64 array
        The evaluation's parameters.
    kind : int
        ``EVAL_MATERIAL`` or ``EVAL_LINEAR`` (:mod:`gamelib.evaluation.shogi`).
    depth, qdepth : int
        Full-width plies (the move itself is ply 1; ``depth >= 1``) and quiescence plies.
    max_plies : int
        Game-length cap (a position at ``max_plies`` plies of the game is a draw), 0 for none.
    ws : tuple
        A workspace from :func:`gamelib.search.core.new_workspace` (any TT size).
    out : tuple
        Buffers from :func:`new_leaves_buffers`; ``moves[:n]``, ``scores[:n]``,
        ``leaf_kind[:n]``, ``leaf_ptr[:n+1]``, ``leaf_idx/leaf_val[:leaf_ptr[n]]`` (and the
        principal lines, see :func:`root_scores_into`) are written.
    """
    leaf_ptr, leaf_idx, leaf_val = out[3], out[4], out[5]
    s = np.ascontiguousarray(s)
    n = root_scores_into(s, theta, kind, depth, qdepth, max_plies, ws, out)
    leaf_ptr[0] = 0
    nnz = 0
    for k in range(n):
        nnz += leaf_features_into(s, k, out, leaf_idx, leaf_val, nnz)
        leaf_ptr[k + 1] = nnz
    return n


@dataclass(frozen=True)
class RootLeaves:
    """Every root move with its search value and principal leaf (see the module doc).

    Attributes
    ----------
    moves : int32[n]
        The legal root moves (engine integer moves), in generation order.
    scores : float64[n]
        ``evl(s, a; θ)`` from the root side to move's view.
    leaf_kind : int8[n]
        How the principal line ends (``LEAF_STATIC`` or a game end: ``LEAF_MATED``,
        ``LEAF_REPETITION``, ``LEAF_CAP``).
    leaf_ptr : int64[n+1], leaf_idx : int32[nnz], leaf_val : float64[nnz]
        The leaves' features (root side's view) as compressed sparse rows.
    """

    moves: np.ndarray
    scores: np.ndarray
    leaf_kind: np.ndarray
    leaf_ptr: np.ndarray
    leaf_idx: np.ndarray
    leaf_val: np.ndarray

    @property
    def terminal(self) -> np.ndarray:
        """bool[n]: the principal line ends the game (constant score, no features)."""
        return self.leaf_kind != sc.LEAF_STATIC

    def __len__(self) -> int:
        return len(self.moves)

    def dense(self, n_features: int) -> np.ndarray:
        """The leaves' features as a dense ``(n, n_features)`` array."""
        out = np.zeros((len(self.moves), n_features))
        for k in range(len(self.moves)):
            a, b = self.leaf_ptr[k], self.leaf_ptr[k + 1]
            np.add.at(out[k], self.leaf_idx[a:b], self.leaf_val[a:b])
        return out


def root_leaves(s, theta, kind, depth: int = 1, qdepth: int = 4, *, max_plies: int = 0) -> RootLeaves:
    """Search every root move of ``s`` and return its value and principal leaf's features.

    Parameters
    ----------
    s : int64 state array or :class:`gamelib.minishogi.Position`
        The root position with its game history (not modified).
    theta : float64 array of length ``N_FEATURES``
        The evaluation's parameters.
    kind : int
        ``EVAL_MATERIAL`` or ``EVAL_LINEAR``.
    depth : int
        Full-width plies, the root move being ply 1 (the paper's learning setting: 1).
    qdepth : int
        Quiescence plies after them (the paper's learning setting: 4).
    max_plies : int
        The game-length cap (e.g. 300): a line reaching it ends in a draw; 0 for none.

    Returns
    -------
    RootLeaves
        Empty (``n = 0``) if the side to move has no legal move.
    """
    depth, qdepth, max_plies = _check_depths(depth, qdepth, max_plies)
    theta, kind = check_eval_args(theta, kind)
    st = as_search_state(s, depth + qdepth + 2)
    ws = thread_workspace(0)
    out = new_leaves_buffers()
    n = root_leaves_into(st, theta, kind, depth, qdepth, max_plies, ws, out)
    moves, scores, lk, ptr, idx, val = out[:6]
    nnz = ptr[n]
    return RootLeaves(moves[:n].copy(), scores[:n].copy(), lk[:n].copy(), ptr[: n + 1].copy(), idx[:nnz].copy(), val[:nnz].copy())


def _check_depths(depth, qdepth, max_plies):
    for name, v, lo in (("depth", depth, 1), ("qdepth", qdepth, 0), ("max_plies", max_plies, 0)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    if depth + qdepth >= sc.MAX_PLY:
        raise ValueError(f"depth + qdepth must be < {sc.MAX_PLY}, got {depth} + {qdepth}")
    return int(depth), int(qdepth), int(max_plies)



@njit(cache=True, inline="always")
def _child_end(s, mv, ctl):
    """How the search ``depth=1, qdepth=0`` of a root move ends at the position after the move
    (ply 1), as :func:`gamelib.search.core.pvs` and ``qsearch`` end there, short of the static
    evaluation: ``(value for the side to move at the child, leaf kind)``, kind ``LEAF_STATIC``
    (value 0.0) if the child is to be evaluated. The checks are the search's own
    (``search_repetition``, ``at_game_cap``, ``in_check``) in its order."""
    base = mc.MAX_MOVES
    r = sc.search_repetition(s, ctl)
    if r != ONGOING:
        return sc.result_score(r, 1), sc.LEAF_REPETITION
    if sc.at_game_cap(s, ctl):
        if not mc.has_legal_move(s, mv, base):
            return sc.end_score(s, mv, base, 1), sc.LEAF_MATED
        return 0.0, sc.LEAF_CAP
    if sc.in_check(s) and not mc.has_legal_move(s, mv, base):
        return sc.end_score(s, mv, base, 1), sc.LEAF_MATED
    return 0.0, sc.LEAF_STATIC


@kernel
def _child_leaf(s, theta, mv, ctl, idx, val, start, pos):
    """The leaf of a root move searched ``depth=1, qdepth=0`` (:func:`_child_end`): ``(value for
    the side to move at the child, leaf kind, number of features written to idx/val[start:])``;
    a static leaf is evaluated and its features taken in one scan."""
    v, kind = _child_end(s, mv, ctl)
    if kind != sc.LEAF_STATIC:
        return v, kind, 0
    nf, v = evaluate_and_features_unsorted(s, theta, idx[start:], val[start:], pos)
    return v, sc.LEAF_STATIC, nf


@kernel
def child_scores_into(s, theta, kind, max_plies, ws, out):
    """:func:`root_scores_into` with ``depth=1, qdepth=0`` and no evaluation cache, without the
    search's machinery (a root move's search ends at the child: :func:`_child_end`, else its
    static evaluation :func:`gamelib.evaluation.shogi.evaluate_kind`): fills ``moves[:n]``,
    ``scores[:n]``, ``leaf_kind[:n]`` and ``lines[:n, 0] = 0``, exactly as that call does
    (tested), and returns ``n`` (TD(λ)'s self-play: every leaf's value, one leaf's features)."""
    mv, ordk, pv, ctl, tt, tts, ec, ecv = ws
    moves, scores, leaf_kind, lines = out[0], out[1], out[2], out[8]
    if s.shape[0] < mc.HIST + mc.HIST_STRIDE * (s[mc.PLY] + 3):
        raise ValueError("child_scores_into: the state's history is too short for the search")
    sc.setup(s, ctl, tt, _NO_BUDGET, 0, kind, False, False, False, 0, max_plies)
    n = mc.gen_moves(s, mv, 0, False)
    for k in range(n):
        m = mv[k]
        moves[k] = m
        sc.make(s, ctl, np.int64(m))
        v, end = _child_end(s, mv, ctl)
        if end == sc.LEAF_STATIC:
            v = evaluate_kind(s, theta, kind)
        sc.unmake(s, ctl)
        scores[k] = -v
        leaf_kind[k] = end
        lines[k, 0] = 0
    sc.release_repetition(s, ctl)
    return n


@kernel
def child_leaves_into(s, theta, max_plies, ws, out):
    """:func:`root_scores_into` with ``depth=1, qdepth=0`` (the full evaluation, no evaluation
    cache) and :func:`leaf_features_unsorted_into` of every root move at once: fills
    ``moves[:n]``, ``scores[:n]``, ``leaf_kind[:n]``, ``lines[:n, 0] = 0`` and the features in
    CSR rows ``leaf_ptr``/``leaf_idx``/``leaf_val`` (``out[3:6]``; the root side's view: the
    child's features negated); returns ``n``. The scores, kinds and features are exactly those
    of the two calls (tested); each leaf is scanned once instead of twice (REINFORCE's self-play,
    which needs every leaf's value and features)."""
    mv, ordk, pv, ctl, tt, tts, ec, ecv = ws
    moves, scores, leaf_kind, ptr, idx, val, lines, pos = out[0], out[1], out[2], out[3], out[4], out[5], out[8], out[9]
    if s.shape[0] < mc.HIST + mc.HIST_STRIDE * (s[mc.PLY] + 3):
        raise ValueError("child_leaves_into: the state's history is too short for the search")
    sc.setup(s, ctl, tt, _NO_BUDGET, 0, EVAL_LINEAR, False, False, False, 0, max_plies)
    n = mc.gen_moves(s, mv, 0, False)
    ptr[0] = 0
    for k in range(n):
        m = mv[k]
        moves[k] = m
        sc.make(s, ctl, np.int64(m))
        v, kind, nf = _child_leaf(s, theta, mv, ctl, idx, val, ptr[k], pos)
        sc.unmake(s, ctl)
        scores[k] = -v
        leaf_kind[k] = kind
        lines[k, 0] = 0
        for j in range(ptr[k], ptr[k] + nf):
            val[j] = -val[j]
        ptr[k + 1] = ptr[k] + nf
    sc.release_repetition(s, ctl)
    return n

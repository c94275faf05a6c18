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

The kernels are :mod:`gamelib.algorithms.leaves` compiled for 5×5 shogi (written once over the
game protocol); this module adds the Python front end :func:`root_leaves`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gamelib.algorithms import leaves as _leaves
from gamelib.algorithms.alphabeta import thread_workspace
from gamelib.algorithms.leaves import EVAL_CACHE_KEEP, EVAL_CACHE_NEW, EVAL_CACHE_OFF

from . import core as sc
from .state import as_search_state, check_eval_args

__all__ = ["RootLeaves", "root_leaves", "root_leaves_into", "root_scores_into", "leaf_features_into",
           "leaf_features_unsorted_into", "child_leaves_into", "child_scores_into", "new_leaves_buffers",
           "EVAL_CACHE_OFF", "EVAL_CACHE_NEW", "EVAL_CACHE_KEEP"]

_K = _leaves.kernels(sc.GAME)
root_scores_into = _K.root_scores_into
leaf_features_into = _K.leaf_features_into
leaf_features_unsorted_into = _K.leaf_features_unsorted_into
root_leaves_into = _K.root_leaves_into
child_scores_into = _K.child_scores_into
child_leaves_into = _K.child_leaves_into


def new_leaves_buffers():
    """Output buffers of :func:`root_leaves_into`: ``(moves, scores, leaf_kind, leaf_ptr,
    leaf_idx, leaf_val, fidx, fval, lines, pos)`` sized for any position (``MAX_MOVES``
    moves); ``pos`` is the zeroed scratch of :func:`leaf_features_unsorted_into`."""
    return _leaves.new_leaves_buffers(sc.GAME)


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
    s : int64 state array or :class:`gamelib.games.minishogi.Position`
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
    ws = thread_workspace(sc.GAME, 0)
    out = new_leaves_buffers()
    n = root_leaves_into(st, theta, kind, depth, qdepth, max_plies, ws, out)
    moves, scores, lk = out.moves, out.scores, out.leaf_kind
    ptr, idx, val = out.leaf_ptr, out.leaf_idx, out.leaf_val
    nnz = ptr[n]
    return RootLeaves(moves[:n].copy(), scores[:n].copy(), lk[:n].copy(), ptr[: n + 1].copy(), idx[:nnz].copy(), val[:nnz].copy())


def _check_depths(depth, qdepth, max_plies):
    for name, v, lo in (("depth", depth, 1), ("qdepth", qdepth, 0), ("max_plies", max_plies, 0)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    if depth + qdepth >= sc.MAX_PLY:
        raise ValueError(f"depth + qdepth must be < {sc.MAX_PLY}, got {depth} + {qdepth}")
    return int(depth), int(qdepth), int(max_plies)

"""Game-tree search for 5×5 shogi: αβ with quiescence and the principal-variation leaf.

* :func:`search` -- iterative-deepening fail-soft PVS with quiescence under a node budget,
  transposition table, move ordering, mate scores, repetition rules and seeded evaluation
  noise: the engine's move choice (:class:`SearchResult`, whose PV ends at the principal leaf).
* :func:`root_leaves` -- for every legal root move ``a``, ``evl(s, a; θ)`` and the features of
  the principal leaf of its search (the PGLeaf paper's eq. 5; the learning setting "1 ply full
  width + 4 plies of quiescence" is ``depth=1, qdepth=4``), and :func:`root_leaves_into`, the
  same in nopython code for the learners' loops (:func:`root_scores_into` and
  :func:`leaf_features_into`: the same in two steps, the features only of the leaves needed;
  :func:`leaf_features_unsorted_into`: a leaf's features in scan order, for the learners' sums;
  :func:`child_leaves_into`: ``depth=1, qdepth=0`` scores and every leaf's features in one pass;
  :func:`child_scores_into`: ``depth=1, qdepth=0`` scores without the search's machinery).
* :mod:`gamelib.search.core` -- the numba core (algorithm notes in its docstring).

Scores are in the evaluation's units (a pawn = 0.02) from the side to move's view; beyond
±:data:`MATE_BOUND` they announce a forced game end in ``MATE - |score|`` plies.
"""

from .core import LEAF_CAP, LEAF_MATED, LEAF_REPETITION, LEAF_STATIC, MATE, MATE_BOUND, MAX_PLY, new_workspace
from .iterative import DEFAULT_TT_BITS, SearchResult, StopSignal, mate_plies, principal_leaf, search
from .leaves import (EVAL_CACHE_KEEP, EVAL_CACHE_NEW, EVAL_CACHE_OFF, RootLeaves, child_leaves_into,
                     child_scores_into, leaf_features_into, leaf_features_unsorted_into,
                     new_leaves_buffers, root_leaves, root_leaves_into, root_scores_into)

__all__ = [
    "MATE",
    "MATE_BOUND",
    "MAX_PLY",
    "LEAF_STATIC",
    "LEAF_MATED",
    "LEAF_REPETITION",
    "LEAF_CAP",
    "DEFAULT_TT_BITS",
    "SearchResult",
    "StopSignal",
    "search",
    "mate_plies",
    "principal_leaf",
    "RootLeaves",
    "root_leaves",
    "root_leaves_into",
    "root_scores_into",
    "leaf_features_into",
    "leaf_features_unsorted_into",
    "child_leaves_into",
    "child_scores_into",
    "new_leaves_buffers",
    "new_workspace",
    "EVAL_CACHE_OFF",
    "EVAL_CACHE_NEW",
    "EVAL_CACHE_KEEP",
]

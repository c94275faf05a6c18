"""Midgame αβ (negamax) search for Othello with a pluggable evaluation.

The evaluation of a leaf is always a score in [-1, 1] from the view of the side to move:

* ``discs``: disc difference / 64;
* ``positional``: :math:`\\sum_i w_i (p_i - o_i) / \\sum_i |w_i|` with square weights ``w``
  (:data:`CLASSIC_WEIGHTS` by default);
* ``mlp``: :math:`2 v - 1` with :math:`v` the network's win probability for the side to move
  (:math:`v_\\theta(s)` for Black, :math:`1 - v_\\theta(s)` for White, eq. 3);
* ``table``: the same with the value table's :math:`v_b(s)` where the position is in the table,
  and elsewhere the fallback network (or 0, an even game, without one). :class:`SearchResult`
  counts the leaves looked up in the table and those found there.

A finished game scores :math:`\\pm(2 + |d|/64)` (``d`` the final disc difference) and 0 for a draw,
so a proven win beats any evaluation. A side without a move passes without spending depth.
Search is fixed-depth, or iterative deepening under a node budget (the move of the deepest
completed iteration is played), so results do not depend on the machine's speed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..runtime.checks import check_int
from . import core
from .board import MAX_GAME_PLIES
from .mlp import MLP, mlp_value
from .value_table import ValueTable, table_value

__all__ = [
    "CLASSIC_WEIGHTS",
    "Evaluator",
    "SearchResult",
    "search",
    "evaluate",
]

#: A classic square-weight table: corners good, the squares next to them (X and C) bad, edges
#: mildly good, the centre neutral. Index 0 = a1 ... 63 = h8 (symmetric, so orientation is moot).
CLASSIC_WEIGHTS = np.array([
    100, -20, 10, 5, 5, 10, -20, 100,
    -20, -50, -2, -2, -2, -2, -50, -20,
    10, -2, -1, -1, -1, -1, -2, 10,
    5, -2, -1, -1, -1, -1, -2, 5,
    5, -2, -1, -1, -1, -1, -2, 5,
    10, -2, -1, -1, -1, -1, -2, 10,
    -20, -50, -2, -2, -2, -2, -50, -20,
    100, -20, 10, 5, 5, 10, -20, 100,
], dtype=np.float64)

EVAL_DISCS, EVAL_POSITIONAL, EVAL_MLP, EVAL_TABLE = 0, 1, 2, 3
_KINDS = {"discs": EVAL_DISCS, "positional": EVAL_POSITIONAL, "mlp": EVAL_MLP,
          "table": EVAL_TABLE}

#: Order in which moves are tried: corners, then edges and inner squares, X/C squares last.
_MOVE_ORDER = np.argsort(-CLASSIC_WEIGHTS, kind="stable").astype(np.int64)
_WIN = 2.0
_U1 = np.uint64(1)


class Evaluator:
    """A leaf evaluation for :func:`search`: a kind and the arrays it reads.

    Build one with :meth:`discs`, :meth:`positional`, :meth:`mlp` or :meth:`table`.
    """

    def __init__(self, kind: str, weights=None, mlp: MLP | None = None,
                 table: ValueTable | None = None):
        if kind not in _KINDS:
            raise ValueError(f"unknown evaluation {kind!r}; valid: {', '.join(_KINDS)}")
        if kind == "mlp" and mlp is None:
            raise ValueError("the 'mlp' evaluation needs a network")
        if kind == "table" and table is None:
            raise ValueError("the 'table' evaluation needs a value table")
        self.kind = kind
        w = CLASSIC_WEIGHTS if weights is None else np.asarray(weights, dtype=np.float64)
        if w.shape != (64,) or not np.all(np.isfinite(w)) or not np.any(w):
            raise ValueError(f"square weights must be 64 finite numbers, not all zero; got shape "
                             f"{w.shape}")
        self.weights = w / np.abs(w).sum()
        self.mlp = mlp
        self.table = table
        if mlp is not None:
            params, sizes, code = mlp.kernel_args()
        else:
            params, sizes, code = np.zeros(0, np.float32), np.zeros(0, np.int64), 0
        if table is not None:
            slots, keys_b, keys_w, v_b = table.kernel_args()
        else:
            slots = np.full(1, -1, np.int64)
            keys_b = keys_w = np.zeros(0, np.uint64)
            v_b = np.zeros(0, np.float64)
        self.args = (_KINDS[kind], self.weights, params, sizes, code, slots, keys_b, keys_w, v_b)

    @classmethod
    def discs(cls) -> "Evaluator":
        return cls("discs")

    @classmethod
    def positional(cls, weights=None) -> "Evaluator":
        return cls("positional", weights=weights)

    @classmethod
    def from_mlp(cls, mlp: MLP) -> "Evaluator":
        return cls("mlp", mlp=mlp)

    @classmethod
    def from_table(cls, table: ValueTable, fallback: MLP | None = None) -> "Evaluator":
        return cls("table", mlp=fallback, table=table)

    def __repr__(self) -> str:
        return f"Evaluator({self.kind!r})"


@njit(cache=True)
def _evaluate(p, o, black_to_move, stats, kind, weights, params, sizes, code, slots, keys_b,
              keys_w, v_b):
    """Leaf score in [-1, 1] for the side to move (``p``); a table look-up adds 1 to
    ``stats[2]``, and 1 to ``stats[3]`` when the table has the position."""
    if kind == EVAL_DISCS:
        return (core.popcount(p) - core.popcount(o)) / 64.0
    if kind == EVAL_POSITIONAL:
        s = 0.0
        x = p
        while x:
            s += weights[core.lowest_bit_index(x)]
            x &= x - _U1
        x = o
        while x:
            s -= weights[core.lowest_bit_index(x)]
            x &= x - _U1
        return s
    black = p if black_to_move else o
    white = o if black_to_move else p
    v = -1.0
    if kind == EVAL_TABLE:
        v = table_value(slots, keys_b, keys_w, v_b, black, white)
        stats[2] += 1
        if v >= 0.0:
            stats[3] += 1
    if v < 0.0:
        if sizes.shape[0] == 0:
            return 0.0
        v = mlp_value(params, sizes, code, black, white)
    if not black_to_move:
        v = 1.0 - v
    return 2.0 * v - 1.0


@njit(cache=True)
def _final(p, o):
    d = core.popcount(p) - core.popcount(o)
    if d > 0:
        return _WIN + d / 64.0
    if d < 0:
        return -_WIN + d / 64.0
    return 0.0


@njit(cache=True)
def _negamax(p, o, black_to_move, depth, alpha, beta, stats, budget,
             kind, weights, params, sizes, code, slots, keys_b, keys_w, v_b):
    """Fail-soft negamax αβ; ``stats[0]`` counts nodes, ``stats[1]`` is set on budget abort,
    ``stats[2:4]`` count table look-ups and hits (:func:`_evaluate`)."""
    stats[0] += 1
    if budget > 0 and stats[0] > budget:
        stats[1] = 1
        return 0.0
    moves = core.move_mask(p, o)
    if moves == 0:
        if core.move_mask(o, p) == 0:
            return _final(p, o)
        return -_negamax(o, p, not black_to_move, depth, -beta, -alpha, stats, budget,
                         kind, weights, params, sizes, code, slots, keys_b, keys_w, v_b)
    if depth <= 0:
        return _evaluate(p, o, black_to_move, stats, kind, weights, params, sizes, code,
                         slots, keys_b, keys_w, v_b)
    best = -np.inf
    for k in range(64):
        sq = _MOVE_ORDER[k]
        if (moves >> np.uint64(sq)) & _U1 == 0:
            continue
        np_, no = core.make_move(p, o, sq)
        score = -_negamax(no, np_, not black_to_move, depth - 1, -beta, -alpha, stats, budget,
                          kind, weights, params, sizes, code, slots, keys_b, keys_w, v_b)
        if stats[1]:
            return 0.0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    return best


@njit(cache=True)
def _root(p, o, black_to_move, depth, stats, budget, tie_u, order,
          kind, weights, params, sizes, code, slots, keys_b, keys_w, v_b):
    """Search every root move in ``order``; exact scores for moves tied with the best.

    Returns ``(best_square, best_score, scores)``; the best square is drawn among the tied
    moves with the uniform number ``tie_u``. ``scores[i]`` is an upper bound for moves that
    are worse than the best.
    """
    scores = np.full(order.shape[0], -np.inf)
    best = -np.inf
    for i in range(order.shape[0]):
        np_, no = core.make_move(p, o, order[i])
        # window just below the best so that ties get exact scores
        alpha = best - 1e-9 if best > -np.inf else -np.inf
        s = -_negamax(no, np_, not black_to_move, depth - 1, -np.inf, -alpha, stats, budget,
                      kind, weights, params, sizes, code, slots, keys_b, keys_w, v_b)
        if stats[1]:
            return -1, 0.0, scores
        scores[i] = s
        if s > best:
            best = s
    n_ties = 0
    for i in range(order.shape[0]):
        if scores[i] >= best - 1e-9:
            n_ties += 1
    pick = min(int(tie_u * n_ties), n_ties - 1)
    for i in range(order.shape[0]):
        if scores[i] >= best - 1e-9:
            if pick == 0:
                return order[i], best, scores
            pick -= 1
    return order[0], best, scores


@njit(cache=True)
def _evaluate_one(p, o, black_to_move, kind, weights, params, sizes, code, slots, keys_b,
                  keys_w, v_b):
    if core.is_game_over(p, o):
        return _final(p, o)
    return _evaluate(p, o, black_to_move, np.zeros(4, np.int64), kind, weights, params, sizes,
                     code, slots, keys_b, keys_w, v_b)


@dataclass(frozen=True)
class SearchResult:
    """Outcome of :func:`search`.

    Attributes
    ----------
    move : int
        Square to play (0 = a1 ... 63 = h8), or -1 when the side to move must pass.
    score : float
        Negamax score of the move for the side to move (see the module docstring).
    depth : int
        Depth of the deepest completed iteration.
    nodes : int
        Nodes visited (all iterations, the aborted one included).
    table_probes, table_hits : int
        Leaves looked up in the value table (``table`` evaluation) and those it has.
    """

    move: int
    score: float
    depth: int
    nodes: int
    table_probes: int = 0
    table_hits: int = 0


def _board_args(black, white, black_to_move):
    black = np.uint64(check_int("black bitboard", black, 0, 2**64 - 1))
    white = np.uint64(check_int("white bitboard", white, 0, 2**64 - 1))
    if black & white:
        raise ValueError("bad position: black and white share squares")
    return (black, white) if black_to_move else (white, black)


def evaluate(black: int, white: int, black_to_move: bool, evaluator: Evaluator) -> float:
    """The leaf score of one position for the side to move (exact if the game is over)."""
    p, o = _board_args(black, white, black_to_move)
    return float(_evaluate_one(p, o, bool(black_to_move), *evaluator.args))


def search(black: int, white: int, black_to_move: bool, evaluator: Evaluator, depth: int,
           node_budget: int | None = None, tie_break: float = 0.0) -> SearchResult:
    """Best move of the side to move by negamax αβ to ``depth`` plies.

    Parameters
    ----------
    black, white : int
        Bitboards of the black and white discs.
    black_to_move : bool
    evaluator : Evaluator
    depth : int
        Search depth in plies (>= 1). With ``node_budget`` it is the largest depth tried by
        iterative deepening.
    node_budget : int, optional
        Stop iterative deepening when this many nodes have been visited; the move of the last
        completed depth is played (depth 1 always completes).
    tie_break : float in [0, 1)
        Uniform number that picks among root moves with equal scores (0 = the first in the
        static move order); pass a seeded random number for varied but reproducible play.

    Returns
    -------
    SearchResult
    """
    depth = check_int("search depth", depth, 1, MAX_GAME_PLIES)
    if node_budget is not None:
        node_budget = check_int("node_budget (or None)", node_budget, 1, 2**62)
    if not isinstance(tie_break, (int, float, np.floating)) or not 0.0 <= tie_break < 1.0:
        raise ValueError(f"tie_break must be in [0, 1), got {tie_break}")
    p, o = _board_args(black, white, black_to_move)
    moves = int(core.move_mask(p, o))
    if moves == 0:
        if core.is_game_over(p, o):
            raise ValueError("the game is over: there is no move to search")
        return SearchResult(-1, float("nan"), 0, 0)
    order = np.array([sq for sq in _MOVE_ORDER if moves >> int(sq) & 1], dtype=np.int64)
    stats = np.zeros(4, dtype=np.int64)
    first = 1 if node_budget is not None else depth
    best = None
    for d in range(first, depth + 1):
        stats[1] = 0
        budget = 0 if node_budget is None or d == 1 else node_budget
        sq, score, scores = _root(p, o, bool(black_to_move), d, stats, budget, tie_break, order,
                                  *evaluator.args)
        if stats[1]:
            break
        best = SearchResult(int(sq), float(score), d, 0)
        # try the best moves of this iteration first in the next one
        order = order[np.argsort(-scores, kind="stable")]
    return SearchResult(best.move, best.score, best.depth, int(stats[0]), int(stats[2]),
                        int(stats[3]))

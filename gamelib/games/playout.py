"""Random playouts over the game protocol, written once for every game.

From a state, play a move drawn uniformly from ``gen_moves`` until ``outcome`` says the game is
over or ``max_plies`` plies have been played. The draws come from a SplitMix64 stream
(Steele, Lea & Flood's generator: :math:`x \\leftarrow x + \\gamma`, then the finaliser), and
move ``k = \\lfloor u \\cdot n / 2^{32} \\rfloor`` of ``n`` is taken with ``u`` the draw's high 32
bits: a seed gives the same game on every CPU.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from .protocol import ONGOING, Game, gen_moves, make_move, outcome
from .specialize import generic, specialize

__all__ = ["random_playout", "random_playout_kernel"]

_GAMMA = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def _next(rng):
    """The next 64-bit draw of the SplitMix64 stream whose state is ``rng[0]`` (uint64)."""
    rng[0] += _GAMMA
    x = rng[0]
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@generic(_nrt=False)
def random_playout_kernel(s, buf, rng, max_plies, moves):
    """Play random moves in ``s`` (not taken back); returns ``(outcome, plies)``: the result for
    the side to move at the end (``ONGOING`` if cut at ``max_plies``) and the plies played, the
    ``k``-th into ``moves[k]``."""
    plies = 0
    while True:
        r = outcome(s, buf, 0)
        if r != ONGOING or plies >= max_plies:
            return r, plies
        n = gen_moves(s, buf, 0)
        if n == 0:
            raise RuntimeError("outcome says the game goes on but gen_moves finds no move")
        k = np.int64(((_next(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))
        m = np.int64(buf[k])
        moves[plies] = m
        make_move(s, m)
        plies += 1


def random_playout(game: Game, s: np.ndarray, seed: int, max_plies: int) -> tuple[int, list[int]]:
    """A seeded random game of ``game`` from state ``s`` (advanced in place; ``max_plies`` must
    fit its history): the outcome for the side to move at its end and the moves played."""
    if isinstance(max_plies, bool) or not isinstance(max_plies, (int, np.integer)) or max_plies < 0:
        raise ValueError(f"max_plies must be an integer >= 0, got {max_plies!r}")
    buf = np.empty(game.MAX_MOVES, dtype=np.int32)
    rng = np.array([seed], dtype=np.uint64)
    moves = np.empty(max(max_plies, 1), dtype=np.int64)
    r, n = specialize(game, sys.modules[__name__]).random_playout_kernel(s, buf, rng, np.int64(max_plies), moves)
    return int(r), [int(m) for m in moves[:n]]

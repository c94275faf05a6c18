"""Deterministic samples of positions from seeded uniformly random games.

Game ``i`` of a sample with seed ``seed`` draws its moves from ``numpy.random.default_rng((seed,
i))``, so a sample does not depend on how many games were drawn before or on any worker count.
"""

from __future__ import annotations

import numpy as np

from .position import Position
from .rules import START_SFEN

__all__ = ["random_game", "random_positions"]


def random_game(seed: int, index: int = 0, start: str = START_SFEN, max_plies: int = 300) -> list[str]:
    """USI moves of uniformly random game ``index`` of ``seed``, to its end or ``max_plies``."""
    rng = np.random.default_rng((seed, index))
    pos = Position(start, max_plies=max_plies)
    while pos.outcome() is None:
        moves = pos.legal_moves
        pos.push_usi(moves[int(rng.integers(len(moves)))])
    return pos.move_stack


def random_positions(n: int, seed: int, start: str = START_SFEN, max_plies: int = 300) -> list[str]:
    """SFENs of ``n`` positions, one at a uniformly drawn ply of each of ``n`` random games.

    Game ends (mates, stalemates, repetitions) are included when the drawn ply is the last.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    out = []
    for i in range(n):
        moves = random_game(seed, i, start, max_plies)
        ply = int(np.random.default_rng((seed, i, 1)).integers(len(moves) + 1))
        pos = Position(start, max_plies=None)
        for m in moves[:ply]:
            pos.push_usi(m)
        out.append(pos.sfen())
    return out

"""Deterministic samples of positions from seeded uniformly random games.

Game ``i`` of a sample with seed ``seed`` draws its moves from ``numpy.random.default_rng((seed,
i))``, so a sample does not depend on how many games were drawn before or on any worker count.
"""

from __future__ import annotations

import numpy as np

from ...runtime.checks import check_int
from .position import Position
from .rules import START_SFEN

__all__ = ["random_game", "random_positions"]


def random_game(seed: int, index: int = 0, start: str = START_SFEN, max_plies: int = 300) -> list[str]:
    """USI moves of uniformly random game ``index`` of ``seed``, to its end or ``max_plies``."""
    rng = np.random.default_rng((check_int("seed", seed, 0, 2**63 - 1), check_int("index", index, 0, 2**63 - 1)))
    pos = Position(start, max_plies=max_plies)
    while pos.outcome() is None:
        moves = pos.legal_moves
        pos.push_usi(moves[int(rng.integers(len(moves)))])
    return pos.move_stack


def random_positions(n: int, seed: int, start: str = START_SFEN, max_plies: int = 300) -> list[str]:
    """SFENs of ``n`` positions, one at a uniformly drawn ply of each of ``n`` random games.

    Game ends (mates, stalemates, repetitions) are included when the drawn ply is the last.
    """
    n = check_int("n", n, 0, 2**31 - 1)
    check_int("seed", seed, 0, 2**63 - 1)
    out = []
    for i in range(n):
        moves = random_game(seed, i, start, max_plies)
        ply = int(np.random.default_rng((seed, i, 1)).integers(len(moves) + 1))
        pos = Position(start, max_plies=None)
        for m in moves[:ply]:
            pos.push_usi(m)
        out.append(pos.sfen())
    return out

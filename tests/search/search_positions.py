"""Seeded positions for the search tests (a module, not the conftest, so tests can import it)."""

from __future__ import annotations

import random

import numpy as np

from gamelib.games.minishogi import Position


def playout_positions(seed: int, n: int, min_ply: int = 8, max_ply: int = 40, quiet: bool = True) -> list[np.ndarray]:
    """``n`` states (with their game history) from seeded uniformly random playouts.

    ``quiet``: only positions whose side to move is not in check and has at least 12 moves.
    """
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = Position()
        stop = rng.randint(min_ply, max_ply)
        for _ in range(stop):
            moves = pos.legal_moves
            if not moves or pos.outcome() is not None:
                break
            pos.push_usi(rng.choice(moves))
        n_moves = len(pos.legal_moves)
        if pos.outcome() is None and n_moves and (not quiet or (not pos.is_check() and n_moves >= 12)):
            out.append(pos.state.copy())
    return out

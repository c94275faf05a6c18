"""Othello square names: index 0 = ``"a1"`` ... 7 = ``"h1"``, 56 = ``"a8"`` ... 63 = ``"h8"``."""

from __future__ import annotations

import numpy as np

from ...runtime.checks import check_int

__all__ = ["SQUARE_NAMES", "square_name", "parse_square"]

SQUARE_NAMES = [f"{'abcdefgh'[i % 8]}{i // 8 + 1}" for i in range(64)]
_SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}


def square_name(sq: int) -> str:
    """Name of square index ``sq`` (0 = ``"a1"``, 63 = ``"h8"``)."""
    return SQUARE_NAMES[check_int("square index", sq, 0, 63)]


def parse_square(move) -> int:
    """Square index of a move given as a name (``"d3"``, any case) or an index 0..63."""
    if isinstance(move, (int, np.integer)) and not isinstance(move, bool):
        if 0 <= int(move) < 64:
            return int(move)
        raise ValueError(f"bad square index {move!r}: must be 0..63")
    if isinstance(move, str):
        sq = _SQUARE_INDEX.get(move.strip().lower())
        if sq is not None:
            return sq
    raise ValueError(f"bad square {move!r}: expected a name 'a1'..'h8' or an index 0..63")

"""The symmetries of the Othello start position, and the orientation of the WTHOR records.

A square ``(c, r)`` (column ``c`` = 0 for a .. 7 for h, row ``r`` = 0 for row 1 .. 7 for row 8)
is bit ``8 r + c`` of a bitboard. Of the eight symmetries of the square, four map the start
position (d4, e5 white; d5, e4 black) onto itself:

* :data:`IDENTITY`: ``(c, r) -> (c, r)``;
* :data:`ROTATE_180`: ``(c, r) -> (7 - c, 7 - r)``;
* :data:`FLIP_A1H8`: reflection in the a1-h8 diagonal, ``(c, r) -> (r, c)``;
* :data:`FLIP_A8H1`: reflection in the a8-h1 diagonal, ``(c, r) -> (7 - r, 7 - c)``.

The other four (the quarter turns and the reflections in the middle row or column) swap the
colours of the centre discs. The four keep Black's four first moves {c4, d3, e6, f5} as a set
and act on them simply transitively (a Klein four-group): exactly one of them takes a given
first move to f5 (:func:`symmetry_to_f5`):

======  ==========================
first   symmetry that takes it to f5
======  ==========================
f5      identity
c4      180° rotation
e6      reflection in a1-h8
d3      reflection in a8-h1
======  ==========================

Every game of the WTHOR records is stored with the first move f5 (the federation normalises
the openings by these symmetries), so a value table or a network learned from them knows the
positions of a game only in the orientation in which its first move is f5. Each symmetry is its
own inverse, so the same function maps a position into that orientation and a move found there
back. The Othello rules commute with every symmetry of the square (a move's flips are the
images of the flips of the image move), so the mapped game is a legal game with the same
result.

The bitboard transforms are the usual delta swaps (:func:`transform`, numba, exact for every
64-bit pattern); :func:`transform_square` maps one square.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .squares import parse_square, square_name

__all__ = [
    "IDENTITY",
    "ROTATE_180",
    "FLIP_A1H8",
    "FLIP_A8H1",
    "START_SYMMETRIES",
    "SYMMETRY_NAMES",
    "DATA_FIRST_MOVE",
    "transform",
    "transform_square",
    "transform_squares",
    "symmetry_to_f5",
]

IDENTITY, ROTATE_180, FLIP_A1H8, FLIP_A8H1 = 0, 1, 2, 3
#: The four symmetries that keep the start position.
START_SYMMETRIES = (IDENTITY, ROTATE_180, FLIP_A1H8, FLIP_A8H1)
SYMMETRY_NAMES = {IDENTITY: "identity", ROTATE_180: "180° rotation",
                  FLIP_A1H8: "reflection in the a1-h8 diagonal",
                  FLIP_A8H1: "reflection in the a8-h1 diagonal"}
#: The first move of every WTHOR record.
DATA_FIRST_MOVE = parse_square("f5")

_K1 = np.uint64(0x5555555555555555)
_K2 = np.uint64(0x3333333333333333)
_K4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_D1 = np.uint64(0x5500550055005500)
_D2 = np.uint64(0x3333000033330000)
_D4 = np.uint64(0x0F0F0F0F00000000)
_A1 = np.uint64(0xAA00AA00AA00AA00)
_A2 = np.uint64(0xCCCC0000CCCC0000)
_A4 = np.uint64(0xF0F0F0F00F0F0F0F)


@njit(cache=True, inline="always")
def _shl(x, n):
    return x << np.uint64(n)


@njit(cache=True, inline="always")
def _shr(x, n):
    return x >> np.uint64(n)


@njit(cache=True)
def _rotate_180(x):
    """Bit ``i`` -> bit ``63 - i``: swap the bytes (rows), then the bits of each byte."""
    x = _shr(x, 32) | _shl(x, 32)
    x = _shr(x & np.uint64(0xFFFF0000FFFF0000), 16) | _shl(x & np.uint64(0x0000FFFF0000FFFF), 16)
    x = _shr(x & np.uint64(0xFF00FF00FF00FF00), 8) | _shl(x & np.uint64(0x00FF00FF00FF00FF), 8)
    x = _shr(x, 1) & _K1 | _shl(x & _K1, 1)
    x = _shr(x, 2) & _K2 | _shl(x & _K2, 2)
    return _shr(x, 4) & _K4 | _shl(x & _K4, 4)


@njit(cache=True)
def _flip_a1h8(x):
    """``(c, r) -> (r, c)`` by three delta swaps (blocks of 4, 2, 1)."""
    t = _D4 & (x ^ _shl(x, 28))
    x ^= t ^ _shr(t, 28)
    t = _D2 & (x ^ _shl(x, 14))
    x ^= t ^ _shr(t, 14)
    t = _D1 & (x ^ _shl(x, 7))
    return x ^ t ^ _shr(t, 7)


@njit(cache=True)
def _flip_a8h1(x):
    """``(c, r) -> (7 - r, 7 - c)`` by three delta swaps (blocks of 4, 2, 1)."""
    t = x ^ _shl(x, 36)
    x ^= _A4 & (t ^ _shr(x, 36))
    t = _A2 & (x ^ _shl(x, 18))
    x ^= t ^ _shr(t, 18)
    t = _A1 & (x ^ _shl(x, 9))
    return x ^ t ^ _shr(t, 9)


@njit(cache=True)
def transform(symmetry, x):
    """The bitboard ``x`` (``np.uint64``) under ``symmetry``, one of :data:`START_SYMMETRIES`
    (numba code; the code is not checked here: the Python entry points check it)."""
    if symmetry == ROTATE_180:
        return _rotate_180(x)
    if symmetry == FLIP_A1H8:
        return _flip_a1h8(x)
    if symmetry == FLIP_A8H1:
        return _flip_a8h1(x)
    return x


def _check_symmetry(symmetry) -> int:
    if isinstance(symmetry, bool) or symmetry not in START_SYMMETRIES:
        raise ValueError(f"unknown symmetry {symmetry!r}; valid: "
                         + ", ".join(f"{k} ({v})" for k, v in SYMMETRY_NAMES.items()))
    return int(symmetry)


def transform_square(symmetry: int, square: int) -> int:
    """The square ``square`` (0 = a1 ... 63 = h8) under ``symmetry``."""
    symmetry = _check_symmetry(symmetry)
    square = parse_square(square)
    c, r = square % 8, square // 8
    c, r = {IDENTITY: (c, r), ROTATE_180: (7 - c, 7 - r), FLIP_A1H8: (r, c),
            FLIP_A8H1: (7 - r, 7 - c)}[symmetry]
    return 8 * r + c


def transform_squares(symmetry: int, squares) -> tuple:
    """Every square of a move sequence under ``symmetry``."""
    return tuple(transform_square(symmetry, sq) for sq in squares)


def symmetry_to_f5(first_move) -> int:
    """The one start-position symmetry that takes Black's first move ``first_move`` (a square
    index or name: c4, d3, e6 or f5) to f5, the first move of every WTHOR record."""
    sq = parse_square(first_move)
    for s in START_SYMMETRIES:
        if transform_square(s, sq) == DATA_FIRST_MOVE:
            return s
    raise ValueError(f"{square_name(sq)} is not a first move of Othello (c4, d3, e6 or f5)")

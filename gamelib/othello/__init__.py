"""8x8 Othello: numba bitboard engine, exact endgame solver, WTHOR game-record reader.

Stable API (square 0 = a1 ... 63 = h8; boards are 64-character strings, ``X`` black, ``O``
white, ``-`` empty; the side to move is ``"X"`` or ``"O"``):

* :func:`legal_moves` -- legal moves sorted by square index (``[]`` = pass);
* :func:`perft` -- leaf counts of the game tree (a pass is a ply);
* :func:`solve` -- exact final disc difference under perfect play and a best move;
* :class:`Board` -- a Pythonic position with push/pop;
* :mod:`gamelib.othello.core` -- the numba bitboard functions beneath them;
* :mod:`gamelib.othello.wthor` -- ``load(path)`` reads WTHOR ``.wtb`` files into a DataFrame;
* :mod:`gamelib.othello.download` -- fetches and validates the WTHOR records;
* ``python -m gamelib.bench othello`` -- perft and endgame-solver speed.
"""

from . import core, wthor
from .board import (
    START_BOARD,
    SQUARE_NAMES,
    Board,
    format_board,
    legal_moves,
    parse_board,
    parse_side,
    parse_square,
    perft,
    square_name,
)
from .board import solve

__all__ = [
    "core",
    "wthor",
    "START_BOARD",
    "SQUARE_NAMES",
    "Board",
    "format_board",
    "legal_moves",
    "parse_board",
    "parse_side",
    "parse_square",
    "perft",
    "square_name",
    "solve",
]

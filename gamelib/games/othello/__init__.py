"""8x8 Othello: numba bitboard engine, exact endgame solver, WTHOR game-record reader.

Stable API (square 0 = a1 ... 63 = h8; boards are 64-character strings, ``X`` black, ``O``
white, ``-`` empty; the side to move is ``"X"`` or ``"O"``):

* :func:`legal_moves` -- legal moves sorted by square index (``[]`` = pass);
* :func:`perft` -- leaf counts of the game tree (a pass is a ply);
* :func:`solve` -- exact final disc difference under perfect play and a best move;
* :class:`Board` -- a Pythonic position with push/pop;
* :mod:`gamelib.games.othello.core` -- the numba bitboard functions beneath them;
* :mod:`gamelib.games.othello.wthor` -- ``load(path)`` reads WTHOR ``.wtb`` files into a DataFrame;
* :mod:`gamelib.games.othello.download` -- fetches and validates the WTHOR records;
* :mod:`gamelib.games.othello.features` -- the linear evaluation's pattern features,
  :mod:`gamelib.games.othello.mlp` and :mod:`~gamelib.games.othello.value_table` -- the value
  network and table of the value chapter;
* :mod:`gamelib.games.othello.game` -- the game behind the protocol
  (:mod:`gamelib.games.protocol`), registered as ``"othello"``;
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

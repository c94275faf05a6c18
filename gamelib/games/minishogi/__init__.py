"""5×5 shogi (minishogi): an exact, fast rules engine.

The rules (Fairy-Stockfish's ``minishogi`` with standard shogi's pawn-drop-mate rule) are stated
once, in :mod:`gamelib.games.minishogi.rules`. Layers:

* :func:`legal_moves`, :func:`perft`, :func:`outcome` -- the stable string API (SFEN in, USI
  moves in and out);
* :class:`Position` (alias :class:`Board`) -- a python-chess-like position with push/pop;
* :func:`random_game`, :func:`random_positions` -- seeded random games and positions;
* :mod:`gamelib.games.minishogi.notation` -- SFEN and USI parsing (with clear ``ValueError`` messages)
  and formatting;
* :mod:`gamelib.games.minishogi.records` -- game records in the ``gamelib-records 1`` text format
  (start SFEN, USI moves, result, reason), and a reader for USI ``position`` lines, bare move
  lists and CSA/KIF-like files;
* :mod:`gamelib.games.minishogi.core` -- the numba core: one ``int64`` state array with its history,
  integer moves, legal move generation into ``int32`` buffers, make/unmake, Zobrist hashing,
  check and game-end tests, perft. Search and learners call it from ``@njit`` code;
* :mod:`gamelib.games.minishogi.ffish` -- pyffish (Fairy-Stockfish) as an independent oracle (needs the
  test-only dependency pyffish);
* :mod:`gamelib.games.minishogi.features` -- the PGLeaf paper's linear evaluation (features,
  Table 1 weights, parameter files), :mod:`gamelib.games.minishogi.reference` -- the reference
  opponent's weights;
* :mod:`gamelib.games.minishogi.game` -- the game behind the protocol
  (:mod:`gamelib.games.protocol`), registered as ``"minishogi"``;
* :mod:`gamelib.games.minishogi.bench`, :mod:`gamelib.games.minishogi.features_bench` --
  ``python -m gamelib.bench minishogi`` and ``evaluation``.
"""

from . import core, rules
from .notation import format_sfen, format_usi, parse_sfen, parse_square, parse_usi, square_name, usi_to_move
from .position import RESULT_NAMES, Board, Position, legal_moves, outcome, perft
from .rules import DEFAULT_MAX_PLIES, START_SFEN
from .sampling import random_game, random_positions

__all__ = [
    "core",
    "rules",
    "START_SFEN",
    "DEFAULT_MAX_PLIES",
    "RESULT_NAMES",
    "Position",
    "Board",
    "legal_moves",
    "perft",
    "outcome",
    "parse_sfen",
    "format_sfen",
    "parse_usi",
    "format_usi",
    "usi_to_move",
    "parse_square",
    "square_name",
    "random_game",
    "random_positions",
]

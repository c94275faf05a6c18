"""Text boards, square names, a Pythonic :class:`Board` over the numba core, and :func:`solve`
(the exact endgame solver of :mod:`gamelib.games.othello.endgame` for board strings).

A board string has 64 characters, row by row from a1 (index 0 = a1, 7 = h1, 56 = a8,
63 = h8): ``X`` black, ``O`` white, ``-`` empty (the FFO/Edax layout). Whitespace is ignored,
so an 8-line diagram works too, and ``x``/``*`` (black), ``o`` (white), ``.``/``_`` (empty) are
accepted as well. The side to move is ``"X"`` (black) or ``"O"`` (white); ``"black"``,
``"white"``, ``"B"`` and ``"W"`` (any case) are also understood.

Moves are square names ``"a1"`` .. ``"h8"`` (column letter, row number 1..8 from the top);
a pass is ``"pass"`` (also ``"PS"``, ``"--"``).
"""

from __future__ import annotations

import re

import numpy as np

from ...runtime.checks import check_int
from . import core
from .endgame import TT_BITS, solve_bitboards
from .squares import SQUARE_NAMES, parse_square, square_name
from .svg import board_svg

__all__ = [
    "START_BOARD",
    "SQUARE_NAMES",
    "square_name",
    "parse_square",
    "parse_board",
    "parse_side",
    "format_board",
    "moves_to_list",
    "legal_moves",
    "perft",
    "Board",
    "solve",
    "SolveResult",
]

_BLACK_CHARS = frozenset("Xx*")
_WHITE_CHARS = frozenset("Oo")
_EMPTY_CHARS = frozenset("-._")
_PASS_NAMES = frozenset({"pass", "ps", "--", "pa"})
_SIDES = {"x": "X", "b": "X", "black": "X", "o": "O", "w": "O", "white": "O"}

START_BOARD = "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27
#: Deepest perft or search: no game lasts more than 120 plies (60 moves, at most one pass before each).
MAX_GAME_PLIES = 120


def parse_board(board: str) -> tuple[int, int]:
    """Black and white bitboards (Python ints) of a 64-character board string."""
    if not isinstance(board, str):
        raise ValueError(f"bad board {board!r}: expected a 64-character string")
    cells = re.sub(r"\s+", "", board)
    if len(cells) != 64:
        raise ValueError(
            f"bad board {board!r}: {len(cells)} squares (without whitespace), expected 64"
        )
    black = white = 0
    for i, c in enumerate(cells):
        if c in _BLACK_CHARS:
            black |= 1 << i
        elif c in _WHITE_CHARS:
            white |= 1 << i
        elif c not in _EMPTY_CHARS:
            raise ValueError(
                f"bad board {board!r}: character {c!r} at square {SQUARE_NAMES[i]} "
                "(use X for black, O for white, - for empty)"
            )
    return black, white


def parse_side(to_move: str) -> str:
    """``"X"`` or ``"O"`` for a side given as X/O, B/W or black/white (any case)."""
    side = _SIDES.get(to_move.strip().lower()) if isinstance(to_move, str) else None
    if side is None:
        raise ValueError(f"bad side to move {to_move!r}: expected 'X' (black) or 'O' (white)")
    return side


def format_board(black: int, white: int) -> str:
    """64-character board string of two bitboards."""
    black = check_int("black bitboard", black, 0, 2**64 - 1)
    white = check_int("white bitboard", white, 0, 2**64 - 1)
    if black & white:
        raise ValueError("bad bitboards: black and white share squares")
    return "".join(
        "X" if black >> i & 1 else "O" if white >> i & 1 else "-" for i in range(64)
    )


def moves_to_list(moves: str) -> list[str]:
    """Split a move string such as ``"f5d6c3"`` (optionally with spaces) into square names."""
    if not isinstance(moves, str):
        raise ValueError(f"bad move string {moves!r}: expected a string such as 'f5d6c3'")
    text = re.sub(r"[\s,]+", "", moves).lower()
    if len(text) % 2:
        raise ValueError(f"bad move string {moves!r}: odd number of characters")
    out = [text[i : i + 2] for i in range(0, len(text), 2)]
    for m in out:
        if m not in SQUARE_NAMES and m not in _PASS_NAMES:
            raise ValueError(f"bad move string {moves!r}: {m!r} is not a square")
    return out


def _side_bitboards(board: str, to_move: str) -> tuple[np.uint64, np.uint64]:
    black, white = parse_board(board)
    if parse_side(to_move) == "X":
        return np.uint64(black), np.uint64(white)
    return np.uint64(white), np.uint64(black)


def _mask_to_names(mask) -> list[str]:
    mask = int(mask)
    return [SQUARE_NAMES[i] for i in range(64) if mask >> i & 1]


def legal_moves(board: str, to_move: str) -> list[str]:
    """Legal moves of ``to_move`` on ``board``, sorted by square index; ``[]`` to pass.

    Examples
    --------
    >>> legal_moves(START_BOARD, "X")
    ['d3', 'c4', 'f5', 'e6']
    """
    p, o = _side_bitboards(board, to_move)
    return _mask_to_names(core.move_mask(p, o))


def perft(board: str, to_move: str, depth: int) -> int:
    """Leaves of the ``depth``-ply game tree (a pass is a ply; a finished game is one leaf).

    Examples
    --------
    >>> perft(START_BOARD, "X", 4)
    244
    """
    depth = check_int("perft depth", depth, 0, MAX_GAME_PLIES)
    p, o = _side_bitboards(board, to_move)
    return int(core.perft(p, o, depth))


class Board:
    """An Othello position with the side to move and a move stack, over the numba core.

    Parameters
    ----------
    board : str, optional
        64-character board string (default: the standard start position).
    to_move : str
        ``"X"`` (black, default) or ``"O"`` (white).

    Examples
    --------
    >>> b = Board()
    >>> b.push("f5"); b.legal_moves
    ['f4', 'd6', 'f6']
    """

    def __init__(self, board: str | None = None, to_move: str = "X"):
        black, white = parse_board(START_BOARD if board is None else board)
        self.black = black
        self.white = white
        self.turn = parse_side(to_move)
        self.move_stack: list[str] = []
        self._history: list[tuple[int, int, str]] = []

    # --- the side to move's view --------------------------------------------------------
    def _po(self) -> tuple[np.uint64, np.uint64]:
        if self.turn == "X":
            return np.uint64(self.black), np.uint64(self.white)
        return np.uint64(self.white), np.uint64(self.black)

    @property
    def legal_moves(self) -> list[str]:
        """Legal moves of the side to move, sorted by square index (``[]`` = must pass)."""
        return _mask_to_names(core.move_mask(*self._po()))

    def move_mask(self) -> int:
        """Legal moves of the side to move as a bitboard (Python int)."""
        return int(core.move_mask(*self._po()))

    def must_pass(self) -> bool:
        """True when the side to move has no move but the opponent has one."""
        return bool(core.must_pass(*self._po()))

    def is_game_over(self) -> bool:
        """True when neither side can move."""
        return bool(core.is_game_over(*self._po()))

    def is_legal(self, move) -> bool:
        """True when ``move`` (a square or ``"pass"``) is legal for the side to move."""
        if isinstance(move, str) and move.strip().lower() in _PASS_NAMES:
            return self.must_pass()
        try:
            sq = parse_square(move)
        except ValueError:
            return False
        return bool(self.move_mask() >> sq & 1)

    def flips(self, move) -> list[str]:
        """Squares that ``move`` would flip (ValueError if it is illegal)."""
        sq = self._legal_square(move)
        return _mask_to_names(core.flips(*self._po(), sq))

    def _legal_square(self, move) -> int:
        sq = parse_square(move)
        if not self.move_mask() >> sq & 1:
            side = "black (X)" if self.turn == "X" else "white (O)"
            legal = self.legal_moves
            if legal:
                why = f"legal moves: {', '.join(legal)}"
            elif self.is_game_over():
                why = "the game is over"
            else:
                why = "the side to move must pass"
            raise ValueError(
                f"illegal move {square_name(sq)!r} for {side} on {self.board_string()!r}; {why}"
            )
        return sq

    # --- moves --------------------------------------------------------------------------
    def push(self, move) -> None:
        """Play ``move`` (square name, index, or ``"pass"`` when the side must pass)."""
        if isinstance(move, str) and move.strip().lower() in _PASS_NAMES:
            if not self.must_pass():
                reason = "the game is over" if self.is_game_over() else f"legal moves: {self.legal_moves}"
                raise ValueError(f"illegal pass: {reason}")
            self._history.append((self.black, self.white, self.turn))
            self.move_stack.append("pass")
            self.turn = "O" if self.turn == "X" else "X"
            return
        sq = self._legal_square(move)
        p, o = self._po()
        p2, o2 = core.make_move(p, o, sq)
        self._history.append((self.black, self.white, self.turn))
        self.move_stack.append(square_name(sq))
        if self.turn == "X":
            self.black, self.white, self.turn = int(p2), int(o2), "O"
        else:
            self.white, self.black, self.turn = int(p2), int(o2), "X"

    def pop(self) -> str:
        """Undo the last move (or pass) and return it."""
        if not self._history:
            raise IndexError("pop from an empty move stack")
        self.black, self.white, self.turn = self._history.pop()
        return self.move_stack.pop()

    def play(self, moves) -> None:
        """Play a sequence (``"f5d6c3"`` or a list); passes may be given or left implicit.

        As in WTHOR records, when the side to move has no legal move (and the game is not
        over) it passes automatically before the next move is played.
        """
        if not isinstance(moves, (str, list, tuple)):
            raise ValueError(f"bad moves {moves!r}: expected a string such as 'f5d6c3' or a list of moves")
        seq = moves_to_list(moves) if isinstance(moves, str) else list(moves)
        for i, m in enumerate(seq):
            if isinstance(m, str) and m.strip().lower() in _PASS_NAMES:
                self.push("pass")
                continue
            if self.must_pass():
                self.push("pass")
            try:
                self.push(m)
            except ValueError as err:
                raise ValueError(f"move {i + 1} ({m!r}) of {moves!r}: {err}") from None

    # --- counts and score ----------------------------------------------------------------
    def count(self) -> tuple[int, int]:
        """Black and white disc counts."""
        return self.black.bit_count(), self.white.bit_count()

    @property
    def empties(self) -> int:
        """Number of empty squares."""
        return 64 - (self.black | self.white).bit_count()

    def score(self, empties_to_winner: bool = True) -> int:
        """Black minus white discs; with ``empties_to_winner`` the empties go to the leader.

        This is the final score when the game is over (World Othello Federation rule).
        """
        return int(core.final_score(np.uint64(self.black), np.uint64(self.white), empties_to_winner))

    def winner(self) -> str | None:
        """``"X"``, ``"O"`` or ``None`` (draw) of a finished game; ValueError if not finished."""
        if not self.is_game_over():
            raise ValueError("the game is not over")
        s = self.score()
        return "X" if s > 0 else "O" if s < 0 else None

    # --- analysis ------------------------------------------------------------------------
    def perft(self, depth: int) -> int:
        """Leaf count of the ``depth``-ply tree from this position."""
        return perft(self.board_string(), self.turn, depth)

    def solve(self, empties_to_winner: bool = True) -> tuple[int, str | None]:
        """Exact score (side to move minus opponent) and a best move; see :func:`gamelib.games.othello.solve`."""
        return solve(self.board_string(), self.turn, empties_to_winner)

    # --- text -----------------------------------------------------------------------------
    def board_string(self) -> str:
        """The 64-character board string (X black, O white, - empty)."""
        return format_board(self.black, self.white)

    def copy(self) -> "Board":
        """An independent copy, move stack included."""
        b = Board.__new__(Board)
        b.black, b.white, b.turn = self.black, self.white, self.turn
        b.move_stack = list(self.move_stack)
        b._history = list(self._history)
        return b

    def _repr_svg_(self) -> str:
        """A board diagram for Jupyter; options: :func:`gamelib.games.othello.svg.board_svg`."""
        return board_svg(self).svg

    def __eq__(self, other) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self.black, self.white, self.turn) == (other.black, other.white, other.turn)

    def __hash__(self) -> int:
        return hash((self.black, self.white, self.turn))

    def __repr__(self) -> str:
        return f"Board({self.board_string()!r}, {self.turn!r})"

    def __str__(self) -> str:
        s = self.board_string()
        lines = ["  a b c d e f g h"]
        for r in range(8):
            lines.append(f"{r + 1} " + " ".join(s[8 * r : 8 * r + 8]))
        b, w = self.count()
        lines.append(f"X: {b}  O: {w}  to move: {self.turn}")
        return "\n".join(lines)


class SolveResult(tuple):
    """``(score, move)`` with the node count as an attribute."""

    nodes: int


def solve(board: str, to_move: str, empties_to_winner: bool = True) -> tuple[int, str | None]:
    """Exact final disc difference under perfect play and a best move.

    Parameters
    ----------
    board : str
        64-character board string (``X`` black, ``O`` white, ``-`` empty; a1 first).
    to_move : str
        ``"X"`` or ``"O"``.
    empties_to_winner : bool
        True (World Othello Federation rule): empty squares at the end go to the winner.
        False: the plain disc difference (the convention of the FFO test files).

    Returns
    -------
    (int, str or None)
        The side to move's discs minus the opponent's at the end of perfect play, and a
        move achieving it (``None`` when the side must pass or the game is over).

    Examples
    --------
    >>> solve("XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXO-", "O")
    (-64, None)
    """
    black, white = parse_board(board)
    side = parse_side(to_move)
    p, o = (black, white) if side == "X" else (white, black)
    empties = 64 - (black | white).bit_count()
    bits = max(10, min(TT_BITS, empties))
    v, sq, nodes = solve_bitboards(np.uint64(p), np.uint64(o), bool(empties_to_winner), bits)
    result = SolveResult((int(v), None if sq < 0 else square_name(int(sq))))
    result.nodes = int(nodes)
    return result

"""A Pythonic 5×5 shogi position over the numba core, and the string-level API.

:class:`Position` (alias :class:`Board`) is in the style of python-chess's ``Board``: make it from
an SFEN, read :attr:`Position.legal_moves`, :meth:`Position.push_usi` and :meth:`Position.pop`
moves, ask :meth:`Position.is_check` and :meth:`Position.outcome`, print it. Its
:attr:`Position.state` is the live :mod:`~gamelib.games.minishogi.core` state array, for numba code.

The functions :func:`legal_moves`, :func:`perft` and :func:`outcome` take SFEN strings and USI
moves; they are the stable API that code outside the project calls.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ...runtime.checks import check_int
from . import core
from . import rules as R
from .notation import format_sfen, format_usi, parse_sfen, parse_square, parse_usi, usi_to_move
from ...diagrams import Diagram, row
from .svg import position_svg

__all__ = ["Position", "Board", "legal_moves", "perft", "outcome", "RESULT_NAMES", "game_strip"]

#: ``core.RESULT_*`` code -> the name :func:`outcome` returns.
RESULT_NAMES = {
    core.RESULT_NONE: None,
    core.RESULT_SENTE_WINS: "sente",
    core.RESULT_GOTE_WINS: "gote",
    core.RESULT_DRAW: "draw",
}
_HAND_DISPLAY_ORDER = (R.ROOK, R.BISHOP, R.GOLD, R.SILVER, R.PAWN)


def _check_max_plies(max_plies):
    if max_plies is None:
        return 0
    return check_int("max_plies (or None)", max_plies, 1, core.MAX_MOVE_NUMBER)


class Position:
    """A 5×5 shogi position with its move history.

    Parameters
    ----------
    sfen : str
        Start position (default: the standard one).
    max_plies : int or None
        The draw cap used by :meth:`outcome`: a game that has lasted this many plies (counted
        from move 1 through the SFEN move number) is a draw. ``None``: no cap.

    Examples
    --------
    >>> pos = Position()
    >>> pos.push_usi("2e3d")
    >>> pos.sfen()
    'rbsgk/4p/5/P1B2/KGS1R w - 2'
    """

    def __init__(self, sfen: str = R.START_SFEN, *, max_plies: int | None = R.DEFAULT_MAX_PLIES):
        board, hands, side, move_number = parse_sfen(sfen)
        self._cap = _check_max_plies(max_plies)
        self._state = core.new_state(board, hands, side, move_number, capacity=64)
        self._buf = np.empty(core.MAX_MOVES, dtype=np.int32)
        self.move_stack: list[str] = []

    @classmethod
    def from_sfen(cls, sfen: str, *, max_plies: int | None = R.DEFAULT_MAX_PLIES) -> Position:
        """The position described by ``sfen`` (``ValueError`` if malformed or impossible)."""
        return cls(sfen, max_plies=max_plies)

    # ---------------------------------------------------------------- reading
    @property
    def state(self) -> np.ndarray:
        """The live :mod:`~gamelib.games.minishogi.core` state array (board, hands, history)."""
        return self._state

    @property
    def max_plies(self) -> int | None:
        """The draw cap of :meth:`outcome` (``None``: no cap)."""
        return self._cap or None

    @property
    def turn(self) -> str:
        """Side to move: ``"sente"`` or ``"gote"``."""
        return R.SIDE_NAMES[int(self._state[core.STM])]

    @property
    def ply(self) -> int:
        """Number of moves pushed since the position was made."""
        return int(self._state[core.PLY])

    @property
    def move_number(self) -> int:
        """SFEN move number of the current position (plies of the game + 1)."""
        return int(self._state[core.MOVE_NUMBER] + self._state[core.PLY])

    def sfen(self) -> str:
        """SFEN of the current position."""
        return format_sfen(self._state)

    def zobrist_hash(self) -> int:
        """64-bit Zobrist hash of board, hands and side to move (as a signed int)."""
        return int(self._state[core.HASH])

    def piece_at(self, square: str) -> str | None:
        """Piece on a USI square (``"+B"``, ``"k"``, ...), ``None`` if empty."""
        code = int(self._state[parse_square(square)])
        if code == 0:
            return None
        t, side = code & 15, code >> 4
        letter = "+" + R.PIECE_LETTERS[R.UNPROMOTED[t]] if t in R.UNPROMOTED else R.PIECE_LETTERS[t]
        return letter if side == R.SENTE else letter.lower()

    def hand(self, side: str) -> dict[str, int]:
        """Pieces in a side's hand, e.g. ``{"P": 1, "S": 0, "G": 0, "B": 2, "R": 0}``."""
        if side not in R.SIDE_NAMES:
            raise ValueError(f"side must be 'sente' or 'gote', got {side!r}")
        c = R.SIDE_NAMES.index(side)
        return {R.PIECE_LETTERS[t]: int(self._state[core.HAND + 5 * c + t - 1]) for t in R.HAND_TYPES}

    # ---------------------------------------------------------------- moves
    def legal_move_codes(self) -> np.ndarray:
        """The legal moves as :mod:`~gamelib.games.minishogi.core` integer moves."""
        n = core.gen_moves(self._state, self._buf, 0, False)
        return self._buf[:n].astype(np.int64)

    @property
    def legal_moves(self) -> list[str]:
        """The legal moves in USI notation (pawn-drop mates excluded)."""
        return [format_usi(m) for m in self.legal_move_codes()]

    def is_legal(self, usi: str) -> bool:
        """True if ``usi`` is a legal move here (``ValueError`` if it is not USI at all)."""
        key = parse_usi(usi)
        return any((int(m) & 0x7FF) == key for m in self.legal_move_codes())

    def _grow(self) -> None:
        need = core.HIST + core.HIST_STRIDE * (self.ply + 2)
        if need > self._state.shape[0]:
            bigger = np.zeros(core.HIST + core.HIST_STRIDE * (2 * self.ply + 64), dtype=np.int64)
            bigger[: self._state.shape[0]] = self._state
            self._state = bigger

    def push_usi(self, usi: str) -> None:
        """Play a USI move (``ValueError`` if malformed or illegal)."""
        m = usi_to_move(self._state, usi, self._buf)
        self._grow()
        core.make_move(self._state, m)
        self.move_stack.append(format_usi(m))

    def push(self, move: int) -> None:
        """Play an integer move (``ValueError`` if it is not a move code or not legal here)."""
        self.push_usi(format_usi(move))

    def pop(self) -> str:
        """Take back the last move and return it (USI); ``IndexError`` if there is none."""
        if not self.move_stack:
            raise IndexError("pop from a position with no moves played")
        core.unmake_move(self._state)
        return self.move_stack.pop()

    def peek(self) -> str:
        """The last move played (USI); ``IndexError`` if there is none."""
        if not self.move_stack:
            raise IndexError("peek at a position with no moves played")
        return self.move_stack[-1]

    # ---------------------------------------------------------------- status
    def is_check(self) -> bool:
        """True if the side to move is in check."""
        return bool(core.in_check(self._state))

    def gives_check(self, usi: str) -> bool:
        """True if legal move ``usi`` checks the opponent."""
        m = usi_to_move(self._state, usi, self._buf)
        self._grow()
        return bool(core.gives_check(self._state, m))

    def is_checkmate(self) -> bool:
        """True if the side to move is in check and has no legal move."""
        return self.is_check() and not core.has_legal_move(self._state, self._buf, 0)

    def is_stalemate(self) -> bool:
        """True if the side to move is not in check and has no legal move (a loss in shogi)."""
        return not self.is_check() and not core.has_legal_move(self._state, self._buf, 0)

    def is_repetition(self) -> bool:
        """True if the current position ends the game by the repetition rule."""
        return core.repetition_result(self._state) != core.RESULT_NONE

    def outcome(self) -> str | None:
        """``"sente"`` or ``"gote"`` (the winner), ``"draw"``, or ``None`` if the game goes on.

        By the rules (no legal move loses; the fourth repetition loses for sente or for a side
        that checked perpetually) and then the draw cap :attr:`max_plies`.
        """
        return RESULT_NAMES[int(core.game_result(self._state, self._buf, 0, self._cap))]

    def is_game_over(self) -> bool:
        """True if :meth:`outcome` is not ``None``."""
        return self.outcome() is not None

    # ---------------------------------------------------------------- copying, printing
    def copy(self) -> Position:
        """An independent copy, history included."""
        other = object.__new__(Position)
        other._cap = self._cap
        other._state = self._state.copy()
        other._buf = np.empty(core.MAX_MOVES, dtype=np.int32)
        other.move_stack = list(self.move_stack)
        return other

    def __repr__(self) -> str:
        return f"Position({self.sfen()!r})"

    def _repr_svg_(self) -> str:
        """A board diagram for Jupyter; options: :func:`gamelib.games.minishogi.svg.position_svg`."""
        return position_svg(self).svg

    def __str__(self) -> str:
        def hand_text(c: int) -> str:
            items = []
            for t in _HAND_DISPLAY_ORDER:
                n = int(self._state[core.HAND + 5 * c + t - 1])
                if n:
                    items.append((f"{n}" if n > 1 else "") + R.PIECE_LETTERS[t])
            return " ".join(items) or "-"

        lines = [f"gote hand: {hand_text(R.GOTE)}", "    " + "  ".join(str(R.FILES - c) for c in range(R.FILES))]
        lines.append("  +" + "-" * (3 * R.FILES + 1) + "+")
        for r in range(R.RANKS):
            cells = []
            for c in range(R.FILES):
                code = int(self._state[r * R.FILES + c])
                if code == 0:
                    cells.append("  .")
                else:
                    t = code & 15
                    name = "+" + R.PIECE_LETTERS[R.UNPROMOTED[t]] if t in R.UNPROMOTED else R.PIECE_LETTERS[t]
                    cells.append(f"{name if code >> 4 == R.SENTE else name.lower():>3}")
            lines.append("  |" + "".join(cells) + " | " + "abcde"[r])
        lines.append("  +" + "-" * (3 * R.FILES + 1) + "+")
        lines.append(f"sente hand: {hand_text(R.SENTE)}")
        status = f"{self.turn} to move, move {self.move_number}"
        if self.is_check():
            status += ", in check"
        lines.append(status)
        return "\n".join(lines)


Board = Position


# ----------------------------------------------------------------------------- string API
def legal_moves(sfen: str) -> list[str]:
    """Legal moves (USI) of the position ``sfen``; pawn-drop mates are not legal.

    >>> sorted(legal_moves("rbsgk/4p/5/P4/KGSBR b - 1"))[:3]
    ['1e1b', '1e1c', '1e1d']
    """
    return Position(sfen).legal_moves


def perft(sfen: str, depth: int) -> int:
    """Number of legal move sequences of ``depth`` plies from ``sfen`` (no game-end truncation).

    >>> perft("rbsgk/4p/5/P4/KGSBR b - 1", 3)
    2512
    """
    depth = check_int("perft depth", depth, 0, 64)  # 64: far beyond any feasible count
    pos = Position(sfen)
    return int(core.perft(pos.state, depth))


def outcome(sfen: str, usi_moves: Iterable[str], max_plies: int | None = R.DEFAULT_MAX_PLIES) -> str | None:
    """Play ``usi_moves`` from ``sfen``; the game's result at the final position, or ``None``.

    Returns ``"sente"`` or ``"gote"`` (the winner) if the final position ends the game by the
    rules (no legal move; fourth repetition, with the perpetual-check exception), ``"draw"`` if
    both sides checked perpetually or the game has lasted ``max_plies`` plies (our cap;
    ``None`` disables it), else ``None``.

    Raises
    ------
    ValueError
        If the SFEN is malformed, or a move is malformed or illegal (the message names the move
        and its index in ``usi_moves``).
    """
    if isinstance(usi_moves, str) or not isinstance(usi_moves, Iterable):
        raise ValueError(f"usi_moves must be a list of USI moves, got {type(usi_moves).__name__}")
    pos = Position(sfen, max_plies=max_plies)
    for i, usi in enumerate(usi_moves):
        try:
            pos.push_usi(usi)
        except ValueError as err:
            raise ValueError(f"{err} (usi_moves[{i}])") from None
    return pos.outcome()


def game_strip(moves, plies, sfen: str = R.START_SFEN, *, letters: bool = False,
               size: float = 32, captions=None) -> Diagram:
    """The positions of a game after the given numbers of plies, side by side (each with its
    last move shaded), captioned ``"ply k: <move>"`` unless ``captions`` are given.

    ``moves`` are USI strings or :mod:`~gamelib.games.minishogi.core` integer moves from ``sfen``;
    ``plies`` are non-decreasing numbers between 0 and ``len(moves)``.
    """
    moves, plies = list(moves), [int(p) for p in plies]
    if not plies:
        raise ValueError("game_strip: no plies to show")
    if any(b < a for a, b in zip(plies, plies[1:])) or plies[0] < 0 or plies[-1] > len(moves):
        raise ValueError(f"game_strip: plies must be non-decreasing numbers in 0..{len(moves)} "
                         f"(the game's length), got {plies}")
    pos = Position(sfen, max_plies=None)
    diagrams, names = [], []
    for p in plies:
        while pos.ply < p:
            m = moves[pos.ply]
            pos.push_usi(m) if isinstance(m, str) else pos.push(int(m))
        diagrams.append(position_svg(pos, letters=letters, size=size))
        names.append(f"ply {p}: {pos.move_stack[-1]}" if p else "start")
    return row(diagrams, captions=names if captions is None else captions)

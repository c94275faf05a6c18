"""Othello game records in the field's two text formats: the move transcript and GGF.

* **Transcript** -- the squares played, run together: ``f5d6c3d3c4...`` (column ``a``..``h``,
  row ``1``..``8`` from the top; passes left out, as in WTHOR and the usual notation: a side
  with no legal move passes implicitly). :func:`format_transcript` writes one from a move list,
  :func:`parse_transcript` replays one from the start position and returns the moves with the
  passes made explicit.
* **GGF** -- the Generic Game Format of Buro's Generic Game Server, one game per
  ``(; ... ;)``: properties ``GM[Othello]``, ``PC`` place, ``PB``/``PW`` players, ``TY[8]``
  (8×8), ``RE`` the result for black (``+34.000`` black by 34 discs, ``-2.000``, ``0.000``;
  a flag ``:r`` for a resignation or a forfeit, ``:t`` for a time-out), ``BO`` the start
  position (``8``, eight rows of ``-`` empty, ``*`` black, ``O`` white from row 1, then the side
  to move ``*`` or ``O``), then ``B[f5]``/``W[d6]`` moves in order (a pass is ``PA``; an
  evaluation and a time after ``/`` are read and dropped). :func:`format_ggf` writes a
  :class:`GgfGame`, :func:`parse_ggf` reads every game of a text.

Every reader replays the moves by our rules (:class:`gamelib.games.othello.Board`) and refuses a
record with one ``ValueError`` naming the problem (the property, the move number, the square).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from .board import START_BOARD, Board

__all__ = ["format_transcript", "parse_transcript", "GgfGame", "format_ggf", "parse_ggf", "ggf_result"]

_PASS = "pass"
_GGF_PASSES = frozenset({"pa", "pass"})
_GGF_DISCS = {"X": "*", "O": "O", "-": "-"}
_BOARD_OF_GGF = {"*": "X", "O": "O", "o": "O", "-": "-"}
_SIDE_OF_GGF = {"*": "X", "O": "O", "o": "O"}
_RESULT = re.compile(r"^([+-]?\d+(?:\.\d+)?)(?::([rts]))?$")
_PROPERTY = re.compile(r"\s*([A-Z]+)\[([^\]]*)\]")


def format_transcript(moves: Sequence[str]) -> str:
    """``"f5d6c3..."``: the squares of ``moves`` (``"pass"`` entries left out)."""
    return "".join(m for m in moves if m != _PASS)


def parse_transcript(text: str, board: str | None = None, to_move: str = "X") -> list[str]:
    """The moves of a transcript replayed from ``board`` (default: the start position), with
    the passes made explicit (``ValueError`` naming the first bad or illegal move)."""
    b = Board(board, to_move)
    try:
        b.play(text)
    except ValueError as err:
        raise ValueError(f"bad transcript: {err}") from None
    return list(b.move_stack)


@dataclass(frozen=True)
class GgfGame:
    """One Othello game of a GGF record.

    Attributes
    ----------
    black, white : str
        The players (``PB``, ``PW``).
    moves : tuple of str
        Squares and ``"pass"`` in the order played, from ``board``.
    result : str
        ``RE`` as written (``""`` if absent), see :func:`ggf_result`.
    board, to_move : str
        The start position (``BO``) as a board string and ``"X"``/``"O"``.
    place : str
        ``PC`` (``""`` if absent).
    """

    black: str
    white: str
    moves: tuple
    result: str = ""
    board: str = START_BOARD
    to_move: str = "X"
    place: str = ""

    def final_board(self) -> Board:
        """The position after every move (checked by our rules)."""
        b = Board(self.board, self.to_move)
        for i, m in enumerate(self.moves):
            try:
                b.push(m)
            except ValueError as err:
                raise ValueError(f"move {i + 1} ({m!r}): {err}") from None
        return b


def ggf_result(score: int, flag: str = "") -> str:
    """``RE`` text: black's disc margin with three decimals, and ``:r``/``:t`` for a game lost by
    resignation (or forfeit) or on time (``score`` then +-64 for the winner)."""
    if flag not in ("", "r", "t", "s"):
        raise ValueError(f"GGF result flag must be '', 'r', 't' or 's', got {flag!r}")
    return f"{score:+.3f}".replace("+0.000", "0.000") + (f":{flag}" if flag else "")


def _escape(text: str) -> str:
    if "]" in text or "[" in text or "\n" in text:
        raise ValueError(f"a GGF property value cannot hold '[', ']' or a line break: {text!r}")
    return text


def format_ggf(game: GgfGame) -> str:
    """One line ``(;GM[Othello]PC[..]PB[..]PW[..]TY[8]RE[..]BO[..]B[f5]W[d6]...;)``; the moves
    are checked by our rules first."""
    game.final_board()
    board = game.board
    rows = " ".join("".join(_GGF_DISCS[c] for c in board[8 * r: 8 * r + 8]) for r in range(8))
    head = (f"(;GM[Othello]PC[{_escape(game.place)}]PB[{_escape(game.black)}]PW[{_escape(game.white)}]TY[8]"
            + (f"RE[{_escape(game.result)}]" if game.result else "")
            + f"BO[8 {rows} {_GGF_DISCS[game.to_move]}]")
    side, moves = game.to_move, []
    for m in game.moves:
        moves.append(f"{'B' if side == 'X' else 'W'}[{'PA' if m == _PASS else m}]")
        side = "O" if side == "X" else "X"
    return head + "".join(moves) + ";)"


def parse_ggf(text: str) -> list[GgfGame]:
    """Every game ``(; ... ;)`` of a GGF text (``ValueError`` naming the game and the problem:
    a property that cannot be read, another game than 8×8 Othello, a bad ``BO`` or ``RE``, a
    move by the wrong colour, an illegal move, a score that the final board contradicts)."""
    games, pos = [], 0
    while True:
        start = text.find("(;", pos)
        if start < 0:
            break
        end = text.find(";)", start + 2)
        if end < 0:
            raise ValueError(f"GGF game {len(games) + 1}: no ';)' closes the '(;' at character {start}")
        try:
            games.append(_parse_game(text[start + 2:end]))
        except ValueError as err:
            raise ValueError(f"GGF game {len(games) + 1}: {err}") from None
        pos = end + 2
    if not games:
        raise ValueError("no GGF game '(; ... ;)' in the text")
    return games


def _properties(body: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(body.rstrip()):
        match = _PROPERTY.match(body, pos)
        if match is None:
            raise ValueError(f"cannot read a property KEY[value] at {body[pos:pos + 30].strip()!r}")
        out.append((match.group(1), match.group(2)))
        pos = match.end()
    return out


def _parse_board(value: str) -> tuple[str, str]:
    words = value.split()
    if len(words) != 10 or words[0] != "8" or any(len(w) != 8 for w in words[1:9]) or words[9] not in _SIDE_OF_GGF:
        raise ValueError(f"BO[{value}] is not '8', eight rows of eight squares (-, *, O) and the side "
                         f"to move (* or O)")
    cells = "".join(words[1:9])
    bad = sorted(set(cells) - set(_BOARD_OF_GGF))
    if bad:
        raise ValueError(f"BO[{value}] has the square character(s) {bad} (use -, * and O)")
    return "".join(_BOARD_OF_GGF[c] for c in cells), _SIDE_OF_GGF[words[9]]


def _parse_game(body: str) -> GgfGame:
    props: dict[str, str] = {}
    moves: list[tuple[str, str]] = []
    for key, value in _properties(body):
        if key in ("B", "W"):
            moves.append((key, value.split("/")[0].strip().lower()))
        else:
            props.setdefault(key, value)
    if props.get("GM", "").lower() != "othello":
        raise ValueError(f"GM[{props.get('GM', '')}] is not GM[Othello]")
    if props.get("TY", "8").strip() != "8":
        raise ValueError(f"TY[{props['TY']}] is not an 8x8 game of standard Othello (TY[8])")
    board, to_move = _parse_board(props["BO"]) if "BO" in props else (START_BOARD, "X")
    result = props.get("RE", "").strip()
    match = _RESULT.match(result)
    if result and (match is None or abs(float(match.group(1))) > 64):
        raise ValueError(f"RE[{result}] is not black's disc margin in [-64, 64] with an optional :r, :t or :s")
    b = Board(board, to_move)
    for i, (colour, move) in enumerate(moves):
        want = "B" if b.turn == "X" else "W"
        if colour != want:
            raise ValueError(f"move {i + 1} is {colour}[{move}] but {'black' if want == 'B' else 'white'} is to move")
        try:
            b.push(_PASS if move in _GGF_PASSES else move)
        except ValueError as err:
            raise ValueError(f"move {i + 1} {colour}[{move}]: {err}") from None
    if match is not None and match.group(2) in (None, "s") and b.is_game_over() and float(match.group(1)) != b.score():
        raise ValueError(f"RE[{result}] but the final board scores {b.score():+d} for black")
    return GgfGame(props.get("PB", ""), props.get("PW", ""), tuple(b.move_stack), result, board, to_move,
                   props.get("PC", ""))

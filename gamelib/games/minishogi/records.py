"""Game records of 5×5 shogi: a compact text format, its writer, and a tolerant reader.

The Bonanza method learns from expert game records. There is no public database of 5×5 shogi
games, so the book generates one (:mod:`gamelib.play.expert_games`); users may bring their
own. This module reads and writes them.

The format (``gamelib-records 1``)
----------------------------------
UTF-8 text, one game per line, four fields separated by ``|`` (spaces around it are ignored)::

    # gamelib-records 1: SFEN | USI moves | result | reason
    rbsgk/4p/5/P4/KGSBR b - 1 | 2e3d 4a3b 3d2c | sente | checkmate

* **SFEN** of the start position, 3 or 4 fields (``startpos`` stands for the standard start
  ``rbsgk/4p/5/P4/KGSBR b - 1``). The move number places the game on the game-length cap.
* **USI moves** separated by single spaces (may be empty), e.g. ``2e3d``, ``5b5a+``, ``P*3c``.
* **result**: ``sente`` (the first player, ``b``, won), ``gote``, ``draw``, or ``*`` (unknown).
  ``1-0``, ``0-1`` and ``1/2-1/2`` are accepted as synonyms when reading.
* **reason** (optional): free text without ``|`` (``checkmate``, ``repetition``, ``max plies``,
  ...).

Lines starting with ``#`` and blank lines are ignored. Every move must be legal in the position
it is played in, and no move may follow the end of the game by the rules (no legal move, the
repetition rule); the game-length cap is not enforced (records from elsewhere may be longer).

Other inputs the reader accepts
-------------------------------
So that users can feed their own games, :func:`read_records` also reads, in the same file:

* **USI position lines** as an engine receives them: ``position startpos moves 2e3d 4a3b``,
  ``position sfen <sfen> moves ...`` (``position`` may be left out; ``moves ...`` may be
  missing); result unknown.
* **Bare USI move lists** on one line (``2e3d 4a3b 3d2c``), from the standard start; result
  unknown.
* **CSA/KIF-like blocks**: one move per line, optionally numbered (``1 2e3d``, ``12. 4a3b``) or
  with a CSA side sign (``+2e3d``, ``-4a3b``), anything after the move ignored (times,
  comments); an optional header line ``sfen <sfen>`` or ``startpos`` before the first move; an
  optional last line ``result <sente|gote|draw|*>`` (or ``%TORYO``: the side to move resigned);
  the game ends at a blank line, a ``result``/``%`` line or the end of the file. Comment lines
  starting with ``'`` (CSA) or ``*`` (KIF) and CSA header lines (``V2``, ``N+``, ``N-``,
  ``$...``) are skipped.

A malformed record raises ``ValueError`` naming the file, the line and the problem, e.g.
``games.txt, line 12: illegal move '5e5d' (move 7) in position 'rb1gk/...'``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from . import core
from . import rules as R
from .notation import format_sfen, parse_sfen, usi_to_move

__all__ = ["FORMAT_NAME", "RESULTS", "RecordedGame", "format_record", "format_records",
           "write_records", "parse_records", "read_records", "replay"]

#: First line of files written by :func:`write_records`.
FORMAT_NAME = "gamelib-records 1"
#: Results of a game: the first player (sente) won, the second (gote) won, a draw, or unknown.
RESULTS = ("sente", "gote", "draw", None)
_RESULT_TEXT = {"sente": "sente", "gote": "gote", "draw": "draw", "*": None, "1-0": "sente",
                "0-1": "gote", "1/2-1/2": "draw", "?": None, "unknown": None}
_USI_MOVE = r"(?:[1-5][a-e][1-5][a-e]\+?|[PSGBR]\*[1-5][a-e])"
_USI_RE = re.compile(_USI_MOVE)
_MOVE_LINE = re.compile(r"^\s*(?:\d+[.:]?\s+)?([+-])?(" + _USI_MOVE + r")(?:\s.*)?$")
_SKIP_LINE = re.compile(r"^\s*(?:['*$]|V\d|N[+-])")


@dataclass(frozen=True)
class RecordedGame:
    """One recorded game.

    Attributes
    ----------
    start_sfen : str
        Start position (4-field SFEN).
    moves : tuple of str
        USI moves, all legal.
    result : str or None
        ``"sente"``, ``"gote"``, ``"draw"`` or None (unknown).
    reason : str
        Why the game ended (free text, may be empty).
    source : str
        Where it was read (``"file, line N"``), empty for games made in memory.
    """

    start_sfen: str
    moves: tuple = field(repr=False)
    result: str | None = None
    reason: str = ""
    source: str = field(default="", compare=False)

    def __post_init__(self):
        if self.result not in RESULTS:
            raise ValueError(f"result must be one of {RESULTS}, got {self.result!r}")
        if "|" in self.reason or "\n" in self.reason:
            raise ValueError(f"reason may not contain '|' or a line break: {self.reason!r}")
        object.__setattr__(self, "moves", tuple(self.moves))

    @property
    def plies(self) -> int:
        return len(self.moves)

    @classmethod
    def from_game(cls, game) -> "RecordedGame":
        """From a :class:`gamelib.play.shogi.GameRecord`."""
        return cls(game.start_sfen, tuple(game.moves), game.winner or "draw", game.reason)


def _normal_sfen(sfen: str) -> str:
    board, hands, side, number = parse_sfen(sfen)
    return format_sfen(core.new_state(board, hands, side, number, capacity=0))


def replay(start_sfen: str, moves: Sequence[str], *, extra_plies: int = 0,
           check_end: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Play ``moves`` from ``start_sfen``.

    Returns
    -------
    state : int64 array
        The :mod:`gamelib.games.minishogi.core` state after the moves (history of the whole game,
        room for ``extra_plies`` more plies).
    codes : int32 array
        The engine's integer moves.

    Raises
    ------
    ValueError
        ``"illegal move 'x' (move k) in position '...'"`` or ``"move 'x' (move k) after the
        end of the game"``, k counted from 1.
    """
    board, hands, side, number = parse_sfen(start_sfen)
    s = core.new_state(board, hands, side, number, capacity=len(moves) + extra_plies + 2)
    buf = np.empty(core.MAX_MOVES, dtype=np.int32)
    codes = np.empty(len(moves), dtype=np.int32)
    for k, usi in enumerate(moves):
        if check_end and core.game_result(s, buf, 0, 0) != core.RESULT_NONE:
            raise ValueError(f"move {usi!r} (move {k + 1}) after the end of the game in "
                             f"position {format_sfen(s)!r}")
        try:
            m = usi_to_move(s, usi, buf)
        except ValueError as err:
            raise ValueError(f"{err} (move {k + 1})") from None
        codes[k] = m
        core.make_move(s, m)
    return s, codes


# ----------------------------------------------------------------------------- writing
def format_record(game: RecordedGame) -> str:
    """The record line of ``game`` (no line break)."""
    result = "*" if game.result is None else game.result
    line = f"{game.start_sfen} | {' '.join(game.moves)} | {result}"
    return line + (f" | {game.reason}" if game.reason else "")


def format_records(games: Iterable[RecordedGame], comments: Sequence[str] = ()) -> str:
    """A whole file: the format line, ``# comments`` (e.g. the settings), one line per game."""
    lines = [f"# {FORMAT_NAME}: SFEN | USI moves | result (sente/gote/draw/*) | reason"]
    for c in comments:
        lines += [f"# {part}" for part in str(c).splitlines()]
    lines += [format_record(g) for g in games]
    return "\n".join(lines) + "\n"


def write_records(path, games: Iterable[RecordedGame], comments: Sequence[str] = ()) -> Path:
    """Write ``games`` to ``path`` atomically in the ``gamelib-records 1`` format."""
    from gamelib.runtime.atomic import atomic_write_text

    return atomic_write_text(path, format_records(games, comments))


# ----------------------------------------------------------------------------- reading
def _result(text: str, where: str) -> str | None:
    key = text.strip()
    if key not in _RESULT_TEXT:
        raise ValueError(f"{where}: unknown result {key!r}; use sente, gote, draw or * "
                         f"(or 1-0, 0-1, 1/2-1/2)")
    return _RESULT_TEXT[key]


def _sfen_field(text: str, where: str) -> str:
    text = text.strip()
    if text == "startpos":
        return R.START_SFEN
    try:
        return _normal_sfen(text)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None


def _checked(start: str, moves: list[str], result, reason: str, where: str) -> RecordedGame:
    try:
        replay(start, moves)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None
    return RecordedGame(start, tuple(moves), result, reason, where)


def _canonical(line: str, where: str) -> RecordedGame:
    parts = [p.strip() for p in line.split("|")]
    if len(parts) not in (3, 4):
        raise ValueError(f"{where}: expected 3 or 4 fields 'SFEN | moves | result [| reason]' "
                         f"separated by '|', got {len(parts)}")
    start = _sfen_field(parts[0], where)
    moves = parts[1].split()
    for k, m in enumerate(moves):
        if not _USI_RE.fullmatch(m):
            raise ValueError(f"{where}: bad USI move {m!r} (move {k + 1})")
    return _checked(start, moves, _result(parts[2], where), parts[3] if len(parts) == 4 else "",
                    where)


def _usi_line(tokens: list[str], where: str) -> RecordedGame:
    if tokens[0] == "position":
        tokens = tokens[1:]
    if not tokens:
        raise ValueError(f"{where}: 'position' without 'startpos' or 'sfen'")
    if tokens[0] == "startpos":
        start, rest = R.START_SFEN, tokens[1:]
    elif tokens[0] == "sfen":
        end = tokens.index("moves") if "moves" in tokens else len(tokens)
        start, rest = _sfen_field(" ".join(tokens[1:end]), where), tokens[end:]
    else:
        start, rest = R.START_SFEN, ["moves"] + tokens
    if rest and rest[0] != "moves":
        raise ValueError(f"{where}: expected 'moves' after the position, got {rest[0]!r}")
    moves = rest[1:]
    for k, m in enumerate(moves):
        if not _USI_RE.fullmatch(m):
            raise ValueError(f"{where}: bad USI move {m!r} (move {k + 1})")
    return _checked(start, moves, None, "", where)


def parse_records(text: str, source: str = "<string>") -> list[RecordedGame]:
    """Parse records (any of the accepted inputs, see the module docstring) from ``text``.

    Parameters
    ----------
    text : str
    source : str
        Name used in error messages and in each game's ``source`` (e.g. the file name).
    """
    games: list[RecordedGame] = []
    block: dict | None = None       # an open CSA/KIF-like block

    def close(result=None, reason=""):
        nonlocal block
        if block is not None and (block["moves"] or block["header"]):
            games.append(_checked(block["start"], block["moves"], result, reason,
                                  f"{source}, line {block['line']}"))
        block = None

    for number, raw in enumerate(text.splitlines(), start=1):
        where = f"{source}, line {number}"
        line = raw.strip()
        if not line:
            close()
            continue
        if line.startswith("#") or _SKIP_LINE.match(line):
            continue
        low = line.lower()
        if block is not None and (low.startswith("result") or line.startswith("%")):
            if line.startswith("%"):
                if line.upper().startswith("%TORYO"):
                    # the side to move resigned: the other side won
                    s, _ = replay(block["start"], block["moves"], check_end=False)
                    close("gote" if int(s[core.STM]) == R.SENTE else "sente", "resignation")
                else:
                    close(None, line[1:].lower())
            else:
                close(_result(line[len("result"):].lstrip(" :\t"), where))
            continue
        if "|" in line:
            close()
            games.append(_canonical(line, where))
            continue
        tokens = line.split()
        all_usi = all(_USI_RE.fullmatch(t) for t in tokens)
        if tokens[0] == "position" or (tokens[0] in ("startpos", "sfen") and "moves" in tokens):
            close()
            games.append(_usi_line(tokens, where))
            continue
        if tokens[0] in ("sfen", "startpos") or low.startswith("sfen:"):
            close()
            body = "startpos" if tokens[0] == "startpos" else line.split(":", 1)[1] \
                if low.startswith("sfen:") else line[len("sfen"):]
            block = {"start": _sfen_field(body, where), "moves": [], "line": number,
                     "header": True}
            continue
        if all_usi and len(tokens) > 1:
            if block is not None:
                raise ValueError(f"{where}: several moves on one line inside a one-move-per-line "
                                 f"game (started at line {block['line']})")
            games.append(_usi_line(tokens, where))
            continue
        match = _MOVE_LINE.match(line)
        if match:
            if block is None:
                block = {"start": R.START_SFEN, "moves": [], "line": number, "header": False}
            sign, move = match.groups()
            if sign is not None:
                s, _ = replay(block["start"], [], check_end=False)
                to_move = (int(s[core.STM]) + len(block["moves"])) % 2
                if sign != "+-"[to_move]:
                    raise ValueError(f"{where}: move {move!r} is signed {sign!r} but it is "
                                     f"{R.SIDE_NAMES[to_move]}'s turn")
            block["moves"].append(move)
            continue
        raise ValueError(f"{where}: cannot read {line[:60]!r}: not a record line "
                         f"('SFEN | moves | result'), a USI position or move list, or a move "
                         f"line")
    close()
    return games


def read_records(path) -> list[RecordedGame]:
    """Read a records file (``ValueError`` naming file, line and problem if malformed)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    return parse_records(text, str(path))

"""Game records that shogi software reads: KIF and CSA for 5×5 shogi, written and read back.

A game here is its USI moves from the standard start position (``rbsgk/4p/5/P4/KGSBR b - 1``),
the players' names and how it ended (:data:`ENDINGS`). Both formats number files 1-5 from the
right and ranks 1-5 from the top (USI rank ``a`` = 1), so USI ``2e`` is KIF ``２五`` / CSA ``25``.

KIF (Kakinoki's format, as Kifu for Windows, ShogiGUI, KifuBase and lishogi read it)
    The header ``手合割：５五将棋`` tells the reader the game and its start position (lishogi also
    accepts ``5五将棋`` and ``五々将棋``); then ``先手：`` / ``後手：``, the column line, one numbered
    line per move -- destination (``同　`` for a recapture on the previous destination), the moving
    piece as it stands (``歩 銀 金 角 飛 玉 と 成銀 馬 龍``), ``成`` when it promotes, ``打`` for a
    drop, and the origin in brackets -- and a terminal line (``投了``, ``詰み``, ``千日手``,
    ``持将棋``, ``反則負け``, ``切れ負け``) with the summary ``まで…手で先手の勝ち``. Files ending in
    ``.kifu`` are UTF-8, ``.kif`` Shift-JIS (:func:`save_record`).
CSA (the Computer Shogi Association's format, version 2.2)
    ``V2.2``, ``N+`` / ``N-`` names, the start position as five ``P1``-``P5`` rows of five
    squares (CSA's ``PI`` means the 9×9 start position, so a 5×5 record spells its board out),
    ``+`` (sente to move), then one line per move: side, origin (``00`` for a drop),
    destination and the piece *after* the move (``+2524KA``, ``-0043FU``, ``+3424UM``), and a
    special move: ``%TORYO``, ``%TSUMI``, ``%SENNICHITE``, ``%HIKIWAKE`` (our ply cap),
    ``%+ILLEGAL_ACTION`` / ``%-ILLEGAL_ACTION`` (the side that moved illegally), ``%TIME_UP``.

Reading replays every move under our rules and recovers the ending: for the endings the rules
decide, from the final position (:func:`ending_of_position`). Refused, with a ``ValueError``
naming the line (and the file, :func:`load_record`), because the record would give a game
other than the one played or a result the rules do not give:

* an illegal move, or any move after the rules ended the game (a side without a legal move,
  the fourth repetition): the rules' result stands there, whatever the record says later;
* a stated result that contradicts the rules': a KIF summary ``まで N手で先手の勝ち`` whose
  winner or move count is not the record's, a ``%+ILLEGAL_ACTION`` / ``%-ILLEGAL_ACTION``
  naming the side that did not move last, an ending of the rules (``詰み``, ``%SENNICHITE``,
  ...) where they do not end the game, a player's ending giving the other side the win where
  the rules ended the game;
* a record without a game: empty or comments only, a CSA text without its start (``+``), no
  move and no end line;
* a second end line (or summary line);
* bytes that are neither UTF-8 nor Shift_JIS (cp932).

Only warned (:class:`RecordWarning`), because the moves and the result are still the game's:

* no end line after the last move (a truncated file, or a game stopped without ``中断`` /
  ``%CHUDAN``): read as an unfinished game, or with the rules' ending if they end the game at
  its last position;
* a player's ending where the rules had already ended the game with the same winner (``投了``
  or ``%TORYO`` on a checkmated position, as human records often have it): read as the rules'
  ending.

:class:`GameText` itself refuses moves after the rules' end, so no such record is written.
Our ply cap is not a rule of the game (a match's setting), so a record may go beyond it.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from . import rules as R
from .position import Position

__all__ = ["ENDINGS", "RecordWarning", "GameText", "game_text", "ending_of_reason", "ending_of_position", "write_kif", "read_kif", "write_csa",
           "read_csa", "save_record", "load_record"]

#: How a game can end: the rules' endings, then a player's.
ENDINGS = ("checkmate", "no legal move", "repetition", "perpetual check", "max plies", "resign", "illegal",
           "time", "unfinished")
_RULE_ENDINGS = ENDINGS[:4]  # decided by the position; "max plies" is our cap (a draw)

_FW_DIGITS = "０１２３４５６７８９"
_KANJI_RANKS = "〇一二三四五六七八九"
_KIF_NAMES = {"P": "歩", "S": "銀", "G": "金", "B": "角", "R": "飛", "K": "玉",
              "+P": "と", "+S": "成銀", "+B": "馬", "+R": "龍"}
_KIF_READ = {**{v: k for k, v in _KIF_NAMES.items()}, "王": "K", "竜": "+R", "全": "+S"}
_CSA_NAMES = {"P": "FU", "S": "GI", "G": "KI", "B": "KA", "R": "HI", "K": "OU",
              "+P": "TO", "+S": "NG", "+B": "UM", "+R": "RY"}
_CSA_READ = {v: k for k, v in _CSA_NAMES.items()}
_KIF_END = {"checkmate": "詰み", "no legal move": "詰み", "repetition": "千日手", "perpetual check": "千日手",
            "max plies": "持将棋", "resign": "投了", "illegal": "反則負け", "time": "切れ負け", "unfinished": "中断"}
_KIF_END_READ = {"詰み": "rules", "千日手": "rules", "持将棋": "max plies", "投了": "resign", "反則負け": "illegal",
                 "切れ負け": "time", "中断": "unfinished"}
_CSA_END = {"checkmate": "%TSUMI", "no legal move": "%TSUMI", "repetition": "%SENNICHITE",
            "perpetual check": "%SENNICHITE", "max plies": "%HIKIWAKE", "resign": "%TORYO", "time": "%TIME_UP"}
_CSA_END_READ = {"%TSUMI": "rules", "%SENNICHITE": "rules", "%HIKIWAKE": "max plies", "%TORYO": "resign",
                 "%TIME_UP": "time", "%CHUDAN": "unfinished", "%+ILLEGAL_ACTION": "illegal",
                 "%-ILLEGAL_ACTION": "illegal"}
_CSA_ILLEGAL_LOSER = {"%+ILLEGAL_ACTION": "sente", "%-ILLEGAL_ACTION": "gote"}
KIF_HANDICAP = "５五将棋"
_KIF_HANDICAPS = ("５五将棋", "5五将棋", "五々将棋", "５五", "5五", "五々")


class RecordWarning(UserWarning):
    """A record read as a game although it is not quite what a finished record holds (see the
    module docstring: what is refused, what only warned)."""


@dataclass(frozen=True)
class GameText:
    """A game as the records hold it.

    Attributes
    ----------
    moves : tuple of str
        USI moves from the standard start position.
    ending : str
        One of :data:`ENDINGS`.
    result : str or None
        ``"sente"``, ``"gote"``, ``"draw"``, or None for an unfinished game.
    sente, gote : str
        Players' names.
    """

    moves: tuple
    ending: str
    result: str | None
    sente: str = ""
    gote: str = ""

    def __post_init__(self):
        object.__setattr__(self, "moves", tuple(self.moves))
        if self.ending not in ENDINGS:
            raise ValueError(f"unknown ending {self.ending!r}; valid: {', '.join(ENDINGS)}")
        pos = _replay(self.moves, "moves")
        found = ending_of_position(pos)
        if self.ending in _RULE_ENDINGS:
            if found != self.ending or pos.outcome() != self.result:
                raise ValueError(f"the game's final position ends it by {found!r} with result {pos.outcome()!r}, "
                                 f"not {self.ending!r} with {self.result!r}")
        elif found is not None:
            raise ValueError(f"the rules end the game at its final position ({found!r}), not {self.ending!r}")
        elif self.ending == "max plies":
            if self.result != "draw":
                raise ValueError(f"a game stopped at the ply cap is a draw, not {self.result!r}")
        elif self.ending == "unfinished":
            if self.result is not None:
                raise ValueError(f"an unfinished game has no result, got {self.result!r}")
        else:
            loser = pos.turn  # a player's ending: the side to move lost
            if self.result != ("gote" if loser == "sente" else "sente"):
                raise ValueError(f"ending {self.ending!r} at ply {len(self.moves)} is a loss for {loser}, "
                                 f"so the result is the other side's win, not {self.result!r}")
        for name in ("sente", "gote"):
            if any(c in getattr(self, name) for c in "\r\n"):
                raise ValueError(f"{name}'s name must be one line, got {getattr(self, name)!r}")


def game_text(moves: Sequence[str], reason: str, result: str | None, sente: str = "", gote: str = "") -> GameText:
    """A :class:`GameText` from a game of :mod:`gamelib.play.engine_match` (``games.csv``) or of
    :func:`gamelib.play.shogi.play_game` (whose ``"repetition"`` also covers perpetual checks:
    where the rules end the game, the ending is read from its final position)."""
    found = ending_of_position(_replay(moves, "moves"))
    ending = found if found is not None else ending_of_reason(reason)
    return GameText(tuple(moves), ending, result, sente, gote)


def _replay(moves: Sequence[str], where: str) -> Position:
    pos = Position(max_plies=None)
    for i, m in enumerate(moves):
        _push(pos, m, f"{where}: move {i + 1} ({m!r})")
    return pos


def _push(pos: Position, usi: str, where: str) -> None:
    """Play ``usi``; ``ValueError`` starting with ``where`` if it is illegal or if the rules
    have already ended the game."""
    ended = ending_of_position(pos)
    if ended is not None:
        raise ValueError(f"{where}: the rules ended the game after {pos.ply} plies ({ended}, "
                         f"{_result_words(pos.outcome())}); the record goes on")
    try:
        pos.push_usi(usi)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None


def _result_words(result: str | None) -> str:
    return {"sente": "sente wins", "gote": "gote wins", "draw": "a draw", None: "no result"}[result]


def ending_of_position(pos: Position) -> str | None:
    """The rules' ending at ``pos`` (``"checkmate"``, ``"no legal move"``, ``"repetition"`` --
    sente lost a repetition, its own perpetual check included --, ``"perpetual check"`` -- gote
    checked perpetually, or both did --, or ``"max plies"`` if ``pos`` has a ply cap and reached
    it), or None."""
    result = pos.outcome()
    if result is None:
        return None
    if not pos.legal_moves:
        return "checkmate" if pos.is_check() else "no legal move"
    if pos.is_repetition():
        return "repetition" if result == "gote" else "perpetual check"
    return "max plies"


def ending_of_reason(reason: str) -> str:
    """The ending of a ``reason`` of :mod:`gamelib.play.engine_match` or
    :class:`gamelib.play.shogi.GameRecord` (``"sente illegal move '5a4a'"`` -> ``"illegal"``)."""
    words = reason.split(maxsplit=1)
    rest = words[1] if len(words) > 1 and words[0] in R.SIDE_NAMES else reason
    if rest in _RULE_ENDINGS:
        return rest
    if rest.startswith(("illegal move", "garbled move")):
        return "illegal"
    if rest.startswith("engine timeout"):
        return "time"
    if rest.startswith(("resigned", "engine")):
        return "resign"  # died or did not start: it gave the game up
    raise ValueError(f"unknown game-end reason {reason!r}")


# ----------------------------------------------------------------------------- squares, pieces
def _sq(usi_square: str) -> tuple[int, int]:
    return int(usi_square[0]), "abcde".index(usi_square[1]) + 1


def _usi_square(file: int, rank: int) -> str:
    if not (1 <= file <= R.FILES and 1 <= rank <= R.RANKS):
        raise ValueError(f"square {file}{rank} is off the 5×5 board")
    return f"{file}{'abcde'[rank - 1]}"


def _piece(pos: Position, usi: str) -> tuple[str, bool, str | None]:
    """(piece letters as it stands, promotes, origin USI square or None for a drop)."""
    if "*" in usi:
        return usi[0], False, None
    return pos.piece_at(usi[:2]).upper(), usi.endswith("+"), usi[:2]


# ----------------------------------------------------------------------------- KIF
def write_kif(game: GameText) -> str:
    """The KIF text of ``game`` (lines end with ``\\n``)."""
    lines = ["# ---- gamelib 5×5 shogi ----", f"手合割：{KIF_HANDICAP}", f"先手：{game.sente}", f"後手：{game.gote}",
             "手数----指手---------消費時間--"]
    pos = Position(max_plies=None)
    previous = None
    for i, usi in enumerate(game.moves, 1):
        letters, promotes, origin = _piece(pos, usi)
        f, r = _sq(usi[-3:-1] if promotes else usi[-2:])
        dest = "同　" if (f, r) == previous else f"{_FW_DIGITS[f]}{_KANJI_RANKS[r]}"
        text = dest + _KIF_NAMES[letters] + ("成" if promotes else "")
        text += "打" if origin is None else "({}{})".format(*_sq(origin))
        lines.append(f"{i:>4} {text}")
        previous = (f, r)
        pos.push_usi(usi)
    n = len(game.moves)
    lines.append(f"{n + 1:>4} {_KIF_END[game.ending]}")
    if game.result in ("sente", "gote"):
        lines.append(f"まで{n}手で{'先手' if game.result == 'sente' else '後手'}の勝ち")
    elif game.result == "draw":
        lines.append(f"まで{n}手で{_KIF_END[game.ending]}")
    else:
        lines.append(f"まで{n}手で中断")
    return "\n".join(lines) + "\n"


_KIF_MOVE = re.compile(r"\s*(\d+)\s+(\S+?)(?:\s+\(.*)?\s*$")
_KIF_BODY = re.compile(r"(?:([１-５1-5])([一二三四五])|同\s*)(成銀|[歩銀金角飛玉王と馬龍竜全])(成|不成)?(打|\(([1-5])([1-5])\))?$")


_KIF_SUMMARY = re.compile(r"まで(\d+)手で?(.*)$")
_KIF_SUMMARY_SIDE = re.compile(r"(先手|後手|下手|上手)の(?:反則)?(勝ち|負け)")


def read_kif(text: str) -> GameText:
    """Parse a KIF text written for 5×5 shogi (``ValueError`` naming the line that is wrong;
    what is refused and what only warned: the module docstring)."""
    header, names, moves, ending = None, {"先手": "", "後手": ""}, [], None
    summary = None  # (line number, plies, text after 手で)
    pos = Position(max_plies=None)
    previous = None
    for k, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().replace("同　", "同")
        if line.startswith("まで"):
            m = _KIF_SUMMARY.match(line)
            if not m:
                raise ValueError(f"line {k}: cannot read the summary {raw!r}")
            if summary is not None:
                raise ValueError(f"line {k}: a second summary line ({raw.strip()!r})")
            summary = (k, int(m.group(1)), m.group(2))
            continue
        if not line or line.startswith(("#", "*", "手数")):
            continue
        key, sep, value = re.split(r"([:：])", line, maxsplit=1) if re.search("[:：]", line) else (line, "", "")
        if sep and not line[0].isdigit():
            if key == "手合割":
                if value.strip() not in _KIF_HANDICAPS:
                    raise ValueError(f"line {k}: 手合割 {value.strip()!r} is not 5×5 shogi (expected {KIF_HANDICAP})")
                header = value.strip()
            elif key in names:
                names[key] = value.strip()
            continue
        m = _KIF_MOVE.match(line)
        if not m:
            raise ValueError(f"line {k}: cannot read {raw!r}")
        number, body = int(m.group(1)), m.group(2)
        if ending is not None:
            what = "a second end line" if body in _KIF_END_READ else "a move after the end line"
            raise ValueError(f"line {k}: {what} ({raw.strip()!r})")
        if number != len(moves) + 1:
            raise ValueError(f"line {k}: move number {number}, expected {len(moves) + 1}")
        if body in _KIF_END_READ:
            ending = _KIF_END_READ[body]
            continue
        usi = _kif_move_to_usi(body, previous, k)
        _push(pos, usi, f"line {k}: {raw.strip()!r}")
        if pos.move_stack[-1] != usi or _KIF_READ[_kif_body(body).group(3)] != _piece_before(pos, usi):
            raise ValueError(f"line {k}: {raw.strip()!r} names a piece that is not on {usi[:2]}")
        moves.append(usi)
        previous = _sq(usi[-3:-1] if usi.endswith("+") else usi[-2:])
    if header is None:
        raise ValueError(f"no 手合割：{KIF_HANDICAP} line: not a 5×5 shogi KIF")
    game = _game_from(moves, ending, names["先手"], names["後手"], "KIF")
    if summary is not None:
        _check_summary(game, *summary)
    return game


def _check_summary(game: GameText, k: int, plies: int, text: str) -> None:
    """Refuse a KIF summary line ``まで N手で...`` whose move count or result is not the game's."""
    if plies != len(game.moves):
        raise ValueError(f"line {k}: the summary says {plies} moves, the record has {len(game.moves)}")
    side = _KIF_SUMMARY_SIDE.search(text)
    if side is not None:
        named = "sente" if side.group(1) in ("先手", "下手") else "gote"
        stated = named if side.group(2) == "勝ち" else ("gote" if named == "sente" else "sente")
    elif "中断" in text:
        stated = None
    else:
        return  # 千日手, 持将棋, ...: no winner stated
    if stated != game.result:
        raise ValueError(f"line {k}: the summary says {_result_words(stated)}, but the game "
                         f"({game.ending}) gives {_result_words(game.result)}")


def _kif_body(body: str):
    m = _KIF_BODY.match(body)
    if not m:
        raise ValueError(f"cannot read the move {body!r}")
    return m


def _kif_move_to_usi(body: str, previous, k: int) -> str:
    try:
        m = _kif_body(body)
    except ValueError as err:
        raise ValueError(f"line {k}: {err}") from None
    if m.group(1):
        f = int(m.group(1)) if m.group(1).isdigit() and m.group(1).isascii() else _FW_DIGITS.index(m.group(1))
        r = _KANJI_RANKS.index(m.group(2))
    elif previous is None:
        raise ValueError(f"line {k}: 同 on the first move")
    else:
        f, r = previous
    dest = _usi_square(f, r)
    if m.group(5) == "打":
        return f"{_KIF_READ[m.group(3)]}*{dest}"
    if m.group(6) is None:
        raise ValueError(f"line {k}: the move {body!r} has no origin")
    return f"{_usi_square(int(m.group(6)), int(m.group(7)))}{dest}" + ("+" if m.group(4) == "成" else "")


def _piece_before(pos: Position, usi: str) -> str:
    """The letters of the piece that made the last move ``usi`` as it stood before it."""
    if "*" in usi:
        return usi[0]
    letters = pos.piece_at(usi[2:4]).upper()
    return letters[1:] if usi.endswith("+") else letters


def _game_from(moves, ending, sente, gote, fmt, loser: str | None = None) -> GameText:
    """The game of a record's ``moves`` and end line (``ending``: ``"rules"``, a player's
    ending, or None without one; ``loser``: the side an end line names as the loser)."""
    if not moves and ending is None:
        raise ValueError(f"{fmt}: no moves and no end line: the record holds no game")
    pos = _replay(moves, fmt)
    found = ending_of_position(pos)
    if ending is None:
        warnings.warn(f"{fmt}: no end line after move {len(moves)} (truncated?): read as "
                      + ("an unfinished game" if found is None else f"the rules' ending there, {found}"),
                      RecordWarning, stacklevel=3)
        ending = "unfinished" if found is None else "rules"
    if ending == "rules":
        if found is None:
            raise ValueError(f"{fmt}: the record says the rules ended the game, but they do not at its last position")
        ending = found
    if ending in _RULE_ENDINGS:
        result = pos.outcome()
    elif ending == "unfinished":
        result = None
    elif ending == "max plies":
        result = "draw"
    else:
        to_move_loses = pos.turn
        if loser is not None and loser != to_move_loses:
            raise ValueError(f"{fmt}: the end line says {loser} lost by {ending}, but {to_move_loses} is to move "
                             f"after move {len(moves)}")
        result = "gote" if to_move_loses == "sente" else "sente"
    if found is not None and ending not in _RULE_ENDINGS:
        if result != pos.outcome():
            raise ValueError(f"{fmt}: the record ends by {ending} ({_result_words(result)}), but the rules ended "
                             f"the game at its last position ({found}, {_result_words(pos.outcome())})")
        warnings.warn(f"{fmt}: the record ends by {ending} where the rules had ended the game with the same "
                      f"result: read as {found}", RecordWarning, stacklevel=3)
        ending = found
    return GameText(tuple(moves), ending, result, sente, gote)


# ----------------------------------------------------------------------------- CSA
def _csa_board() -> list[str]:
    pos = Position(max_plies=None)
    rows = []
    for r in range(1, R.RANKS + 1):
        cells = []
        for f in range(R.FILES, 0, -1):
            p = pos.piece_at(_usi_square(f, r))
            cells.append(" * " if p is None else ("+" if p.upper() == p else "-") + _CSA_NAMES[p.upper()])
        rows.append(f"P{r}" + "".join(cells))
    return rows


def write_csa(game: GameText) -> str:
    """The CSA (V2.2) text of ``game``."""
    lines = ["V2.2", f"N+{game.sente}", f"N-{game.gote}", *_csa_board(), "+"]
    pos = Position(max_plies=None)
    for usi in game.moves:
        side = "+" if pos.turn == "sente" else "-"
        letters, promotes, origin = _piece(pos, usi)
        after = "+" + letters if promotes else letters
        f, r = _sq(usi[-3:-1] if promotes else usi[-2:])
        frm = "00" if origin is None else "{}{}".format(*_sq(origin))
        lines.append(f"{side}{frm}{f}{r}{_CSA_NAMES[after]}")
        pos.push_usi(usi)
    if game.ending == "illegal":
        lines.append("%+ILLEGAL_ACTION" if pos.turn == "sente" else "%-ILLEGAL_ACTION")
    elif game.ending != "unfinished":
        lines.append(_CSA_END[game.ending])
    else:
        lines.append("%CHUDAN")
    return "\n".join(lines) + "\n"


_CSA_MOVE = re.compile(r"([+-])([0-5])([0-5])([1-5])([1-5])([A-Z]{2})")


def read_csa(text: str) -> GameText:
    """Parse a CSA text of a 5×5 game from the standard start position written as ``P1``-``P5``
    rows (``ValueError`` naming the wrong line)."""
    names = {"+": "", "-": ""}
    board, moves, ending, loser, started = [], [], None, None, False
    pos = Position(max_plies=None)
    for k, raw in enumerate(text.replace(",", "\n").splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "'VT$":
            continue
        if line.startswith("N") and line[1:2] in names:
            names[line[1]] = line[2:]
        elif line.startswith("PI"):
            raise ValueError(f"line {k}: PI is the 9×9 start position; a 5×5 record spells its board out (P1-P5)")
        elif re.fullmatch(r"P[1-9].*", line):
            board.append(line)
        elif line in ("+", "-") and not moves:
            if line != "+":
                raise ValueError(f"line {k}: gote to move at the start; only the standard start position is read")
            started = True
        elif line.startswith("%"):
            if line not in _CSA_END_READ:
                raise ValueError(f"line {k}: unknown special move {line!r}")
            if ending is not None:
                raise ValueError(f"line {k}: a second end line ({line!r})")
            ending, loser = _CSA_END_READ[line], _CSA_ILLEGAL_LOSER.get(line)
        else:
            m = _CSA_MOVE.fullmatch(line)
            if not m:
                raise ValueError(f"line {k}: cannot read {raw!r}")
            if ending is not None:
                raise ValueError(f"line {k}: a move after the end line ({raw.strip()!r})")
            if not started:
                raise ValueError(f"line {k}: a move before the start position's '+' line")
            side, f0, r0, f1, r1, name = m.groups()
            if side != ("+" if pos.turn == "sente" else "-"):
                raise ValueError(f"line {k}: {raw!r} is a move of the side not to move")
            if name not in _CSA_READ:
                raise ValueError(f"line {k}: unknown piece {name!r}")
            after, dest = _CSA_READ[name], _usi_square(int(f1), int(r1))
            if (f0, r0) == ("0", "0"):
                usi = f"{after}*{dest}"
            else:
                origin = _usi_square(int(f0), int(r0))
                before = (pos.piece_at(origin) or "").upper()
                usi = origin + dest + ("+" if after != before and after == "+" + before else "")
                if after not in (before, "+" + before):
                    raise ValueError(f"line {k}: {raw!r}: the piece on {f0}{r0} is {before or 'nothing'}, not {name}")
            _push(pos, usi, f"line {k}: {raw.strip()!r}")
            moves.append(usi)
    if not started:
        raise ValueError("CSA: no start position (no '+' line): not a CSA record")
    if board and board != [row.rstrip() for row in _csa_board()]:
        raise ValueError("CSA: the start position is not the standard 5×5 one")
    return _game_from(moves, ending, names["+"], names["-"], "CSA", loser)


# ----------------------------------------------------------------------------- files
def save_record(path, game: GameText) -> Path:
    """Write ``game`` as KIF (``.kifu`` UTF-8, ``.kif`` Shift-JIS) or CSA (``.csa``) by the
    file's extension, atomically."""
    from gamelib.runtime.atomic import atomic_write_bytes

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".kifu":
        data = write_kif(game).encode("utf-8")
    elif suffix == ".kif":
        data = write_kif(game).encode("cp932")
    elif suffix == ".csa":
        data = write_csa(game).encode("utf-8")
    else:
        raise ValueError(f"{path}: use the extension .kifu, .kif or .csa")
    return atomic_write_bytes(path, data)


def load_record(path) -> GameText:
    """Read a ``.kifu``, ``.kif`` or ``.csa`` file written for 5×5 shogi, in UTF-8 or Shift_JIS
    (cp932, as shogi software often writes both formats); ``ValueError`` naming the file."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".kifu", ".kif", ".csa"):
        raise ValueError(f"{path}: use the extension .kifu, .kif or .csa")
    data = path.read_bytes()
    # strict UTF-8 almost never decodes Shift_JIS text, so trying it first is safe for both
    for encoding in ("utf-8-sig", "cp932"):
        try:
            text = data.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise ValueError(f"{path}: the file is neither UTF-8 nor Shift_JIS (cp932) text")
    try:
        return read_csa(text) if suffix == ".csa" else read_kif(text)
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None

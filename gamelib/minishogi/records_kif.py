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

Reading checks every move against our rules (``ValueError`` naming the line) and recovers the
ending: for the endings the rules decide, from the final position (:func:`ending_of_position`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from . import rules as R
from .position import Position

__all__ = ["ENDINGS", "GameText", "game_text", "ending_of_reason", "ending_of_position", "write_kif", "read_kif", "write_csa",
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
KIF_HANDICAP = "５五将棋"
_KIF_HANDICAPS = ("５五将棋", "5五将棋", "五々将棋", "５五", "5五", "五々")


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
        try:
            pos.push_usi(m)
        except ValueError as err:
            raise ValueError(f"{where}: move {i + 1} ({m!r}): {err}") from None
    return pos


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


def read_kif(text: str) -> GameText:
    """Parse a KIF text written for 5×5 shogi (``ValueError`` naming the line that is wrong)."""
    header, names, moves, ending = None, {"先手": "", "後手": ""}, [], None
    pos = Position(max_plies=None)
    previous = None
    for k, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().replace("同　", "同")
        if not line or line.startswith(("#", "*", "まで", "手数")):
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
        if ending is not None:
            raise ValueError(f"line {k}: a move after the end of the game ({raw!r})")
        number, body = int(m.group(1)), m.group(2)
        if number != len(moves) + 1:
            raise ValueError(f"line {k}: move number {number}, expected {len(moves) + 1}")
        if body in _KIF_END_READ:
            ending = _KIF_END_READ[body]
            continue
        usi = _kif_move_to_usi(body, previous, k)
        try:
            pos.push_usi(usi)
        except ValueError as err:
            raise ValueError(f"line {k}: {raw.strip()!r}: {err}") from None
        if pos.move_stack[-1] != usi or _KIF_READ[_kif_body(body).group(3)] != _piece_before(pos, usi):
            raise ValueError(f"line {k}: {raw.strip()!r} names a piece that is not on {usi[:2]}")
        moves.append(usi)
        previous = _sq(usi[-3:-1] if usi.endswith("+") else usi[-2:])
    if header is None:
        raise ValueError(f"no 手合割：{KIF_HANDICAP} line: not a 5×5 shogi KIF")
    return _game_from(moves, ending, names["先手"], names["後手"], "KIF")


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


def _game_from(moves, ending, sente, gote, fmt) -> GameText:
    pos = _replay(moves, fmt)
    if ending is None:
        ending = "unfinished"
    if ending == "rules":
        ending = ending_of_position(pos)
        if ending is None:
            raise ValueError(f"{fmt}: the record says the rules ended the game, but they do not at its last position")
    if ending in _RULE_ENDINGS:
        result = pos.outcome()
    elif ending == "unfinished":
        result = None
    elif ending == "max plies":
        result = "draw"
    else:
        result = "gote" if pos.turn == "sente" else "sente"
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
    board, moves, ending = [], [], None
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
        elif line.startswith("%"):
            if line not in _CSA_END_READ:
                raise ValueError(f"line {k}: unknown special move {line!r}")
            ending = _CSA_END_READ[line]
        else:
            m = _CSA_MOVE.fullmatch(line)
            if not m:
                raise ValueError(f"line {k}: cannot read {raw!r}")
            if ending is not None:
                raise ValueError(f"line {k}: a move after the end of the game ({raw!r})")
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
            try:
                pos.push_usi(usi)
            except ValueError as err:
                raise ValueError(f"line {k}: {raw!r}: {err}") from None
            moves.append(usi)
    if board and board != [row.rstrip() for row in _csa_board()]:
        raise ValueError("CSA: the start position is not the standard 5×5 one")
    return _game_from(moves, ending, names["+"], names["-"], "CSA")


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
    """Read a ``.kifu``, ``.kif`` or ``.csa`` file written for 5×5 shogi."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".kifu", ".kif", ".csa"):
        raise ValueError(f"{path}: use the extension .kifu, .kif or .csa")
    data = path.read_bytes()
    text = data.decode("cp932") if suffix == ".kif" else data.decode("utf-8-sig")
    return read_csa(text) if suffix == ".csa" else read_kif(text)

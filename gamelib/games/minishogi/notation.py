"""SFEN positions and USI moves for 5×5 shogi: parsing (with validation) and formatting.

SFEN (as USI uses it): ``<board> <side> <hand> [<move number>]``, e.g. the start position
``rbsgk/4p/5/P4/KGSBR b - 1``. The board lists ranks ``a``..``e`` (top to bottom as sente sees
it), each from file 5 to file 1; uppercase is sente, lowercase gote, ``+`` marks a promoted piece,
a digit counts empty squares. The side is ``b`` (sente, "black") or ``w`` (gote). The hand is
``-`` or pieces with optional counts, e.g. ``2Pbs`` (written in the order R B G S P, sente first).
The move number counts plies (1 for the first move, at most 2**31 - 1) and may be left out (then 1). A leading
``sfen`` keyword (as in the USI ``position`` command) is accepted.

USI moves: ``5e4d`` (from file-rank to file-rank), ``5b5a+`` (with promotion), ``P*3c`` (drop).

Every malformed or impossible input raises ``ValueError`` with a message naming the problem.
"""

from __future__ import annotations

import re

import numpy as np

from ...runtime.checks import check_int
from . import core
from . import rules as R

__all__ = [
    "parse_sfen",
    "format_sfen",
    "parse_square",
    "square_name",
    "parse_usi",
    "format_usi",
    "usi_to_move",
    "SQUARE_NAMES",
]

_LETTER_TYPE = {letter: t for t, letter in R.PIECE_LETTERS.items()}
_HAND_ORDER = (R.ROOK, R.BISHOP, R.GOLD, R.SILVER, R.PAWN)  # SFEN's conventional hand order
_RANK_CHARS = "abcde"
_DIGITS = frozenset("0123456789")  # ASCII only: str.isdigit() also accepts e.g. '²' and '٣'

#: USI names of the squares by index: ``SQUARE_NAMES[0] == "5a"``, ``SQUARE_NAMES[24] == "1e"``.
SQUARE_NAMES = tuple(f"{R.FILES - col}{_RANK_CHARS[rank]}" for rank in range(R.RANKS) for col in range(R.FILES))
_SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}


def square_name(sq: int) -> str:
    """USI name (``"5a"``..``"1e"``) of square index ``sq`` (0..24)."""
    return SQUARE_NAMES[check_int("square index", sq, 0, R.SQUARES - 1)]


def parse_square(name: str) -> int:
    """Square index of a USI square name such as ``"3c"``."""
    sq = _SQUARE_INDEX.get(name) if isinstance(name, str) else None
    if sq is None:
        raise ValueError(f"bad square {name!r}: expected a file 1-5 then a rank a-e, e.g. '3c'")
    return sq


def _piece_name(code: int) -> str:
    t, side = code & 15, code >> 4
    if t in R.UNPROMOTED:
        letter = "+" + R.PIECE_LETTERS[R.UNPROMOTED[t]]
    else:
        letter = R.PIECE_LETTERS[t]
    return letter if side == R.SENTE else letter.lower()


# ----------------------------------------------------------------------------- SFEN
def _parse_board(text: str, sfen: str) -> list[int]:
    ranks = text.split("/")
    if len(ranks) != R.RANKS:
        raise ValueError(f"bad SFEN {sfen!r}: the board has {len(ranks)} ranks, expected {R.RANKS}")
    board: list[int] = []
    for r, rank_text in enumerate(ranks):
        rank_name = _RANK_CHARS[r]
        row: list[int] = []
        promoted = False
        prev_digit = False
        for ch in rank_text:
            if ch in _DIGITS:
                if promoted:
                    raise ValueError(f"bad SFEN {sfen!r}: rank {rank_name}: '+' must precede a piece letter")
                if prev_digit:
                    raise ValueError(f"bad SFEN {sfen!r}: rank {rank_name}: two digits in a row")
                if ch == "0":
                    raise ValueError(f"bad SFEN {sfen!r}: rank {rank_name}: empty-square count 0")
                row.extend([0] * int(ch))
                prev_digit = True
                continue
            prev_digit = False
            if ch == "+":
                if promoted:
                    raise ValueError(f"bad SFEN {sfen!r}: rank {rank_name}: '++'")
                promoted = True
                continue
            t = _LETTER_TYPE.get(ch.upper())
            if t is None:
                raise ValueError(f"bad SFEN {sfen!r}: rank {rank_name}: unknown piece {ch!r} (pieces are K G S B R P)")
            if promoted:
                if t not in R.PROMOTES_TO:
                    raise ValueError(f"bad SFEN {sfen!r}: rank {rank_name}: {ch!r} cannot be promoted")
                t = R.PROMOTES_TO[t]
                promoted = False
            side = R.SENTE if ch.isupper() else R.GOTE
            row.append(t | (side << 4))
        if promoted:
            raise ValueError(f"bad SFEN {sfen!r}: rank {rank_name}: '+' at the end of the rank")
        if len(row) != R.FILES:
            raise ValueError(f"bad SFEN {sfen!r}: rank {rank_name} has {len(row)} squares, expected {R.FILES}")
        board.extend(row)
    return board


def _parse_hand(text: str, sfen: str) -> list[int]:
    hands = [0] * 10
    if text == "-":
        return hands
    seen: set[str] = set()
    for m in re.finditer(r"([0-9]*)(.)", text, re.DOTALL):
        count_text, ch = m.groups()
        if ch in _DIGITS or ch == "+":
            raise ValueError(f"bad SFEN {sfen!r}: hand {text!r}: expected a piece letter after {count_text + ch!r}")
        t = _LETTER_TYPE.get(ch.upper())
        if t is None:
            raise ValueError(f"bad SFEN {sfen!r}: hand {text!r}: unknown piece {ch!r}")
        if t == R.KING:
            raise ValueError(f"bad SFEN {sfen!r}: hand {text!r}: a king cannot be in hand")
        if ch in seen:
            raise ValueError(f"bad SFEN {sfen!r}: hand {text!r}: piece {ch!r} is listed twice")
        seen.add(ch)
        count = int(count_text) if count_text else 1
        if count < 1:
            raise ValueError(f"bad SFEN {sfen!r}: hand {text!r}: count {count_text!r} of {ch!r}")
        side = R.SENTE if ch.isupper() else R.GOTE
        hands[5 * side + t - 1] = count
    if text and text[-1] in _DIGITS:
        raise ValueError(f"bad SFEN {sfen!r}: hand {text!r} ends with a count and no piece")
    return hands


def _validate(board: list[int], hands: list[int], side: int, sfen: str) -> None:
    totals = {t: 0 for t in R.PIECES_PER_TYPE}
    kings = [0, 0]
    pawn_cols: set[tuple[int, int]] = set()
    for sq, code in enumerate(board):
        if code == 0:
            continue
        t, owner = code & 15, code >> 4
        totals[R.UNPROMOTED.get(t, t)] += 1
        if t == R.KING:
            kings[owner] += 1
        if (int(core.DEAD[code]) >> sq) & 1:
            raise ValueError(
                f"bad SFEN {sfen!r}: unpromoted {R.SIDE_NAMES[owner]} {R.PIECE_LETTERS[t]} on {square_name(sq)}, "
                "the last rank, where it could never move"
            )
        if t == R.PAWN and R.NIFU:
            col = sq % R.FILES
            if (owner, col) in pawn_cols:
                raise ValueError(
                    f"bad SFEN {sfen!r}: two unpromoted {R.SIDE_NAMES[owner]} pawns on file {R.FILES - col} (two-pawn rule)"
                )
            pawn_cols.add((owner, col))
    for owner in (R.SENTE, R.GOTE):
        if kings[owner] != 1:
            raise ValueError(f"bad SFEN {sfen!r}: {R.SIDE_NAMES[owner]} has {kings[owner]} kings, expected 1")
        for t in R.HAND_TYPES:
            totals[t] += hands[5 * owner + t - 1]
    for t, limit in R.PIECES_PER_TYPE.items():
        if totals[t] > limit:
            raise ValueError(
                f"bad SFEN {sfen!r}: {totals[t]} pieces of type {R.PIECE_LETTERS[t]} on the board and in hand; "
                f"the game has {limit}"
            )


def parse_sfen(sfen: str) -> tuple[list[int], list[int], int, int]:
    """Parse and validate an SFEN.

    Returns
    -------
    board : list of 25 piece codes, hands : list of 10 counts, side : 0 or 1, move_number : int

    Raises
    ------
    ValueError
        If the SFEN is malformed (fields, ranks, squares, piece letters, hand, side, move number)
        or describes an impossible position (not one king per side, more pieces of a type than
        the game has, an unpromoted pawn on its last rank, two unpromoted pawns of a side on a
        file, the side not to move in check).
    """
    if not isinstance(sfen, str):
        raise ValueError(f"bad SFEN {sfen!r}: expected a string")
    fields = sfen.split()
    if fields and fields[0] == "sfen":
        fields = fields[1:]
    if len(fields) not in (3, 4):
        raise ValueError(f"bad SFEN {sfen!r}: expected 3 or 4 fields (board side hand [move number]), got {len(fields)}")
    board = _parse_board(fields[0], sfen)
    if fields[1] not in ("b", "w"):
        raise ValueError(f"bad SFEN {sfen!r}: side to move {fields[1]!r} is not 'b' (sente) or 'w' (gote)")
    side = R.SENTE if fields[1] == "b" else R.GOTE
    hands = _parse_hand(fields[2], sfen)
    move_number = 1
    if len(fields) == 4:
        if not re.fullmatch(r"[0-9]+", fields[3]) or not 1 <= int(fields[3]) <= core.MAX_MOVE_NUMBER:
            raise ValueError(
                f"bad SFEN {sfen!r}: move number {fields[3]!r} must be an integer in "
                f"[1, {core.MAX_MOVE_NUMBER}]"
            )
        move_number = int(fields[3])
    _validate(board, hands, side, sfen)
    s = core.new_state(board, hands, side, move_number, capacity=0)
    if core.is_attacked(s, int(s[core.KING_SQ + 1 - side]), side):
        raise ValueError(f"bad SFEN {sfen!r}: {R.SIDE_NAMES[1 - side]} is in check but {R.SIDE_NAMES[side]} is to move")
    return board, hands, side, move_number


def format_sfen(s: np.ndarray) -> str:
    """SFEN of the current position of state ``s`` (move number = start move number + plies)."""
    ranks = []
    for r in range(R.RANKS):
        out, empty = [], 0
        for c in range(R.FILES):
            code = int(s[r * R.FILES + c])
            if code == 0:
                empty += 1
                continue
            if empty:
                out.append(str(empty))
                empty = 0
            out.append(_piece_name(code))
        if empty:
            out.append(str(empty))
        ranks.append("".join(out))
    hand = []
    for side in (R.SENTE, R.GOTE):
        for t in _HAND_ORDER:
            n = int(s[core.HAND + 5 * side + t - 1])
            if n:
                letter = R.PIECE_LETTERS[t] if side == R.SENTE else R.PIECE_LETTERS[t].lower()
                hand.append((str(n) if n > 1 else "") + letter)
    side_char = "b" if int(s[core.STM]) == R.SENTE else "w"
    move_number = int(s[core.MOVE_NUMBER]) + int(s[core.PLY])
    return f"{'/'.join(ranks)} {side_char} {''.join(hand) or '-'} {move_number}"


# ----------------------------------------------------------------------------- USI moves
_BOARD_MOVE = re.compile(r"([1-5][a-e])([1-5][a-e])(\+?)")
_DROP_MOVE = re.compile(r"([PSGBR])\*([1-5][a-e])")


def parse_usi(usi: str) -> int:
    """The move key (destination, origin, promotion bits) of a syntactically valid USI move.

    The capture bits are not set: :func:`usi_to_move` finds the full move in a position.
    """
    if not isinstance(usi, str):
        raise ValueError(f"bad USI move {usi!r}: expected a string")
    m = _BOARD_MOVE.fullmatch(usi)
    if m:
        frm, to = parse_square(m.group(1)), parse_square(m.group(2))
        if frm == to:
            raise ValueError(f"bad USI move {usi!r}: origin and destination are the same square")
        return to | (frm << 5) | (core.PROMOTION_FLAG if m.group(3) else 0)
    m = _DROP_MOVE.fullmatch(usi)
    if m:
        t = _LETTER_TYPE[m.group(1)]
        return parse_square(m.group(2)) | ((core.DROP_BASE + t) << 5)
    if "*" in usi:
        if usi[:1].upper() == "K":
            raise ValueError(f"bad USI move {usi!r}: a king cannot be dropped")
        raise ValueError(f"bad USI move {usi!r}: a drop is an uppercase P, S, G, B or R, '*', and a square 1a-5e, e.g. 'P*3c'")
    for part in (usi[0:2], usi[2:4]):
        if len(part) == 2 and part not in _SQUARE_INDEX:
            raise ValueError(f"bad USI move {usi!r}: {part!r} is not a square (files 1-5, ranks a-e)")
    raise ValueError(f"bad USI move {usi!r}: expected e.g. '5e4d', '5b5a+' or 'P*3c'")


def format_usi(m: int) -> str:
    """USI text of an integer move (``ValueError`` if ``m`` is not a move code)."""
    m = check_int("move", m, 0, core.MAX_MOVE_CODE)
    to, frm = m & 31, (m >> 5) & 31
    if to >= R.SQUARES or frm == to or frm > core.DROP_BASE + R.ROOK or (frm > core.DROP_BASE and m & core.PROMOTION_FLAG):
        raise ValueError(f"move {m} is not a move code (destination 0..24, origin 0..24 or a drop 25..29)")
    to = square_name(to)
    if frm > core.DROP_BASE:
        return f"{R.PIECE_LETTERS[frm - core.DROP_BASE]}*{to}"
    return f"{square_name(frm)}{to}{'+' if m & core.PROMOTION_FLAG else ''}"


def usi_to_move(s: np.ndarray, usi: str, buf: np.ndarray | None = None) -> int:
    """The legal move of state ``s`` written ``usi``; ``ValueError`` if malformed or illegal."""
    key = parse_usi(usi)
    if buf is None:
        buf = np.empty(core.MAX_MOVES, dtype=np.int32)
    n = core.gen_moves(s, buf, 0, False)
    for m in buf[:n]:
        if (int(m) & 0x7FF) == key:
            return int(m)
    raise ValueError(f"illegal move {usi!r} in position {format_sfen(s)!r}")

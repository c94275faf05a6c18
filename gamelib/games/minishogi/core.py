"""Numba core of 5×5 shogi: state array, integer moves, legal move generation, make/unmake.

Everything here is ``@njit(cache=True)`` (what the search calls: ``@kernel``, without reference
counting, :mod:`gamelib.runtime.kernels`) and callable from other nopython code (the search and
the learners). The rules come from :mod:`gamelib.games.minishogi.rules`; the tables below are built
from it when this module is imported. (numba's on-disk cache is keyed on this file: after
editing ``rules.py``, clear the cache directory.)

Squares and pieces
------------------
Square ``sq = 5 * rank + col``: ``rank`` 0..4 is USI rank ``a``..``e``, ``col`` 0..4 is USI
file ``5``..``1``; ``sq`` 0 is ``5a`` (top left as sente sees it), 24 is ``1e``. A piece code is
``type | (side << 4)`` with the types of :mod:`~gamelib.games.minishogi.rules` (1 P, 2 S, 3 G, 4 B,
5 R, 6 K, 7 +P, 8 +S, 9 +B, 10 +R) and side 0 = sente, 1 = gote; 0 is an empty square. So
sente's pieces are 1..10 and gote's 17..26; ``code >> 4`` is the owner, ``code & 15`` the type.

The state array
---------------
A position *and its history* is one ``int64`` array ``s`` (make it with :func:`new_state`):

==========================  ===========================================================
``s[0:25]``                 the board, piece codes by square
``s[HAND + 5*side + t-1]``  pieces of type ``t`` (1..5 = P S G B R) in ``side``'s hand
``s[STM]``                  side to move (0 sente, 1 gote)
``s[KING_SQ + side]``       square of ``side``'s king
``s[PLY]``                  plies made since the state was created (the history length)
``s[HASH]``                 Zobrist hash of the current position (board, hands, side)
``s[MOVE_NUMBER]``          SFEN move number of the position the state was created from
``s[HIST + 4*p + k]``       history entry of the position at ply ``p`` (0 = the start):
                            ``k = 0`` its hash, ``k = 1`` 1 if its side to move is in check,
                            ``k = 2`` the move made from it (valid for ``p < s[PLY]``)
==========================  ===========================================================

Entries beyond ``s[PLY]`` are stale. The history makes :func:`unmake_move` need no argument
and gives the repetition rule the hashes and check flags it needs. ``len(s) = HIST + 4 *
(capacity + 1)``; :func:`make_move` raises ``IndexError`` when the history is full. A search
works on its own copy (``s.copy()``, or ``np.concatenate`` with zeros for more capacity).

Integer moves
-------------
A move is a non-negative ``int`` (stored as ``int32`` in move buffers)::

    bits 0-4   destination square (0..24)
    bits 5-9   origin square (0..24), or 24 + t for a drop of hand type t (25..29)
    bit  10    promotion
    bits 11-14 type of the captured piece as it stood on the board (0 = no capture)

so ``m & 0x7FF`` is the move as USI sees it and ``(m >> 11) & 15`` tells captures apart (for
quiescence and MVV-LVA ordering). Moves are only meaningful in the position they were generated
in (the capture bits come from it).

Move generation
---------------
:func:`gen_moves` writes the *legal* moves (pawn-drop mates excluded) into a preallocated
``int32`` buffer from a start index and returns their number. It finds the checkers and the
pinned pieces once by scanning the eight rays from the king, so that only king moves need an
attack test; in check it generates only evasions. ``MAX_MOVES`` bounds the number of moves of a
position.

The calls a search makes (all nopython)
---------------------------------------
``gen_moves(s, buf, start, captures_only)`` (legal moves, or legal captures only, the latter
also as ``gen_captures(s, buf, start)``),
``make_move(s, m)``, ``unmake_move(s)``, ``in_check(s)``, ``gives_check(s, m)``,
``is_attacked(s, sq, by)``, ``is_legal(s, m, buf, start)`` (e.g. a transposition-table move),
``is_capture(m)`` / ``captured_type(m)`` / ``is_promotion(m)`` / ``is_drop(m)``, ``last_move(s)``,
``repetition_result(s)``, ``game_result(s, buf, start, max_plies)`` and ``rule_result(s,
max_plies)`` (``RESULT_*`` codes), and ``s[HASH]`` as the transposition key.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros as _clz
from numba.cpython.unsafe.numbers import trailing_zeros as _ctz

from ...runtime.checks import check_int
from ...runtime.kernels import kernel
from . import rules as R

__all__ = [
    "HAND",
    "STM",
    "KING_SQ",
    "PLY",
    "HASH",
    "MOVE_NUMBER",
    "HIST",
    "HIST_STRIDE",
    "MAX_MOVES",
    "MAX_MOVE_NUMBER",
    "MAX_MOVE_CODE",
    "DEFAULT_CAPACITY",
    "PROMOTION_FLAG",
    "DROP_BASE",
    "RESULT_NONE",
    "RESULT_SENTE_WINS",
    "RESULT_GOTE_WINS",
    "RESULT_DRAW",
    "new_state",
    "make_move",
    "unmake_move",
    "gen_moves",
    "gen_captures",
    "first_on_ray",
    "count_legal_moves",
    "has_legal_move",
    "is_legal",
    "in_check",
    "is_attacked",
    "gives_check",
    "last_move",
    "piece_type",
    "piece_owner",
    "other_colour",
    "rotated_square",
    "king_distance",
    "move_to",
    "move_from",
    "is_drop",
    "drop_type",
    "is_promotion",
    "captured_type",
    "is_capture",
    "repetition_result",
    "game_result",
    "rule_result",
    "perft",
    "perft_divide",
]

# ----------------------------------------------------------------------------- state layout
HAND = 25
STM = 35
KING_SQ = 36
PLY = 38
HASH = 39
MOVE_NUMBER = 40
HIST = 48
HIST_STRIDE = 4
#: History capacity (plies) of states made without an explicit capacity.
DEFAULT_CAPACITY = 1024
#: Upper bound on the number of legal moves of a minishogi position (buffer size per ply).
MAX_MOVES = 256
#: Largest SFEN move number accepted (move number + plies stays far from int64 overflow).
MAX_MOVE_NUMBER = 2**31 - 1
#: Largest integer move (15 bits: destination, origin, promotion, captured type).
MAX_MOVE_CODE = (1 << 15) - 1

PROMOTION_FLAG = 1 << 10
DROP_BASE = 24  # origin field of a drop = DROP_BASE + hand type

RESULT_NONE = 0
RESULT_SENTE_WINS = 1
RESULT_GOTE_WINS = 2
RESULT_DRAW = 3

_FULL = (1 << R.SQUARES) - 1
if not R.NO_MOVES_LOSES:    # game_result, the search's mate scores and the learners' terminal
    raise NotImplementedError(   # rewards all score a side without legal moves as lost
        "rules.NO_MOVES_LOSES = False (stalemate is not a loss) is not implemented: "
        "game_result, gamelib.search and gamelib.learn score a side without moves as lost")
_PIECE_CODES = frozenset([0] + [t | (side << 4) for side in (0, 1) for t in range(1, R.N_PIECE_TYPES)])


# ----------------------------------------------------------------------------- tables
def _on_board(rank: int, col: int) -> bool:
    return 0 <= rank < R.RANKS and 0 <= col < R.FILES


def _build_rays():
    """RAY[sq, d, k]: the k-th square from sq in direction d; RAY_N[sq, d]: the ray's length."""
    ray = np.zeros((R.SQUARES, 8, 4), dtype=np.int64)
    ray_n = np.zeros((R.SQUARES, 8), dtype=np.int64)
    for sq in range(R.SQUARES):
        r0, c0 = divmod(sq, R.FILES)
        for d, (dr, dc) in enumerate(R.DIRECTIONS):
            r, c, k = r0 + dr, c0 + dc, 0
            while _on_board(r, c):
                ray[sq, d, k] = r * R.FILES + c
                k += 1
                r, c = r + dr, c + dc
            ray_n[sq, d] = k
    return ray, ray_n


RAY, RAY_N = _build_rays()


def _side_dirs(dirs, side):
    """Directions of a piece of ``side`` (gote's are sente's rotated by 180 degrees)."""
    return tuple((d + 4 * side) % 8 for d in dirs)


def _build_piece_tables():
    step_to = np.zeros((32, R.SQUARES, 8), dtype=np.int64)
    step_n = np.zeros((32, R.SQUARES), dtype=np.int64)
    slide_dir = np.zeros((32, 4), dtype=np.int64)
    slide_nd = np.zeros(32, dtype=np.int64)
    att_adj = np.zeros(32, dtype=np.int64)  # bit d: attacks the adjacent square in direction d
    att_slide = np.zeros(32, dtype=np.int64)  # bit d: attacks along the ray in direction d
    promote = np.zeros(32, dtype=np.int64)  # promoted code, 0 if the piece cannot promote
    unpromote = np.zeros(32, dtype=np.int64)  # code of the unpromoted piece
    dead = np.zeros(32, dtype=np.int64)  # squares where the unpromoted piece may not stand
    for side in (R.SENTE, R.GOTE):
        for t in range(1, R.N_PIECE_TYPES):
            pc = t | (side << 4)
            steps = _side_dirs(R.STEPS[t], side)
            slides = _side_dirs(R.SLIDES[t], side)
            for sq in range(R.SQUARES):
                k = 0
                for d in steps:
                    if RAY_N[sq, d] > 0:
                        step_to[pc, sq, k] = RAY[sq, d, 0]
                        k += 1
                step_n[pc, sq] = k
            for j, d in enumerate(slides):
                slide_dir[pc, j] = d
            slide_nd[pc] = len(slides)
            att_adj[pc] = sum(1 << d for d in set(steps) | set(slides))
            att_slide[pc] = sum(1 << d for d in slides)
            if t in R.PROMOTES_TO:
                promote[pc] = R.PROMOTES_TO[t] | (side << 4)
            unpromote[pc] = R.UNPROMOTED.get(t, t) | (side << 4)
            for rank in R.DEAD_RANKS[side].get(t, ()):
                for col in range(R.FILES):
                    dead[pc] |= 1 << (rank * R.FILES + col)
    return step_to, step_n, slide_dir, slide_nd, att_adj, att_slide, promote, unpromote, dead


(
    STEP_TO,
    STEP_N,
    SLIDE_DIR,
    SLIDE_ND,
    ATT_ADJ,
    ATT_SLIDE,
    PROMOTE,
    UNPROMOTE,
    DEAD,
) = _build_piece_tables()

#: Hand type (1..5) a captured piece of each type goes to.
HAND_TYPE_OF = np.array([0] + [R.UNPROMOTED.get(t, t) for t in range(1, R.N_PIECE_TYPES)] + [0] * 5, dtype=np.int64)


def _build_zones():
    zone = np.zeros(2, dtype=np.int64)
    for side in (R.SENTE, R.GOTE):
        for rank in R.PROMOTION_RANKS[side]:
            for col in range(R.FILES):
                zone[side] |= 1 << (rank * R.FILES + col)
    return zone


ZONE = _build_zones()


def _build_masks():
    """STEP_MASK[code, sq]: the squares a piece reaches by one step; RAY_MASK[sq, d]: the squares
    of the ray from sq in direction d; RAY_UP[d]: the ray's squares increase along it (its first
    square is its lowest bit)."""
    step_mask = np.zeros((32, R.SQUARES), dtype=np.int64)
    for pc in range(32):
        for sq in range(R.SQUARES):
            for j in range(int(STEP_N[pc, sq])):
                step_mask[pc, sq] |= 1 << int(STEP_TO[pc, sq, j])
    ray_mask = np.zeros((R.SQUARES, 8), dtype=np.int64)
    for sq in range(R.SQUARES):
        for d in range(8):
            for k in range(int(RAY_N[sq, d])):
                ray_mask[sq, d] |= 1 << int(RAY[sq, d, k])
    ray_up = np.array([R.FILES * dr + dc > 0 for dr, dc in R.DIRECTIONS])
    return step_mask, ray_mask, ray_up


STEP_MASK, RAY_MASK, RAY_UP = _build_masks()
#: Square a pawn of each side attacks from a square (-1 off the board): its forward neighbour.
PAWN_FRONT = np.array(
    [[RAY[sq, (R.N + 4 * side) % 8, 0] if RAY_N[sq, (R.N + 4 * side) % 8] else -1 for sq in range(R.SQUARES)] for side in (0, 1)],
    dtype=np.int64,
)
#: Square where a pawn of each side would check a king on a square (-1: none).
PAWN_CHECK_SQ = np.full((2, R.SQUARES), -1, dtype=np.int64)
for _side in (0, 1):
    for _sq in range(R.SQUARES):
        if PAWN_FRONT[_side, _sq] >= 0:
            PAWN_CHECK_SQ[_side, PAWN_FRONT[_side, _sq]] = _sq
del _side, _sq


def _build_lines():
    """BETWEEN[a, b]: squares strictly between aligned a and b; LINE[a, b]: the whole line."""
    between = np.zeros((R.SQUARES, R.SQUARES), dtype=np.int64)
    line = np.zeros((R.SQUARES, R.SQUARES), dtype=np.int64)
    for a in range(R.SQUARES):
        for d in range(8):
            full = 1 << a
            for k in range(RAY_N[a, d]):
                full |= 1 << int(RAY[a, d, k])
            for k in range(RAY_N[a, (d + 4) % 8]):
                full |= 1 << int(RAY[a, (d + 4) % 8, k])
            acc = 0
            for k in range(RAY_N[a, d]):
                b = int(RAY[a, d, k])
                between[a, b] = acc
                line[a, b] = full
                acc |= 1 << b
    return between, line


BETWEEN, LINE = _build_lines()
#: FILE_MASKS[c]: the squares of the files whose bits are set in the 5-bit mask c (bit = sq % 5).
FILE_MASKS = np.array([sum(1 << sq for sq in range(R.SQUARES) if (c >> (sq % R.FILES)) & 1)
                       for c in range(1 << R.FILES)], dtype=np.int64)


def _build_directions():
    """DIRECTION[a, b]: the direction d (0..7) with b on the ray from a in direction d, -1 if
    the squares are not aligned."""
    direction = np.full((R.SQUARES, R.SQUARES), -1, dtype=np.int64)
    for a in range(R.SQUARES):
        for d in range(8):
            for k in range(RAY_N[a, d]):
                direction[a, int(RAY[a, d, k])] = d
    return direction


DIRECTION = _build_directions()


def _build_zobrist(seed: int = 20240525):
    rng = np.random.default_rng(seed)
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    z_piece = rng.integers(lo, hi, size=(32, R.SQUARES), dtype=np.int64, endpoint=True)
    z_piece[0, :] = 0
    z_hand = rng.integers(lo, hi, size=(2, 6, 8), dtype=np.int64, endpoint=True)
    z_hand[:, :, 0] = 0
    z_side = np.int64(rng.integers(lo, hi, dtype=np.int64, endpoint=True))
    return z_piece, z_hand, z_side


Z_PIECE, Z_HAND, Z_SIDE = _build_zobrist()

_REP_COUNT = R.REPETITION_COUNT
_REP_LOSER = R.REPETITION_LOSER
_PERPETUAL = R.PERPETUAL_CHECK_LOSES
_NIFU = R.NIFU
_UCHIFUZUME = R.PAWN_DROP_MATE_ILLEGAL
_PAWN = R.PAWN
_KING = R.KING


# ----------------------------------------------------------------------------- move fields
@njit(cache=True, inline="always")
def move_to(m):
    """Destination square of move ``m``."""
    return m & 31


@njit(cache=True, inline="always")
def move_from(m):
    """Origin square of a board move (25..29 for drops: use :func:`drop_type`)."""
    return (m >> 5) & 31


@njit(cache=True, inline="always")
def is_drop(m):
    """True if ``m`` drops a piece from the hand."""
    return ((m >> 5) & 31) > DROP_BASE


@njit(cache=True, inline="always")
def drop_type(m):
    """Piece type (1..5) a drop puts on the board (meaningless for board moves)."""
    return ((m >> 5) & 31) - DROP_BASE


@njit(cache=True, inline="always")
def is_promotion(m):
    """True if ``m`` promotes the moving piece."""
    return (m >> 10) & 1 == 1


@njit(cache=True, inline="always")
def captured_type(m):
    """Type (1..10) of the piece ``m`` captures, 0 if none."""
    return (m >> 11) & 15


@njit(cache=True, inline="always")
def is_capture(m):
    """True if ``m`` captures a piece."""
    return ((m >> 11) & 15) != 0


# ----------------------------------------------------------------------------- piece and square fields
@njit(cache=True, inline="always")
def piece_type(pc):
    """Type (1..10, 0 for an empty square) of piece code ``pc``."""
    return pc & 15


@njit(cache=True, inline="always")
def piece_owner(pc):
    """Owner (0 sente, 1 gote) of the piece code ``pc`` of an occupied square."""
    return pc >> 4


@njit(cache=True, inline="always")
def other_colour(pc):
    """The code of the same piece type owned by the other side (``pc`` not empty)."""
    return pc ^ 16


@njit(cache=True, inline="always")
def rotated_square(sq):
    """The square ``sq`` turned by 180 degrees (the other side's view of the board)."""
    return R.SQUARES - 1 - sq


@njit(cache=True, inline="always")
def king_distance(a, b):
    """Number of king steps between squares ``a`` and ``b`` (max of the rank and file distances)."""
    return max(abs(a // R.FILES - b // R.FILES), abs(a % R.FILES - b % R.FILES))


# ----------------------------------------------------------------------------- attacks
@kernel
def _attacked_by(s, sq, by, occ):
    """True if side ``by`` attacks ``sq``, the board's occupied squares taken to be those of the
    bitmask ``occ`` (a square left out of it counts as empty: the king that moves away, in the
    callers). On each of the eight rays from ``sq`` the first piece of ``occ`` decides: it
    attacks if it is ``by``'s and moves back along the ray (one step if adjacent, else as a
    slider)."""
    for d in range(8):
        t = first_on_ray(sq, d, occ)
        if t < 0:
            continue
        q = s[t]
        if (q >> 4) == by:
            od = (d + 4) & 7
            if t == RAY[sq, d, 0]:
                if (ATT_ADJ[q] >> od) & 1:
                    return True
            elif (ATT_SLIDE[q] >> od) & 1:
                return True
    return False


@njit(cache=True, inline="always")
def _ray_attacker(s, sq, d, by):
    """True if the first piece on the ray from ``sq`` in direction ``d`` is ``by``'s and
    attacks ``sq`` (one direction of :func:`_attacked_by`)."""
    od = (d + 4) & 7
    for k in range(RAY_N[sq, d]):
        q = s[RAY[sq, d, k]]
        if q == 0:
            continue
        if (q >> 4) != by:
            return False
        if k == 0:
            return (ATT_ADJ[q] >> od) & 1 == 1
        return (ATT_SLIDE[q] >> od) & 1 == 1
    return False


@njit(cache=True, inline="always")
def _checks_after(s, side, frm, to):
    """True if ``side``'s move from ``frm`` (> DROP_BASE: a drop) to ``to``, just made, checks
    the enemy king: :func:`_attacked_by` of the enemy king's square, given that the enemy king
    was not attacked before the move (a legal position). Only two rays can have changed: the one
    from the king through ``to`` (the moved piece) and the one through ``frm`` (a discovered
    attack)."""
    ek = s[KING_SQ + 1 - side]
    d = DIRECTION[ek, to]
    if d >= 0 and _ray_attacker(s, ek, d, side):
        return True
    if frm > DROP_BASE:
        return False
    d2 = DIRECTION[ek, frm]
    return d2 >= 0 and d2 != d and _ray_attacker(s, ek, d2, side)


@kernel
def is_attacked(s, sq, by):
    """True if side ``by`` attacks square ``sq`` in state ``s``."""
    own, other = _occupancy(s, 0)
    return _attacked_by(s, sq, by, own | other)


@njit(cache=True, inline="always")
def _occupancy(s, side):
    """Bitmasks of the squares of ``side``'s pieces and of the other side's."""
    own = 0
    other = 0
    for sq in range(25):
        q = s[sq]
        own |= np.int64(q != 0 and (q >> 4) == side) << sq
        other |= np.int64(q != 0 and (q >> 4) != side) << sq
    return own, other


@kernel
def _checkers_and_pins(s, side, ksq, occ):
    """Checkers of ``side``'s king on ``ksq``: (count, square of one checker, pinned bitboard);
    ``occ`` is the occupancy bitmask. On each of the eight rays from the king: the first piece,
    a checker if it is the enemy's and attacks the king, else the next one behind it, which pins
    it if it is an enemy slider along the ray."""
    n_check = 0
    csq = -1
    pinned = 0
    enemy = 1 - side
    for d in range(8):
        t = first_on_ray(ksq, d, occ)
        if t < 0:
            continue
        od = (d + 4) & 7
        q = s[t]
        if (q >> 4) == enemy:
            if t == RAY[ksq, d, 0]:
                hit = (ATT_ADJ[q] >> od) & 1
            else:
                hit = (ATT_SLIDE[q] >> od) & 1
            if hit:
                n_check += 1
                csq = t
        else:
            b = first_on_ray(t, d, occ)
            if b >= 0 and (s[b] >> 4) == enemy and (ATT_SLIDE[s[b]] >> od) & 1:
                pinned |= 1 << t
    return n_check, csq, pinned


@kernel
def _pawn_drop_mates(s, side, to):
    """True if ``side`` dropping a pawn on ``to`` (which checks the enemy king) is checkmate."""
    enemy = 1 - side
    ek = s[KING_SQ + enemy]
    s[to] = _PAWN | (side << 4)
    mate = True
    kpc = s[ek]
    own, other = _occupancy(s, enemy)
    away = (own | other) & ~(np.int64(1) << ek)  # the king's steps: its square empty
    for k in range(STEP_N[kpc, ek]):
        x = STEP_TO[kpc, ek, k]
        q = s[x]
        if q != 0 and (q >> 4) == enemy:
            continue
        if not _attacked_by(s, x, side, away):
            mate = False
            break
    if mate:
        # capture of the pawn by a piece other than the king (the king was tried above)
        pinned = _checkers_and_pins(s, enemy, ek, own | other)[2]
        for d in range(8):
            od = (d + 4) & 7
            for k in range(RAY_N[to, d]):
                x = RAY[to, d, k]
                q = s[x]
                if q == 0:
                    continue
                if (q >> 4) == enemy and x != ek:
                    if k == 0:
                        hit = (ATT_ADJ[q] >> od) & 1
                    else:
                        hit = (ATT_SLIDE[q] >> od) & 1
                    if hit and (((pinned >> x) & 1) == 0 or ((LINE[ek, x] >> to) & 1) == 1):
                        mate = False
                break
            if not mate:
                break
    s[to] = 0
    return mate


# ----------------------------------------------------------------------------- generation
@njit(cache=True, inline="always")
def _add_moves(buf, n, frm, to, pc, cap_type, side):
    """Append the board move(s) frm->to of piece ``pc``: with and/or without promotion."""
    base = to | (frm << 5) | (cap_type << 11)
    prom = PROMOTE[pc]
    if prom != 0 and (((ZONE[side] >> frm) & 1) | ((ZONE[side] >> to) & 1)):
        buf[n] = base | PROMOTION_FLAG
        n += 1
        if (DEAD[pc] >> to) & 1:
            return n
    buf[n] = base
    return n + 1


@kernel
def gen_moves(s, buf, start, captures_only):
    """Write the legal moves of ``s`` into ``buf[start:]`` and return how many there are.

    Parameters
    ----------
    s : int64 array
        The state.
    buf : int32 array
        Move buffer with room for ``MAX_MOVES`` moves from ``start``.
    start : int
        Index of the first move written.
    captures_only : bool
        Only the legal captures (with or without promotion); no drops.

    Returns
    -------
    int
        Number of moves written. Pawn drops that would mate are not generated.
    """
    if captures_only:
        return gen_captures(s, buf, start)
    return _legal_moves(s, buf, start, False)


@njit(cache=True, inline="always")
def _legal_moves(s, buf, start, first_only):
    """:func:`gen_moves` of all moves; ``first_only``: stop after the king's moves or the board
    moves once there is one (for :func:`has_legal_move`)."""
    side = s[STM]
    enemy = 1 - side
    ksq = s[KING_SQ + side]
    own_occ, enemy_occ = _occupancy(s, side)
    n_check, csq, pinned = _checkers_and_pins(s, side, ksq, own_occ | enemy_occ)
    n = start
    kpc = s[ksq]
    kt = STEP_MASK[kpc, ksq] & ~own_occ
    if kt:
        # the squares the enemy attacks, its sliders seeing through our king: the king's
        # steps are :func:`_attacked_by` (s, t, enemy, ksq) of each target in one pass
        occ = (own_occ | enemy_occ) & ~(np.int64(1) << ksq)
        att = 0
        rest = enemy_occ
        while rest:
            sq = _ctz(rest)
            rest &= rest - 1
            q = s[sq]
            att |= STEP_MASK[q, sq]
            for j in range(SLIDE_ND[q]):
                d = SLIDE_DIR[q, j]
                t = first_on_ray(sq, d, occ)
                att |= RAY_MASK[sq, d] if t < 0 else BETWEEN[sq, t] | (np.int64(1) << t)
        for k in range(STEP_N[kpc, ksq]):
            t = STEP_TO[kpc, ksq, k]
            if ((kt >> t) & 1) == 0 or (att >> t) & 1:
                continue
            buf[n] = t | (ksq << 5) | ((s[t] & 15) << 11)
            n += 1
    if n_check > 1 or (first_only and n > start):
        return n - start
    if n_check == 1:
        drop_target = BETWEEN[ksq, csq]
        target = drop_target | (1 << csq)
    else:
        drop_target = _FULL
        target = _FULL
    own_pawn = _PAWN | (side << 4)
    pawn_cols = 0
    rest = own_occ
    while rest:
        frm = _ctz(rest)
        rest &= rest - 1
        pc = s[frm]
        if pc == own_pawn:
            pawn_cols |= 1 << (frm % 5)
        if frm == ksq:
            continue
        tmask = target
        if (pinned >> frm) & 1:
            tmask &= LINE[ksq, frm]
        if tmask == 0:
            continue
        for k in range(STEP_N[pc, frm]):
            t = STEP_TO[pc, frm, k]
            if ((tmask >> t) & 1) == 0:
                continue
            q = s[t]
            if q != 0 and (q >> 4) == side:
                continue
            n = _add_moves(buf, n, frm, t, pc, q & 15, side)
        for j in range(SLIDE_ND[pc]):
            d = SLIDE_DIR[pc, j]
            for k in range(RAY_N[frm, d]):
                t = RAY[frm, d, k]
                q = s[t]
                if q != 0 and (q >> 4) == side:
                    break
                if (tmask >> t) & 1:
                    n = _add_moves(buf, n, frm, t, pc, q & 15, side)
                if q != 0:
                    break
    if drop_target == 0 or (first_only and n > start):
        return n - start
    h = HAND + 5 * side
    if s[h] + s[h + 1] + s[h + 2] + s[h + 3] + s[h + 4] == 0:
        return n - start
    ek_front = PAWN_CHECK_SQ[side, s[KING_SQ + enemy]]  # where our pawn would check their king
    pawn_squares = ~DEAD[own_pawn]  # where a pawn may be dropped
    if _NIFU:
        pawn_squares &= ~FILE_MASKS[pawn_cols]
    in_hand = 0  # bit ht: a piece of hand type ht in hand
    for ht in range(1, 6):
        in_hand |= np.int64(s[h + ht - 1] != 0) << ht
    empty = drop_target & ~(own_occ | enemy_occ) & _FULL
    while empty:
        t = _ctz(empty)
        empty &= empty - 1
        types = in_hand
        while types:
            ht = _ctz(types)
            types &= types - 1
            if ht == _PAWN:
                if ((pawn_squares >> t) & 1) == 0:
                    continue
                if _UCHIFUZUME and t == ek_front and _pawn_drop_mates(s, side, t):
                    continue
            buf[n] = t | ((DROP_BASE + ht) << 5)
            n += 1
    return n - start


@njit(cache=True, inline="always")
def first_on_ray(sq, d, occ):
    """The first occupied square (bit of ``occ``) on the ray from ``sq`` in direction ``d``,
    -1 if there is none."""
    hit = RAY_MASK[sq, d] & occ
    if hit == 0:
        return -1
    return _ctz(hit) if RAY_UP[d] else 63 - _clz(hit)


@kernel
def gen_captures(s, buf, start):
    """:func:`gen_moves` with ``captures_only``: the legal captures (with or without promotion)
    into ``buf[start:]``, in the same order; returns their number.

    Pieces without an enemy piece in reach are skipped by bitmask tests, and a slider's capture
    is the first piece on each of its rays.
    """
    side = s[STM]
    enemy = 1 - side
    ksq = s[KING_SQ + side]
    own_occ, enemy_occ = _occupancy(s, side)
    occ = own_occ | enemy_occ
    n_check, csq, pinned = _checkers_and_pins(s, side, ksq, occ)
    n = start
    kpc = s[ksq]
    if STEP_MASK[kpc, ksq] & enemy_occ:
        away = occ & ~(np.int64(1) << ksq)  # the king gone: sliders see through its square
        for k in range(STEP_N[kpc, ksq]):
            t = STEP_TO[kpc, ksq, k]
            if ((enemy_occ >> t) & 1) == 0 or _attacked_by(s, t, enemy, away):
                continue
            buf[n] = t | (ksq << 5) | ((s[t] & 15) << 11)
            n += 1
    if n_check > 1:
        return n - start
    target = enemy_occ
    if n_check == 1:
        target &= 1 << csq
    rest = own_occ & ~(np.int64(1) << ksq)
    while rest:
        frm = _ctz(rest)
        rest &= rest - 1
        pc = s[frm]
        tmask = target
        if (pinned >> frm) & 1:
            tmask &= LINE[ksq, frm]
        if tmask == 0:
            continue
        if STEP_MASK[pc, frm] & tmask:
            for k in range(STEP_N[pc, frm]):
                t = STEP_TO[pc, frm, k]
                if (tmask >> t) & 1:
                    n = _add_moves(buf, n, frm, t, pc, s[t] & 15, side)
        for j in range(SLIDE_ND[pc]):
            t = first_on_ray(frm, SLIDE_DIR[pc, j], occ)
            if t >= 0 and (tmask >> t) & 1:
                n = _add_moves(buf, n, frm, t, pc, s[t] & 15, side)
    return n - start


@kernel
def count_legal_moves(s, buf, start):
    """Number of legal moves of ``s`` (``buf[start:]`` is used as scratch space)."""
    return gen_moves(s, buf, start, False)


@kernel
def has_legal_move(s, buf, start):
    """True if the side to move has a legal move (``buf[start:]`` is scratch space; the
    generation stops at the first kind of moves that has one)."""
    return _legal_moves(s, buf, start, True) > 0


@kernel
def is_legal(s, m, buf, start):
    """True if ``m`` (its low 11 bits: destination, origin, promotion) is legal in ``s``.

    Use it to validate a move from elsewhere, e.g. a transposition-table move; ``buf[start:]``
    is scratch space.
    """
    key = m & 0x7FF
    n = gen_moves(s, buf, start, False)
    for i in range(start, start + n):
        if (buf[i] & 0x7FF) == key:
            return True
    return False


# ----------------------------------------------------------------------------- make / unmake
@kernel
def make_move(s, m):
    """Play legal move ``m`` (as generated for ``s``) in place, recording it in the history.

    The history's check flag of the new position is found on the two rays from the enemy king
    that the move can change (through its destination and through its origin), which assumes a
    legal position: the side not to move is not in check (as in every position of a game, and
    as :func:`gamelib.games.minishogi.notation.parse_sfen` ensures)."""
    p = s[PLY]
    base = HIST + HIST_STRIDE * p
    if base + 2 * HIST_STRIDE > s.shape[0]:
        raise IndexError("minishogi state history is full: make the state with a larger capacity")
    side = s[STM]
    h = s[HASH]
    to = m & 31
    frm = (m >> 5) & 31
    s[base + 2] = m
    if frm > DROP_BASE:
        t = frm - DROP_BASE
        pc = t | (side << 4)
        hi = HAND + 5 * side + t - 1
        cnt = s[hi]
        h ^= Z_HAND[side, t, cnt] ^ Z_HAND[side, t, cnt - 1]
        s[hi] = cnt - 1
        s[to] = pc
        h ^= Z_PIECE[pc, to]
    else:
        pc = s[frm]
        s[frm] = 0
        h ^= Z_PIECE[pc, frm]
        q = s[to]
        if q != 0:
            h ^= Z_PIECE[q, to]
            t = HAND_TYPE_OF[q & 15]
            hi = HAND + 5 * side + t - 1
            cnt = s[hi]
            h ^= Z_HAND[side, t, cnt] ^ Z_HAND[side, t, cnt + 1]
            s[hi] = cnt + 1
        if (m >> 10) & 1:
            pc = PROMOTE[pc]
        s[to] = pc
        h ^= Z_PIECE[pc, to]
        if (pc & 15) == _KING:
            s[KING_SQ + side] = to
    enemy = 1 - side
    h ^= Z_SIDE
    s[STM] = enemy
    s[HASH] = h
    s[PLY] = p + 1
    nb = base + HIST_STRIDE
    s[nb] = h
    s[nb + 1] = 1 if _checks_after(s, side, frm, to) else 0
    s[nb + 2] = 0


@kernel
def unmake_move(s):
    """Take back the last move made with :func:`make_move`."""
    p = s[PLY] - 1
    base = HIST + HIST_STRIDE * p
    m = s[base + 2]
    side = 1 - s[STM]
    to = m & 31
    frm = (m >> 5) & 31
    if frm > DROP_BASE:
        s[to] = 0
        s[HAND + 5 * side + frm - DROP_BASE - 1] += 1
    else:
        pc = s[to]
        if (m >> 10) & 1:
            pc = UNPROMOTE[pc]
        s[frm] = pc
        cap = (m >> 11) & 15
        if cap != 0:
            s[to] = cap | ((1 - side) << 4)
            s[HAND + 5 * side + HAND_TYPE_OF[cap] - 1] -= 1
        else:
            s[to] = 0
        if (pc & 15) == _KING:
            s[KING_SQ + side] = frm
    s[STM] = side
    s[PLY] = p
    s[HASH] = s[base]
    s[base + 2] = 0


@kernel
def in_check(s):
    """True if the side to move is in check (read from the history, no attack scan)."""
    return s[HIST + HIST_STRIDE * s[PLY] + 1] != 0


@kernel
def last_move(s):
    """The move that led to the current position, -1 at the state's first position."""
    p = s[PLY]
    if p == 0:
        return -1
    return s[HIST + HIST_STRIDE * (p - 1) + 2]


@kernel
def gives_check(s, m):
    """True if legal move ``m`` checks the opponent's king."""
    make_move(s, m)
    r = s[HIST + HIST_STRIDE * s[PLY] + 1] != 0
    unmake_move(s)
    return r


# ----------------------------------------------------------------------------- state creation
@kernel
def _fill_state(s, board, hands, side, move_number):
    for sq in range(25):
        s[sq] = board[sq]
    for i in range(10):
        s[HAND + i] = hands[i]
    s[STM] = side
    s[PLY] = 0
    s[MOVE_NUMBER] = move_number
    h = 0
    for sq in range(25):
        pc = board[sq]
        if pc != 0:
            h ^= Z_PIECE[pc, sq]
            if (pc & 15) == _KING:
                s[KING_SQ + (pc >> 4)] = sq
    for c in range(2):
        for t in range(1, 6):
            h ^= Z_HAND[c, t, hands[5 * c + t - 1]]
    if side == 1:
        h ^= Z_SIDE
    s[HASH] = h
    s[HIST] = h
    own, other = _occupancy(s, side)
    s[HIST + 1] = 1 if _attacked_by(s, s[KING_SQ + side], 1 - side, own | other) else 0
    s[HIST + 2] = 0


def new_state(board, hands, side, move_number=1, capacity=DEFAULT_CAPACITY):
    """A fresh state array (no history) from a validated position.

    Parameters
    ----------
    board : sequence of 25 ints
        Piece codes by square (exactly one king per side; not validated here: use
        :func:`gamelib.games.minishogi.sfen.parse_sfen` for untrusted input).
    hands : sequence of 10 ints
        ``hands[5 * side + t - 1]``: pieces of type ``t`` (1..5) in ``side``'s hand.
    side : int
        Side to move (0 sente, 1 gote).
    move_number : int
        SFEN move number of the position.
    capacity : int
        Number of plies the history can hold.

    Raises
    ------
    ValueError
        If ``board`` or ``hands`` has the wrong length or holds an invalid code or count, or
        ``side``, ``move_number`` or ``capacity`` is out of range.
    """
    if len(board) != R.SQUARES or not all(c in _PIECE_CODES for c in board):
        raise ValueError(f"board must be {R.SQUARES} piece codes (0, 1..10 sente, 17..26 gote)")
    if len(hands) != 10 or not all(c in (0, 1, 2) for c in hands):
        raise ValueError("hands must be 10 counts, each an integer in [0, 2]")
    side = check_int("side", side, 0, 1)
    move_number = check_int("move_number", move_number, 1, MAX_MOVE_NUMBER)
    capacity = check_int("capacity", capacity, 0, 2**31 - 1)
    s = np.zeros(HIST + HIST_STRIDE * (capacity + 1), dtype=np.int64)
    _fill_state(s, np.asarray(board, dtype=np.int64), np.asarray(hands, dtype=np.int64), side, move_number)
    return s


# ----------------------------------------------------------------------------- game end
@kernel
def repetition_result(s):
    """Result of the repetition rule at the current position (``RESULT_*``).

    The current position ends the game if it is the ``REPETITION_COUNT``-th occurrence (same
    hash: board, hands, side to move) within the state's history. Then, as in Fairy-Stockfish:
    if one side checked with each of its moves since the first of those occurrences, that side
    loses (both: draw); otherwise sente loses.
    """
    p = s[PLY]
    if p < 4:
        return RESULT_NONE
    h = s[HIST + HIST_STRIDE * p]
    them = s[HIST + HIST_STRIDE * p + 1] != 0 and s[HIST + HIST_STRIDE * (p - 2) + 1] != 0
    us = s[HIST + HIST_STRIDE * (p - 1) + 1] != 0 and s[HIST + HIST_STRIDE * (p - 3) + 1] != 0
    cnt = 0
    i = 4
    while i <= p:
        q = p - i
        e = HIST + HIST_STRIDE * q
        them = them and s[e + 1] != 0
        if s[e] == h:
            cnt += 1
            if cnt + 1 == _REP_COUNT:
                stm = s[STM]
                if _PERPETUAL and (them or us):
                    if them and us:
                        return RESULT_DRAW
                    # the side that checked perpetually loses
                    loser = 1 - stm if them else stm
                else:
                    loser = _REP_LOSER
                return RESULT_GOTE_WINS if loser == 0 else RESULT_SENTE_WINS
        if q >= 1:
            us = us and s[e - HIST_STRIDE + 1] != 0
        i += 2
    return RESULT_NONE


@kernel
def game_result(s, buf, start, max_plies):
    """Result (``RESULT_*``) of the game at the current position, by the rules and the ply cap.

    A side without legal moves loses (:data:`~gamelib.games.minishogi.rules.NO_MOVES_LOSES`); then
    the repetition rule; then, if ``max_plies > 0`` and
    the game has lasted ``max_plies`` plies (``MOVE_NUMBER - 1 + PLY``), a draw.
    ``buf[start:]`` is scratch space for the move generator.
    """
    if not has_legal_move(s, buf, start):
        return RESULT_GOTE_WINS if s[STM] == 0 else RESULT_SENTE_WINS
    return rule_result(s, max_plies)


@kernel
def rule_result(s, max_plies):
    """:func:`game_result` for a side that has a legal move: the repetition rule, then the ply
    cap (a loop that generates the moves anyway tests for none itself and saves a generation)."""
    r = repetition_result(s)
    if r != RESULT_NONE:
        return r
    if max_plies > 0 and s[MOVE_NUMBER] - 1 + s[PLY] >= max_plies:
        return RESULT_DRAW
    return RESULT_NONE


# ----------------------------------------------------------------------------- perft
@njit(cache=True)
def perft(s, depth):
    """Number of legal move sequences of length ``depth`` from ``s`` (leaves of the game tree).

    No game-end truncation (repetitions are not terminal); pawn-drop mates are not moves.
    The last ply is counted without being played (bulk counting). ``s`` is restored.
    """
    if depth <= 0:
        return 1
    buf = np.empty(depth * MAX_MOVES, dtype=np.int32)
    if depth == 1:
        return gen_moves(s, buf, 0, False)
    idx = np.zeros(depth, dtype=np.int64)
    cnt = np.zeros(depth, dtype=np.int64)
    cnt[0] = gen_moves(s, buf, 0, False)
    ply = 0
    total = 0
    while True:
        if idx[ply] < cnt[ply]:
            m = np.int64(buf[ply * MAX_MOVES + idx[ply]])
            idx[ply] += 1
            make_move(s, m)
            if ply + 2 == depth:
                total += gen_moves(s, buf, (ply + 1) * MAX_MOVES, False)
                unmake_move(s)
            else:
                ply += 1
                idx[ply] = 0
                cnt[ply] = gen_moves(s, buf, ply * MAX_MOVES, False)
        else:
            if ply == 0:
                break
            unmake_move(s)
            ply -= 1
    return total


@njit(cache=True)
def perft_divide(s, depth, moves_out, counts_out):
    """Perft split by first move: fills ``moves_out``/``counts_out``, returns the move count."""
    buf = np.empty(MAX_MOVES, dtype=np.int32)
    n = gen_moves(s, buf, 0, False)
    for i in range(n):
        m = np.int64(buf[i])
        moves_out[i] = m
        make_move(s, m)
        counts_out[i] = perft(s, depth - 1)
        unmake_move(s)
    return n

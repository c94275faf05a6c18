"""5×5 shogi behind the game protocol: the kernels of :mod:`gamelib.games.minishogi.core` and the
PGLeaf paper's linear evaluation (:mod:`gamelib.games.minishogi.features`), as they are.

The state is the core's ``int64`` array (position and history, :func:`gamelib.games.minishogi.core.
new_state`); moves, make/unmake, the incremental Zobrist key ``s[HASH]``, the captures that
quiescence searches and the check flag are the core's own functions. The wrappers below only
fix an argument or translate a code:

* ``outcome``: the core's ``game_result`` without a ply cap (a side without legal moves loses,
  then the repetition rule), its ``RESULT_*`` code turned into the side to move's view;
* ``hash_from_scratch``: the key that :func:`gamelib.games.minishogi.core.new_state` computes for a
  fresh state of the same board, hands and side to move;
* ``live_length``: the position's entries and the history up to the current ply
  (``HIST + 4·PLY + 3``: its hash, check flag and move slot).

For searches: ``order_key`` is MVV-LVA on the captured and the moving piece types plus a
promotion bonus; a move is quiet without capture and promotion; ``move_code`` is the move's
low 11 bits (destination, origin, promotion: the captured piece follows from the position),
``move_index`` its low 10 (a promotion shares the row of the same move without, as only quiet
moves use it); ``history_key`` reads the key the history keeps for every ply;
``repetition`` is :func:`repetition_verdict` (the rules' fourth occurrence, with cycles inside
a search judged as completed); ``evaluate_kind`` is :func:`gamelib.games.minishogi.features.
evaluate_kind` (0 material, 1 linear; declared in ``EVAL_KINDS``); ``pack_position`` puts the 25
squares, the hands and the side to move into three words.

The evaluation is θ·φ(s) with the 15,773 features of :mod:`gamelib.games.minishogi.features`
(``evaluate`` and ``features`` are that module's; ``leaf_features`` and
``evaluate_and_features`` are its ``features_unsorted`` and ``evaluate_and_features_unsorted``,
which merge a repeated index without a sort; ``prepare_weights`` is its ``prepare_into``, the pair
table; ``TEMPO_INDEX`` and ``SIDE_HALF`` are its tempo feature and the offset of the other side's
block; ``initial_theta``, ``check_theta``, ``save_theta`` and ``load_theta`` are its own). ``room`` counts the history's free rows. ``bonus_counts`` counts the enclosing golds and
silvers of the PGLeaf paper's non-MDP reward (:func:`bonus_counts`). Perft counts move sequences only (a position
without moves is no leaf before the last ply), as the published minishogi numbers do.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import features as _ev
from .reference import REFERENCE_QDEPTH, reference_theta
from . import core as _core
from . import rules as _rules
from .notation import format_usi, usi_to_move
from .position import Position
from gamelib.runtime.kernels import kernel
from ..protocol import DRAW, EVAL_LINEAR, LOSS, ONGOING, WIN, EvalKind, Reference

__all__ = ["REFERENCE", "start", "with_room", "move_text", "parse_move", "initial_theta", "check_theta", "save_theta",
           "load_theta", "MAX_MOVES", "N_FEATURES", "MAX_ACTIVE", "PASS", "PERFT_END_LEAF",
           "gen_moves", "count_moves", "gen_noisy", "make_move", "unmake_move", "outcome",
           "in_check", "side_to_move", "game_ply", "hash_key", "hash_from_scratch",
           "live_length", "evaluate", "features", "has_moves", "order_key", "is_quiet",
           "move_code", "move_index", "plies_made", "history_key", "repetition",
           "repetition_verdict", "evaluate_kind", "pack_position", "room", "leaf_features",
           "evaluate_and_features", "prepare_weights", "bonus_counts", "MOVE_INDEX_SIZE",
           "HAS_REPETITION", "N_WEIGHTS", "HAS_BONUS", "TEMPO_INDEX", "SIDE_HALF", "EVAL_KINDS"]

MAX_MOVES = _core.MAX_MOVES
N_FEATURES = _ev.N_FEATURES
MAX_ACTIVE = _ev.MAX_ACTIVE
PASS = -1
PERFT_END_LEAF = 0
MOVE_INDEX_SIZE = 1024
HAS_REPETITION = 1
N_WEIGHTS = _ev.N_WEIGHTS
HAS_BONUS = 1
TEMPO_INDEX = _ev.TEMPO_INDEX
SIDE_HALF = _ev.OPP_OFFSET

count_moves = _core.count_legal_moves
gen_noisy = _core.gen_captures
make_move = _core.make_move
unmake_move = _core.unmake_move
in_check = _core.in_check
evaluate = _ev.evaluate
features = _ev.features
has_moves = _core.has_legal_move
evaluate_kind = _ev.evaluate_kind
leaf_features = _ev.features_unsorted
evaluate_and_features = _ev.evaluate_and_features_unsorted
prepare_weights = _ev.prepare_into
initial_theta = _ev.initial_theta
check_theta = _ev.check_theta
save_theta = _ev.save_theta
load_theta = _ev.load_theta
#: The evaluation kinds of ``evaluate_kind`` (:mod:`gamelib.games.protocol`): material only and
#: the linear evaluation, both reading θ.
EVAL_KINDS = {_ev.EVAL_MATERIAL: EvalKind("material", check_theta),
              EVAL_LINEAR: EvalKind("linear", check_theta)}
#: The learning studies' reference opponent: the stand-in for the PGLeaf paper's ``ssp``
#: (:mod:`gamelib.games.minishogi.reference`), its own weights, 8 quiescence plies and iterations up
#: to 64 plies whatever the learners' settings.
REFERENCE = Reference(reference_theta, qdepth=REFERENCE_QDEPTH, max_depth=64)

_STM = _core.STM
_PLY = _core.PLY
_HASH = _core.HASH
_MOVE_NUMBER = _core.MOVE_NUMBER
_HIST = _core.HIST
_HIST_STRIDE = _core.HIST_STRIDE
_HAND = _core.HAND
_REP_COUNT = _rules.REPETITION_COUNT
_REP_LOSER = _rules.REPETITION_LOSER
_PERPETUAL = _rules.PERPETUAL_CHECK_LOSES
# MVV-LVA: value of a captured piece type, and of the capturing piece type (index: type 0..10)
_VICTIM = np.array([0, 1, 5, 6, 8, 10, 0, 6, 6, 12, 14], dtype=np.int64)
_ATTACKER = np.array([0, 1, 3, 4, 5, 6, 9, 4, 4, 7, 8], dtype=np.int64)
_KEY_CAPTURE = 1 << 36
_KEY_PROMOTION = 1 << 35


def start(capacity: int = _core.DEFAULT_CAPACITY) -> np.ndarray:
    """The start position's state with room for ``capacity`` plies of history."""
    s = Position().state
    return _core.new_state(s[:25], s[_HAND:_HAND + 10], int(s[_STM]), capacity=capacity)


def with_room(s: np.ndarray, plies: int) -> np.ndarray:
    """A copy of the state ``s`` (position and history) with history rows for ``plies`` more."""
    used = _HIST + _HIST_STRIDE * (int(s[_PLY]) + 1)
    out = np.zeros(used + _HIST_STRIDE * int(plies), dtype=np.int64)
    out[:used] = s[:used]
    return out


def move_text(m: int) -> str:
    """The move in USI notation (:func:`gamelib.games.minishogi.notation.format_usi`)."""
    return format_usi(int(m))


def parse_move(s: np.ndarray, text: str) -> int:
    """The legal move of ``s`` written ``text`` in USI (``ValueError`` if malformed or
    illegal)."""
    return usi_to_move(s, text)


@kernel(inline="always")
def gen_moves(s, buf, start):
    """All legal moves (:func:`gamelib.games.minishogi.core.gen_moves` without ``captures_only``)."""
    return _core.gen_moves(s, buf, start, False)


@kernel
def outcome(s, buf, start):
    """``game_result`` without a ply cap, from the side to move's view (see the module doc)."""
    return outcome_of_result(_core.game_result(s, buf, start, 0), s[_STM])


@kernel(inline="always")
def side_to_move(s):
    """0 sente, 1 gote."""
    return s[_STM]


@kernel(inline="always")
def game_ply(s):
    """Plies of the game: the SFEN move number's plies and those made since."""
    return s[_MOVE_NUMBER] - 1 + s[_PLY]


@kernel(inline="always")
def hash_key(s):
    """The incrementally updated Zobrist key ``s[HASH]``."""
    return s[_HASH]


@njit(cache=True)
def hash_from_scratch(s):
    """The Zobrist key of the board, hands and side to move, as a fresh state computes it."""
    fresh = np.zeros(_HIST + _HIST_STRIDE, dtype=np.int64)
    _core._fill_state(fresh, s[:25], s[_HAND:_HAND + 10], s[_STM], 1)
    return fresh[_HASH]


@kernel(inline="always")
def live_length(s):
    """The position's entries and its history up to the current ply."""
    return _HIST + _HIST_STRIDE * s[_PLY] + 3


@kernel(inline="always")
def room(s):
    """The history rows after the current ply's: one per ply that ``make_move`` records."""
    return (s.shape[0] - _HIST) // _HIST_STRIDE - 1 - s[_PLY]


@kernel
def outcome_of_result(r, stm):
    """A ``core.RESULT_*`` code as the protocol's result for side ``stm`` (:data:`ONGOING` for
    ``RESULT_NONE``)."""
    if r == _core.RESULT_NONE:
        return ONGOING
    if r == _core.RESULT_DRAW:
        return DRAW
    winner = 0 if r == _core.RESULT_SENTE_WINS else 1
    return WIN if winner == stm else LOSS


@kernel(inline="always")
def order_key(s, m):
    """MVV-LVA of a capture (``2**36 + 16·victim − attacker``), plus ``2**35`` for a
    promotion; 0 for a quiet move."""
    cap = (m >> 11) & 15
    key = 0
    if cap != 0:
        key = _KEY_CAPTURE + 16 * _VICTIM[cap] - _ATTACKER[s[(m >> 5) & 31] & 15]
    if (m >> 10) & 1:
        key += _KEY_PROMOTION
    return key


@kernel(inline="always")
def is_quiet(m):
    """No capture (bits 11-14) and no promotion (bit 10)."""
    return ((m >> 11) & 15) == 0 and ((m >> 10) & 1) == 0


@kernel(inline="always")
def move_code(m):
    """Destination, origin and promotion: the low 11 bits."""
    return m & 0x7FF


@kernel(inline="always")
def move_index(m):
    """Destination and origin: the low 10 bits."""
    return m & 0x3FF


@kernel(inline="always")
def plies_made(s):
    """``s[PLY]``."""
    return s[_PLY]


@kernel(inline="always")
def history_key(s, p):
    """The key the history keeps for ply ``p``."""
    return s[_HIST + _HIST_STRIDE * p]


@kernel
def repetition_verdict(s, root_ply):
    """``core.RESULT_*`` of the repetition rule at the current position, with in-search cycles.

    Walks back through the positions with the same side to move. The most recent earlier
    occurrence at or after ``root_ply`` (a cycle inside the search) gives the rule's verdict
    over that cycle; otherwise occurrences before the root count towards the exact rule (the
    ``REPETITION_COUNT``-th occurrence ends the game). With ``root_ply > s[PLY]`` this is exactly
    :func:`gamelib.games.minishogi.core.repetition_result`. Perpetual check: as the rules module.
    """
    p = s[_PLY]
    if p < 4:
        return _core.RESULT_NONE
    h = s[_HIST + _HIST_STRIDE * p]
    them = s[_HIST + _HIST_STRIDE * p + 1] != 0 and s[_HIST + _HIST_STRIDE * (p - 2) + 1] != 0
    us = s[_HIST + _HIST_STRIDE * (p - 1) + 1] != 0 and s[_HIST + _HIST_STRIDE * (p - 3) + 1] != 0
    cnt = 0
    i = 4
    while i <= p:
        q = p - i
        e = _HIST + _HIST_STRIDE * q
        them = them and s[e + 1] != 0
        if s[e] == h:
            cnt += 1
            if q >= root_ply or cnt + 1 == _REP_COUNT:
                stm = s[_STM]
                if _PERPETUAL and (them or us):
                    if them and us:
                        return _core.RESULT_DRAW
                    loser = 1 - stm if them else stm
                else:
                    loser = _REP_LOSER
                return _core.RESULT_GOTE_WINS if loser == 0 else _core.RESULT_SENTE_WINS
        if q >= 1:
            us = us and s[e - _HIST_STRIDE + 1] != 0
        i += 2
    return _core.RESULT_NONE


@kernel
def repetition(s, root_ply):
    """:func:`repetition_verdict` from the side to move's view."""
    return outcome_of_result(repetition_verdict(s, root_ply), s[_STM])


@kernel(inline="always")
def pack_position(s, gen):
    """The 25 squares (5 bits each), the 10 hand counts (2 bits), the side to move and ``gen``
    in three words."""
    a = 0
    b = 0
    for i in range(12):
        a |= s[i] << (5 * i)
        b |= s[12 + i] << (5 * i)
    c = s[24] | (s[_STM] << 5) | (gen << 26)
    for i in range(10):
        c |= s[_HAND + i] << (6 + 2 * i)
    return a, b, c


_MAX_TRACKED = 16   # golds and silvers on the board at the start of a game (4 in the start position)


@njit(cache=True)
def bonus_counts(s, out):
    """``out[side]`` = the number of ``side``'s enclosing golds and silvers at the end of the
    game held in ``s`` (not modified): the PGLeaf paper's non-MDP bonus ("囲いの駒のボーナス",
    section 5.1), counting each gold or silver of the side that

    1. stood on the board in the game's first position and was never captured (so it was on the
       board throughout: a piece that is captured and dropped back by its owner has left it), and
    2. at the end of the game is a gold or an (unpromoted) silver -- a promoted silver (成銀) is
       no longer a 銀将 -- on one of the 8 squares around its own king.

    The game's first position is recovered by taking back every move of the history; the golds
    and silvers standing on the board there are then followed move by move.
    """
    t = s.copy()
    n = t[_PLY]
    moves = np.empty(n, dtype=np.int64)
    for p in range(n):
        moves[p] = t[_HIST + _HIST_STRIDE * p + 2]
    for p in range(n):
        _core.unmake_move(t)
    sq = np.full(_MAX_TRACKED, -1, dtype=np.int64)
    owner = np.zeros(_MAX_TRACKED, dtype=np.int64)
    k = 0
    for x in range(_rules.SQUARES):
        pc = t[x]
        typ = _core.piece_type(pc)
        if pc != 0 and (typ == _rules.GOLD or typ == _rules.SILVER) and k < _MAX_TRACKED:
            sq[k] = x
            owner[k] = _core.piece_owner(pc)
            k += 1
    for p in range(n):
        m = moves[p]
        side = t[_STM]
        to = _core.move_to(m)
        frm = _core.move_from(m)
        if not _core.is_drop(m):
            for i in range(k):
                if sq[i] == to and owner[i] != side:
                    sq[i] = -1  # captured: it has left the board
            for i in range(k):
                if sq[i] == frm and owner[i] == side:
                    sq[i] = to
        _core.make_move(t, m)
    out[0] = 0
    out[1] = 0
    for i in range(k):
        x = sq[i]
        if x < 0:
            continue
        pc = t[x]
        typ = _core.piece_type(pc)
        if _core.piece_owner(pc) != owner[i] or not (typ == _rules.GOLD or typ == _rules.SILVER):
            continue
        if _core.king_distance(x, t[_core.KING_SQ + owner[i]]) == 1:
            out[owner[i]] += 1

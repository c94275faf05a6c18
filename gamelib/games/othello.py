"""Othello behind the game protocol: the bitboard kernels of :mod:`gamelib.othello.core` on a
state array with its history.

The core works on a pair of bitboards ``(p, o)`` (the side to move's discs and the other's) and
returns new ones (copy-make). Here a state is an ``int64`` array that holds the stack of those
pairs, one per ply, so that ``make_move`` writes the next pair above the current one and
``unmake_move`` only steps back down:

==================  ==============================================================
``s[0]``            plies made since the state was made (the stack's top)
``s[1]``            the colour to move when the state was made: 0 black (who moves
                    first), 1 white; every ply (a pass too) changes it, so the colour
                    to move is ``(s[1] + s[0]) mod 2``
``s[2]``            plies of the game before the state was made
``s[4 + 2k + j]``   the pair ``(p, o)`` after ``k`` of those plies (``j`` = 0: the side
                    to move's discs, 1: the other's; the ``uint64`` bitboards' bits,
                    square 0 = a1 ... 63 = h8)
==================  ==============================================================

No game lasts more than 120 plies (60 discs, at most one pass before each), so a state always
has room for 120 plies of history and ``make_move`` needs no bound test. A pass is the move
:data:`PASS` = 64, generated (alone) when the side to move has no move and the other has one;
when neither has one the game is over and ``gen_moves`` returns 0. The result is the sign of the
disc difference (the empty squares, which go to the winner under the World Othello Federation
rule, do not change it). Othello has no captures to quiesce and no check.

The key is the splitmix64 finaliser of the value table's index (:mod:`gamelib.othello.value_table`)
on the black and white bitboards, with a constant mixed in when white is to move (after a pass
the discs are the same and the side is not); it is a function of the position, computed when
asked, so ``hash_key`` and ``hash_from_scratch`` are one function.

The linear evaluation is that of :mod:`gamelib.games.othello_features` (Logistello's pattern
tables, mobility, potential mobility and parity) on the current pair: its weights are the
parameters (``prepare_weights`` does nothing), it has no tempo feature and no side halves, and
the game no shaping bonus (``bonus_counts`` 0). Perft
counts a finished game as one leaf at any remaining depth, as the published Othello numbers do.

For searches: no move is noisy (``order_key`` 0) and every move is quiet; a move's code and
its history row are the square (64 the pass); there is no repetition (``HAS_REPETITION`` 0,
``repetition`` always ONGOING); the only evaluation kind is the linear one; a position packs
into its two bitboards and the colour to move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gamelib.othello import core as _core
from gamelib.othello.board import MAX_GAME_PLIES
from gamelib.othello.squares import SQUARE_NAMES
from gamelib.othello.value_table import _hash as _pair_hash
from gamelib.runtime.bits import cttz as _cttz
from gamelib.runtime.index import unsigned as _u
from gamelib.runtime.kernels import kernel
from gamelib.runtime.parameters import check_parameters, load_parameters, save_parameters
from . import othello_features as _features
from .protocol import DRAW, LOSS, ONGOING, WIN

__all__ = ["start", "with_room", "move_text", "parse_move", "initial_theta", "check_theta", "save_theta",
           "load_theta", "LAYOUT_NAME", "FORMAT_VERSION", "new_state", "MAX_MOVES", "N_FEATURES", "MAX_ACTIVE", "PASS",
           "PERFT_END_LEAF", "gen_moves", "count_moves", "gen_noisy", "make_move", "unmake_move",
           "outcome", "in_check", "side_to_move", "game_ply", "hash_key", "hash_from_scratch",
           "live_length", "evaluate", "features", "has_moves", "order_key", "is_quiet",
           "move_code", "move_index", "plies_made", "history_key", "repetition", "evaluate_kind",
           "pack_position", "room", "leaf_features", "evaluate_and_features", "prepare_weights",
           "bonus_counts", "MOVE_INDEX_SIZE", "HAS_REPETITION", "N_WEIGHTS", "HAS_BONUS",
           "TEMPO_INDEX", "SIDE_HALF"]

MAX_MOVES = 64
N_FEATURES = _features.N_FEATURES
MAX_ACTIVE = _features.MAX_ACTIVE
PASS = 64
PERFT_END_LEAF = 1
MOVE_INDEX_SIZE = 65
HAS_REPETITION = 0
N_WEIGHTS = N_FEATURES
HAS_BONUS = 0
TEMPO_INDEX = -1
SIDE_HALF = 0

_PLY, _SIDE, _START = 0, 1, 2
_HIST = 4
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U3 = np.uint64(3)
_WHITE_KEY = np.uint64(0x2545F4914F6CDD1D)
#: The name and version of the feature layout (:mod:`gamelib.games.othello_features`) that
#: parameter files carry.
LAYOUT_NAME = "othello-patterns"
FORMAT_VERSION = 1


def new_state(black: int, white: int, black_to_move: bool, game_ply: int = 0) -> np.ndarray:
    """A state of the position ``(black, white)`` (bitboards as Python ints), ``game_ply`` plies
    into the game, with room for every ply a game can have."""
    black, white = int(black), int(white)
    if not (0 <= black < 2**64 and 0 <= white < 2**64) or black & white:
        raise ValueError("bad Othello position: bitboards must be disjoint 64-bit masks")
    s = np.zeros(_HIST + 2 * (MAX_GAME_PLIES + 1), dtype=np.int64)
    p, o = (black, white) if black_to_move else (white, black)
    s[_HIST:_HIST + 2] = np.array([p, o], dtype=np.uint64).view(np.int64)
    s[_SIDE] = 0 if black_to_move else 1
    s[_START] = game_ply
    return s


def start(capacity: int = MAX_GAME_PLIES) -> np.ndarray:
    """The start position (black to move); every state holds a whole game, whatever ``capacity``."""
    return new_state(int(_core.START_BLACK), int(_core.START_WHITE), True)


def initial_theta(seed: int = 0, scale: float = 1e-4) -> np.ndarray:
    """The learners' starting parameters: the classic square weights as pattern weights
    (:func:`gamelib.games.othello_features.initial_theta`, the positional score), every other
    weight ~ N(0, scale²) from ``numpy.random.default_rng(seed)`` (as 5×5 shogi's start from
    the paper's piece values and small random numbers)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    if not np.isfinite(scale) or scale < 0:
        raise ValueError(f"scale must be a non-negative number, got {scale!r}")
    theta = _features.initial_theta()
    noise = np.random.default_rng(int(seed)).normal(0.0, float(scale), N_FEATURES)
    return np.where(theta == 0.0, noise, theta)


def check_theta(theta, name: str = "theta") -> np.ndarray:
    """``theta`` as a contiguous ``float64`` vector of ``N_FEATURES`` finite parameters, or
    ``ValueError`` (:func:`gamelib.runtime.parameters.check_parameters`)."""
    return check_parameters(theta, N_FEATURES, LAYOUT_NAME, name)


def save_theta(path, theta):
    """Save parameters as ``.npz`` (atomically) with the layout's name and version."""
    return save_parameters(path, check_theta(theta), LAYOUT_NAME, FORMAT_VERSION)


def load_theta(path) -> np.ndarray:
    """Parameters saved by :func:`save_theta` (``ValueError`` naming a file of another layout,
    version or length, or with non-finite values; ``FileNotFoundError``)."""
    return check_theta(load_parameters(path, LAYOUT_NAME, FORMAT_VERSION, "othello"),
                        name=f"{path}: theta")


def with_room(s: np.ndarray, plies: int) -> np.ndarray:
    """A copy of the state with room for ``plies`` more pairs (and at least the rest of its
    game, as every state)."""
    out = np.zeros(max(s.shape[0], _HIST + 2 * (int(s[_PLY]) + 1 + int(plies))), dtype=np.int64)
    out[:s.shape[0]] = s
    return out


def move_text(m: int) -> str:
    """The square's name (``a1`` ... ``h8``), or ``pass``."""
    m = int(m)
    if m == PASS:
        return "pass"
    if not 0 <= m < 64:
        raise ValueError(f"{m} is not an Othello move (a square 0-63 or the pass {PASS})")
    return SQUARE_NAMES[m]


def parse_move(s: np.ndarray, text: str) -> int:
    """The legal move of ``s`` written ``text`` (a square name, or ``pass`` when the side to move
    must pass); ``ValueError`` naming a malformed or illegal one."""
    if not isinstance(text, str):
        raise ValueError(f"an Othello move is a square name or 'pass', got {text!r}")
    word = text.strip().lower()
    m = PASS if word in ("pass", "ps", "--", "pa") else (SQUARE_NAMES.index(word) if word in SQUARE_NAMES else -1)
    if m < 0:
        raise ValueError(f"malformed Othello move {text!r} (a square a1-h8 or 'pass')")
    buf = np.empty(MAX_MOVES, dtype=np.int32)
    n = gen_moves(s, buf, 0)
    if m not in buf[:n].tolist():
        raise ValueError(f"illegal move {text!r}: the legal moves are "
                         f"{[move_text(x) for x in buf[:n]] or 'none (the game is over)'}")
    return m


@njit(cache=True, inline="always")
def _pair(s):
    """The current pair ``(p, o)`` as ``uint64`` bitboards."""
    top = _u(_HIST + 2 * s[_PLY])
    return np.uint64(s[top]), np.uint64(s[top + _U1])


@kernel(inline="always")
def gen_moves(s, buf, start):
    """The legal squares in increasing order, or :data:`PASS` alone, or nothing at the end."""
    p, o = _pair(s)
    moves = _core.move_mask(p, o)
    n = start
    while moves:
        buf[n] = _cttz(moves)
        n += 1
        moves &= moves - _U1
    if n == start and _core.move_mask(o, p) != _U0:
        buf[n] = PASS
        n += 1
    return n - start


@kernel(inline="always")
def count_moves(s, buf, start):
    """The number of :func:`gen_moves`, by a population count."""
    p, o = _pair(s)
    moves = _core.move_mask(p, o)
    if moves != _U0:
        return _core.popcount(moves)
    return 1 if _core.move_mask(o, p) != _U0 else 0


@kernel(inline="always")
def gen_noisy(s, buf, start):
    """No move of Othello is searched by quiescence."""
    return 0


@kernel(inline="always")
def make_move(s, m):
    """Push the pair after square ``m`` (as :func:`gamelib.othello.core.make_move`: the discs
    :func:`~gamelib.othello.core.flips` turns) or a pass, sides exchanged."""
    ply = s[_PLY]
    top = _u(_HIST + 2 * ply)
    p = s[top]
    o = s[top + _U1]
    if m == PASS:
        s[top + _U2] = o
        s[top + _U3] = p
    else:   # gamelib.othello.core.make_move, with its flips
        sq = np.uint64(m)
        f = _core.flips(np.uint64(p), np.uint64(o), sq)
        s[top + _U2] = np.int64(np.uint64(o) & ~f)
        s[top + _U3] = np.int64(np.uint64(p) | f | (_U1 << sq))
    s[_PLY] = ply + 1


@kernel(inline="always")
def unmake_move(s):
    """Step back to the pair before the last move."""
    s[_PLY] -= 1


@kernel
def outcome(s, buf, start):
    """:data:`ONGOING` while a side can move; then the sign of the disc difference."""
    p, o = _pair(s)
    if _core.move_mask(p, o) != _U0 or _core.move_mask(o, p) != _U0:
        return ONGOING
    d = _core.disc_difference(p, o)
    return WIN if d > 0 else LOSS if d < 0 else DRAW


@kernel(inline="always")
def in_check(s):
    """Othello has no check."""
    return False


@kernel(inline="always")
def side_to_move(s):
    """0 black, 1 white."""
    return (s[_SIDE] + s[_PLY]) & 1


@kernel(inline="always")
def game_ply(s):
    """Plies of the game (passes included)."""
    return s[_START] + s[_PLY]


@kernel(inline="always")
def history_key(s, k):
    """The key of the pair after ``k`` plies: the pair hash of the black and white bitboards,
    and the colour to move."""
    top = _u(_HIST + 2 * k)
    p = np.uint64(s[top])
    o = np.uint64(s[top + _U1])
    if (s[_SIDE] + k) & 1 == 0:
        return np.int64(_pair_hash(p, o))
    return np.int64(_pair_hash(o, p) ^ _WHITE_KEY)


@kernel(inline="always")
def hash_key(s):
    """:func:`history_key` of the current pair."""
    return history_key(s, s[_PLY])


hash_from_scratch = hash_key


@kernel(inline="always")
def live_length(s):
    """The header and the pairs up to the current one."""
    return _HIST + 2 * s[_PLY] + 2


@kernel
def evaluate(s, theta):
    """:func:`gamelib.games.othello_features.board_evaluate` of the current pair."""
    p, o = _pair(s)
    return _features.board_evaluate(p, o, theta)


@kernel
def features(s, idx, val):
    """:func:`gamelib.games.othello_features.board_features` of the current pair."""
    p, o = _pair(s)
    return _features.board_features(p, o, idx, val)


@kernel
def leaf_features(s, idx, val, scratch):
    """:func:`features` (each index comes once already; ``scratch`` is not needed)."""
    return features(s, idx, val)


@kernel
def evaluate_and_features(s, theta, idx, val, scratch):
    """:func:`features` and θ·φ added in their order, as :func:`evaluate` adds it (the same
    bits)."""
    n = features(s, idx, val)
    v = 0.0
    for j in range(n):
        v += theta[_u(idx[j])] * val[j]
    return n, v


@kernel
def prepare_weights(w):
    """Nothing: the weights are the parameters (``N_WEIGHTS == N_FEATURES``)."""


@kernel
def bonus_counts(s, out):
    """No shaping bonus in Othello: 0 for both sides."""
    out[0] = 0
    out[1] = 0


@kernel(inline="always")
def room(s):
    """The pairs above the current one: one per ply that ``make_move`` records."""
    return (s.shape[0] - _HIST) // 2 - 1 - s[_PLY]


@kernel(inline="always")
def has_moves(s, buf, start):
    """A square to play or a forced pass."""
    p, o = _pair(s)
    return _core.move_mask(p, o) != _U0 or _core.move_mask(o, p) != _U0


@kernel(inline="always")
def order_key(s, m):
    """No move of Othello is noisy."""
    return 0


@kernel(inline="always")
def is_quiet(m):
    """Every move of Othello is quiet."""
    return True


@kernel(inline="always")
def move_code(m):
    """The square (64 the pass)."""
    return m


@kernel(inline="always")
def move_index(m):
    """The square (64 the pass)."""
    return m


@kernel(inline="always")
def plies_made(s):
    """``s[0]``."""
    return s[_PLY]


@kernel(inline="always")
def repetition(s, root_ply):
    """Othello has no repetition rule."""
    return ONGOING


@kernel(inline="always")
def evaluate_kind(s, theta, kind):
    """The linear evaluation (Othello's only kind)."""
    return evaluate(s, theta)


@kernel(inline="always")
def pack_position(s, gen):
    """The two bitboards, and the colour to move with ``gen``."""
    top = _u(_HIST + 2 * s[_PLY])
    return s[top], s[top + _U1], ((s[_SIDE] + s[_PLY]) & 1) | (gen << 1)

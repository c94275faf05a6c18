"""Othello behind the game protocol: the bitboard kernels of :mod:`gamelib.games.othello.core` on a
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

The key is the splitmix64 finaliser of the value table's index (:mod:`gamelib.games.othello.value_table`)
on the black and white bitboards, with a constant mixed in when white is to move (after a pass
the discs are the same and the side is not); it is a function of the position, computed when
asked, so ``hash_key`` and ``hash_from_scratch`` are one function.

The linear evaluation is that of :mod:`gamelib.games.othello.features` (Logistello's pattern
tables, mobility, potential mobility and parity) on the current pair: its weights are the
parameters (``prepare_weights`` does nothing), it has no tempo feature and no side halves, and
the game no shaping bonus (``bonus_counts`` 0). Perft
counts a finished game as one leaf at any remaining depth, as the published Othello numbers do.

For searches: no move is noisy (``order_key`` 0) and every move is quiet; a move's code and
its history row are the square (64 the pass); there is no repetition (``HAS_REPETITION`` 0,
``repetition`` always ONGOING); a position packs into its two bitboards and the colour to move.

Evaluation kinds (``EVAL_KINDS``): :data:`~gamelib.games.protocol.EVAL_LINEAR` (1), the linear
evaluation above, :data:`EVAL_MLP` (2), the Othello value-network paper's multilayer
perceptron (:mod:`gamelib.games.othello.mlp`; the paper's Fig. 3 layout 64 → 128 → 256 → 64 → 1),

.. math::

    v_\\theta(s) = \\sigma\\bigl(W_4^\\top h_3 + b_4\\bigr),\\quad
    h_k = \\operatorname{relu}\\bigl(W_k^\\top h_{k-1} + b_k\\bigr),\\quad h_0 = x(s),

the probability that Black wins, as a negamax score for the side to move:
:math:`2 v - 1` with :math:`v = v_\\theta(s)` when Black is to move and
:math:`v = 1 - v_\\theta(s)` when White is (the value-network paper's eq. 3), in [-1, 1], far inside the
search's game-end scores ±(1000 - ply). Only the linear kind has features (the learners').

The network travels as the one ``float64`` vector θ the search passes around
(:func:`pack_mlp`, read back by :func:`unpack_mlp`, checked by :func:`check_mlp_theta`):

=====================  ===================================================================
``θ[0]``               :data:`MLP_TAG` (a packed network, not a linear θ)
``θ[1]``               the input encoding's code (:data:`gamelib.games.othello.mlp.ENCODINGS`)
``θ[2]``               bytes per parameter: 4 (``float32``) or 8 (``float64``)
``θ[3]``               ``L``, the number of layer widths
``θ[4:4 + L]``         the widths, input first (:attr:`gamelib.games.othello.mlp.MLP.sizes`)
``θ[4 + L]``           ``n``, the number of parameters
``θ[5 + L:]``          the ``n`` parameters' bytes in the flat order of
                       :class:`gamelib.games.othello.mlp.MLP` (native byte order): one to a slot
                       for ``float64``, two to a slot for ``float32`` (the last slot's second
                       half 0 when ``n`` is odd), read back through a ``float32`` view
=====================  ===================================================================

The kernel (:func:`packed_mlp_value`) hands those parameters, unconverted, to
:func:`gamelib.games.othello.mlp.mlp_value` and so to :func:`gamelib.games.othello.mlp_kernels.forward_row`,
the forward pass of :meth:`~gamelib.games.othello.mlp.MLP.predict`: its sums run in a fixed order in
the network's own float type (no BLAS), so the value is bit for bit the network's on every CPU.
A ``float32`` pair of finite numbers is a finite ``float64``, so the packed θ passes the
players' finiteness checks.

:data:`EVAL_TABLE` (3) is the same paper's value table (:mod:`gamelib.games.othello.value_table`,
eqs. 1–3): :math:`v = v_b(s)`, Black's win rate among the recorded games through ``s``, where
the table has the position, and elsewhere the fallback network's :math:`v_\\theta(s)` (or
:math:`v = 1/2`, a score of 0, without one), turned into the side to move's score as above
(a ``float64`` fallback is evaluated in ``float64``, as by :data:`EVAL_MLP`). Table and network travel
together as one θ (:func:`pack_table`, read back by :func:`unpack_table`, checked by
:func:`check_table_theta`), with ``S`` hash slots and ``R`` rows:

=================================  ========================================================
``θ[0]``                           :data:`TABLE_TAG` (a packed table)
``θ[1]``                           ``S``, the number of slots: a power of two above ``R``
``θ[2]``                           ``R``, the number of rows (distinct positions)
``θ[3]``                           ``M``, the length of the packed fallback network (0:
                                   none)
``θ[4:4 + S]``                     the slots of the table's open-addressing index: a row,
                                   or -1 for an empty slot
``θ[4 + S + 4r:8 + S + 4r]``       row ``r``'s key: the black bitboard's high and low 32
                                   bits, then the white bitboard's, each half an integer
                                   below ``2**32``
``θ[4 + S + 4R + r]``              row ``r``'s :math:`v_b(s)`
``θ[4 + S + 5R:]``                 the fallback network, packed by :func:`pack_mlp` (``M``
                                   entries)
=================================  ========================================================

The slots, rows and values are those of the table's
:meth:`~gamelib.games.othello.value_table.ValueTable.kernel_args`, so a position is probed from the
same slot (the splitmix64 hash of its bitboards) along the same linear probe as
:func:`~gamelib.games.othello.value_table.table_value` and finds the same value. The keys travel as
halves because a bitboard's 64 bits, read as a ``float64``, are not always a finite number
(about one key in 170 of the value chapter's table would be a NaN or an infinity), and every
entry of θ must be finite for the players. A check of a packed table reads all of it (its
index, keys, values and network), so :func:`check_table_theta` checks a given array once and
remembers it: an array changed in place after its first check is not checked again (pack a
new one).
"""

from __future__ import annotations

import weakref

import numpy as np
from numba import njit

from . import core as _core
from .board import MAX_GAME_PLIES
from .mlp import ENCODINGS as _ENCODINGS
from .mlp import MLP, mlp_value
from .squares import SQUARE_NAMES
from .value_table import ValueTable
from .value_table import _hash as _pair_hash
from gamelib.runtime.bits import cttz as _cttz
from gamelib.runtime.index import unsigned as _u
from gamelib.runtime.kernels import kernel
from gamelib.runtime.parameters import check_parameters, load_parameters, save_parameters
from . import features as _features
from ..protocol import DRAW, EVAL_LINEAR, LOSS, ONGOING, WIN, EvalKind, Reference

__all__ = ["REFERENCE", "reference_theta", "position", "first_move", "start", "with_room", "move_text", "parse_move", "initial_theta", "check_theta", "save_theta",
           "load_theta", "LAYOUT_NAME", "FORMAT_VERSION", "new_state", "MAX_MOVES", "N_FEATURES", "MAX_ACTIVE", "PASS",
           "PERFT_END_LEAF", "gen_moves", "count_moves", "gen_noisy", "make_move", "unmake_move",
           "outcome", "in_check", "side_to_move", "game_ply", "hash_key", "hash_from_scratch",
           "live_length", "evaluate", "features", "has_moves", "order_key", "is_quiet",
           "move_code", "move_index", "plies_made", "history_key", "repetition", "evaluate_kind",
           "pack_position", "room", "leaf_features", "evaluate_and_features", "prepare_weights",
           "bonus_counts", "MOVE_INDEX_SIZE", "HAS_REPETITION", "N_WEIGHTS", "HAS_BONUS",
           "TEMPO_INDEX", "SIDE_HALF", "EVAL_MLP", "EVAL_KINDS", "MLP_TAG", "pack_mlp", "unpack_mlp",
           "check_mlp_theta", "packed_mlp_value", "evaluate_mlp", "EVAL_TABLE", "TABLE_TAG", "pack_table",
           "unpack_table", "check_table_theta", "packed_table_value", "evaluate_table"]

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
#: The name and version of the feature layout (:mod:`gamelib.games.othello.features`) that
#: parameter files carry.
LAYOUT_NAME = "othello-patterns"
FORMAT_VERSION = 1
#: The evaluation kind of the value network (module doc).
EVAL_MLP = 2
#: The first entry of a network packed by :func:`pack_mlp` (the ASCII code of ``MLP1``).
MLP_TAG = 0x4D4C5031
_MLP_HEADER = 5   # θ[0:5 + L]: tag, encoding, bytes per parameter, L, the L widths, n
#: The evaluation kind of the value table (module doc).
EVAL_TABLE = 3
#: The first entry of a table packed by :func:`pack_table` (the ASCII code of ``TAB1``).
TABLE_TAG = 0x54414231
_TABLE_HEADER = 4   # θ[0:4]: tag, S slots, R rows, M entries of the fallback network
_HALF = np.uint64(32)
_LOW = np.uint64(0xFFFFFFFF)


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


def position(s: np.ndarray) -> tuple[int, int, bool]:
    """``(black, white, black_to_move)`` of the state's current position (bitboards as Python
    ints)."""
    top = _HIST + 2 * int(s[_PLY])
    p, o = (int(x) for x in s[top:top + 2].view(np.uint64))
    black_to_move = (int(s[_SIDE]) + int(s[_PLY])) % 2 == 0
    return (p, o, True) if black_to_move else (o, p, False)


def first_move(s: np.ndarray) -> int | None:
    """The square of the game's first move, if the state holds a game from the standard start
    position with at least one move; else None (no move yet, or a state made later in a game,
    whose history does not reach back to the start)."""
    if int(s[_START]) != 0 or int(s[_SIDE]) != 0 or int(s[_PLY]) < 1:
        return None
    p0, o0, p1, o1 = (int(x) for x in s[_HIST:_HIST + 4].view(np.uint64))
    if (p0, o0) != (int(_core.START_BLACK), int(_core.START_WHITE)):
        return None
    new = o1 & ~(p0 | o0)          # after Black's move, ``o`` is Black's discs
    return new.bit_length() - 1 if new and new & (new - 1) == 0 else None


def start(capacity: int = MAX_GAME_PLIES) -> np.ndarray:
    """The start position (black to move); every state holds a whole game, whatever ``capacity``."""
    return new_state(int(_core.START_BLACK), int(_core.START_WHITE), True)


def initial_theta(seed: int = 0, scale: float = 1e-4) -> np.ndarray:
    """The learners' starting parameters: the classic square weights as pattern weights
    (:func:`gamelib.games.othello.features.initial_theta`, the positional score), every other
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


#: What a packed θ's first entry says it is: the tag's name, the header's length, what it holds
#: (long and short), the function that packs it and its evaluation kind's name.
_PACKED = {MLP_TAG: ("MLP_TAG", _MLP_HEADER, "value network", "network", "pack_mlp", "EVAL_MLP"),
           TABLE_TAG: ("TABLE_TAG", _TABLE_HEADER, "value table", "table", "pack_table", "EVAL_TABLE")}


def _packed_vector(theta, name: str, tag: float) -> np.ndarray:
    """``theta`` as a contiguous ``float64`` vector longer than its header whose first entry is
    ``tag`` (:data:`MLP_TAG` or :data:`TABLE_TAG`), or ``ValueError`` naming what it is instead
    (a linear evaluation's θ, the other packed kind)."""
    tag_name, header, what, short, packer, _ = _PACKED[tag]
    try:
        arr = np.ascontiguousarray(theta, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a vector of numbers (a {short} packed by "
                         f"gamelib.games.othello.game.{packer})") from None
    if arr.ndim != 1 or arr.size <= header or arr[0] != tag:
        other = _PACKED.get(float(arr[0])) if arr.ndim == 1 and arr.size else None
        hint = (f": a linear evaluation's θ ({N_FEATURES} parameters) is not a {short}"
                if arr.ndim == 1 and arr.size == N_FEATURES
                else f": it is a {other[2]} packed by {other[4]} (the kind {other[5]})" if other
                else "")
        raise ValueError(f"{name} is not a {what} packed by gamelib.games.othello.game.{packer} "
                         f"(its first entry is not {tag_name}){hint}")
    return arr


def pack_mlp(mlp: MLP) -> np.ndarray:
    """The value network ``mlp`` (:class:`gamelib.games.othello.mlp.MLP`, ``float32`` or ``float64``) as
    the ``float64`` vector θ of :data:`EVAL_MLP`: the header and the parameters' bytes of the
    module doc's table (``ValueError`` for anything but an MLP)."""
    if not isinstance(mlp, MLP):
        raise ValueError(f"pack_mlp needs a gamelib.games.othello.mlp.MLP, got {type(mlp).__name__}")
    params = mlp.params
    n = params.size
    header = [MLP_TAG, _ENCODINGS[mlp.encoding], params.itemsize, len(mlp.sizes), *mlp.sizes, n]
    slots = n if params.dtype == np.float64 else (n + 1) // 2
    theta = np.zeros(len(header) + slots, dtype=np.float64)
    theta[:len(header)] = header
    body = theta[len(header):]
    if params.dtype == np.float64:
        body[:] = params
    else:
        body.view(np.float32)[:n] = params
    return theta


def unpack_mlp(theta, name: str = "theta") -> MLP:
    """The network packed in ``theta`` by :func:`pack_mlp` (the same sizes, encoding and
    parameters, bit for bit), or ``ValueError`` naming what is wrong (a vector that is not a
    packed network, such as a linear evaluation's θ; a damaged header; non-finite
    parameters)."""
    arr = _packed_vector(theta, name, MLP_TAG)
    code, width, n_sizes = arr[1], arr[2], arr[3]
    codes = {c: e for e, c in _ENCODINGS.items()}
    bad = ("encoding code" if code not in codes else "bytes per parameter" if width not in (4, 8)
           else "number of layer widths" if n_sizes not in range(2, arr.size - _MLP_HEADER + 1)
           else "")
    if bad:
        raise ValueError(f"{name}: a packed network's header has a bad {bad}")
    start = _MLP_HEADER + int(n_sizes)
    header = arr[4:start]                       # the widths, then n
    if not np.all((header >= 1) & (header <= 2**31) & (header == np.floor(header))):
        raise ValueError(f"{name}: a packed network's layer widths and size must be positive integers")
    sizes, n = header[:-1].astype(np.int64), int(header[-1])
    if arr.size - start != (n if width == 8 else (n + 1) // 2):
        raise ValueError(f"{name}: a packed network's header does not match its length "
                         f"({arr.size} entries)")
    body = arr[start:]
    params = body.copy() if width == 8 else body.view(np.float32)[:n].copy()
    try:
        return MLP(tuple(sizes.tolist()), params, codes[code])
    except ValueError as err:
        raise ValueError(f"{name}: a packed network that is not an MLP: {err}") from None


def check_mlp_theta(theta, name: str = "theta") -> np.ndarray:
    """``theta`` as the contiguous ``float64`` vector of a network packed by :func:`pack_mlp`
    (what :data:`EVAL_MLP` reads), or ``ValueError`` naming what is wrong
    (:func:`unpack_mlp`)."""
    unpack_mlp(theta, name)
    return np.ascontiguousarray(theta, dtype=np.float64)


def pack_table(table: ValueTable, fallback: MLP | None = None) -> np.ndarray:
    """The value table ``table`` (:class:`gamelib.games.othello.value_table.ValueTable`) and the network
    ``fallback`` it falls back on where it has no entry (:class:`gamelib.games.othello.mlp.MLP`, or None:
    a score of 0 there) as the ``float64`` vector θ of :data:`EVAL_TABLE` (the module doc's
    table; ``ValueError`` for anything else)."""
    if not isinstance(table, ValueTable):
        raise ValueError(f"pack_table needs a gamelib.games.othello.value_table.ValueTable, got "
                         f"{type(table).__name__}")
    if fallback is not None and not isinstance(fallback, MLP):
        raise ValueError(f"pack_table's fallback must be a gamelib.games.othello.mlp.MLP or None, got "
                         f"{type(fallback).__name__}")
    slots, keys_b, keys_w, v_b = table.kernel_args()
    net = np.zeros(0) if fallback is None else pack_mlp(fallback)
    n_slots, n_rows = slots.size, keys_b.size
    theta = np.empty(_TABLE_HEADER + n_slots + 5 * n_rows + net.size, dtype=np.float64)
    theta[:_TABLE_HEADER] = (TABLE_TAG, n_slots, n_rows, net.size)
    at = _TABLE_HEADER
    theta[at:at + n_slots] = slots
    keys = theta[at + n_slots:at + n_slots + 4 * n_rows].reshape(n_rows, 4)
    for j, key in enumerate((keys_b, keys_w)):
        keys[:, 2 * j] = key >> _HALF
        keys[:, 2 * j + 1] = key & _LOW
    at += n_slots + 4 * n_rows
    theta[at:at + n_rows] = v_b
    theta[at + n_rows:] = net
    return theta


def _table_parts(theta, name: str):
    """The header and the four parts of a packed table, checked (:func:`unpack_table`)."""
    arr = _packed_vector(theta, name, TABLE_TAG)
    header = arr[1:_TABLE_HEADER]
    if not np.all((header >= 0) & (header <= 2**40) & (header == np.floor(header))):
        raise ValueError(f"{name}: a packed table's sizes must be integers >= 0")
    n_slots, n_rows, n_net = (int(x) for x in header)
    if n_slots <= n_rows or n_slots & (n_slots - 1):
        raise ValueError(f"{name}: a packed table's number of slots ({n_slots}) must be a power of "
                         f"two above its number of rows ({n_rows})")
    if arr.size != _TABLE_HEADER + n_slots + 5 * n_rows + n_net:
        raise ValueError(f"{name}: a packed table's header does not match its length "
                         f"({arr.size} entries)")
    at = _TABLE_HEADER
    slots = arr[at:at + n_slots]
    keys = arr[at + n_slots:at + n_slots + 4 * n_rows].reshape(n_rows, 4)
    at += n_slots + 4 * n_rows
    v_b, net = arr[at:at + n_rows], arr[at + n_rows:]
    filled = slots >= 0
    if (not np.all((slots >= -1) & (slots < n_rows) & (slots == np.floor(slots)))
            or np.count_nonzero(filled) != n_rows
            or np.any(np.bincount(slots[filled].astype(np.int64), minlength=n_rows) != 1)):
        raise ValueError(f"{name}: a packed table's slots must hold each row once (-1 elsewhere)")
    if not np.all((keys >= 0) & (keys <= 0xFFFFFFFF) & (keys == np.floor(keys))):
        raise ValueError(f"{name}: a packed table's keys must be halves of bitboards, integers in "
                         "[0, 2**32)")
    if not np.all((v_b >= 0.0) & (v_b <= 1.0)):
        raise ValueError(f"{name}: a packed table's values must be win rates in [0, 1]")
    return arr, slots, keys, v_b, net


def _join(keys, j) -> np.ndarray:
    """Column pair ``j`` (0 black, 1 white) of the key halves as ``uint64`` bitboards."""
    return (keys[:, 2 * j].astype(np.uint64) << _HALF) | keys[:, 2 * j + 1].astype(np.uint64)


@njit(cache=True, inline="always")
def _key(theta, at):
    """The bitboard whose high and low 32 bits are ``theta[at]`` and ``theta[at + 1]``."""
    return (np.uint64(theta[at]) << _HALF) | np.uint64(theta[at + 1])


@njit(cache=True)
def _first_unfound_row(theta):
    """The first row of a packed table (checked by :func:`_table_parts`) that its own probe does
    not reach -- an empty slot, or another row with its key, comes first -- or -1."""
    n_slots = np.int64(theta[1])
    mask = np.uint64(n_slots - 1)
    keys = _TABLE_HEADER + n_slots
    for row in range(np.int64(theta[2])):
        b = _key(theta, keys + 4 * row)
        w = _key(theta, keys + 4 * row + 2)
        i = _pair_hash(b, w) & mask
        while True:
            at = np.int64(theta[_TABLE_HEADER + np.int64(i)])
            if at == row:
                break
            if at < 0 or (_key(theta, keys + 4 * at) == b and _key(theta, keys + 4 * at + 2) == w):
                return row
            i = (i + _U1) & mask
    return -1


def unpack_table(theta, name: str = "theta"):
    """The table and network packed in ``theta`` by :func:`pack_table`: ``((slots, keys_black,
    keys_white, v_b), fallback)``, the arrays of
    :meth:`gamelib.games.othello.value_table.ValueTable.kernel_args` (the same values, bit for bit)
    and the :class:`gamelib.games.othello.mlp.MLP` or None; ``ValueError`` naming what is wrong (a vector that is not a packed table, such as a
    linear evaluation's θ or a packed network; a damaged header; slots that do not hold each row
    once or do not lead to it; keys that are not halves of disjoint bitboards; values outside
    [0, 1]; a damaged network)."""
    arr, slots, keys, v_b, net = _table_parts(theta, name)
    keys_b, keys_w = _join(keys, 0), _join(keys, 1)
    if np.any(keys_b & keys_w):
        raise ValueError(f"{name}: a packed table's key has a square both black and white")
    row = _first_unfound_row(arr)
    if row >= 0:
        raise ValueError(f"{name}: a packed table's slots do not lead to row {row} (a damaged "
                         "index, or a key twice)")
    fallback = unpack_mlp(net, f"{name}: its fallback network") if net.size else None
    return (slots.astype(np.int64), keys_b, keys_w, v_b.copy()), fallback


#: The packed tables :func:`check_table_theta` has checked, by ``id`` (module doc).
_CHECKED_TABLES: "weakref.WeakValueDictionary[int, np.ndarray]" = weakref.WeakValueDictionary()


def check_table_theta(theta, name: str = "theta") -> np.ndarray:
    """``theta`` as the contiguous ``float64`` vector of a table packed by :func:`pack_table`
    (what :data:`EVAL_TABLE` reads), or ``ValueError`` naming what is wrong
    (:func:`unpack_table`). The whole of a given array is checked once (module doc)."""
    if isinstance(theta, np.ndarray) and _CHECKED_TABLES.get(id(theta)) is theta:
        return theta
    unpack_table(theta, name)
    arr = np.ascontiguousarray(theta, dtype=np.float64)
    if arr is theta:
        _CHECKED_TABLES[id(arr)] = arr
    return arr


def reference_theta() -> np.ndarray:
    """The reference opponent's parameters: the classic square weights spread over the pattern
    tables (:func:`gamelib.games.othello.features.initial_theta`)."""
    return _features.initial_theta()


#: The learning studies' reference opponent: the classic square weights, searched as the
#: learners search.
REFERENCE = Reference(reference_theta)

#: The evaluation kinds of ``evaluate_kind`` (:mod:`gamelib.games.protocol`): the linear
#: evaluation, the value network and the value table.
EVAL_KINDS = {EVAL_LINEAR: EvalKind("linear", check_theta),
              EVAL_MLP: EvalKind("mlp", check_mlp_theta),
              EVAL_TABLE: EvalKind("table", check_table_theta)}


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
    """Push the pair after square ``m`` (as :func:`gamelib.games.othello.core.make_move`: the discs
    :func:`~gamelib.games.othello.core.flips` turns) or a pass, sides exchanged."""
    ply = s[_PLY]
    top = _u(_HIST + 2 * ply)
    p = s[top]
    o = s[top + _U1]
    if m == PASS:
        s[top + _U2] = o
        s[top + _U3] = p
    else:   # gamelib.games.othello.core.make_move, with its flips
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
    """:func:`gamelib.games.othello.features.board_evaluate` of the current pair."""
    p, o = _pair(s)
    return _features.board_evaluate(p, o, theta)


@kernel
def features(s, idx, val):
    """:func:`gamelib.games.othello.features.board_features` of the current pair."""
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


@njit(cache=True, _nrt=True)
def packed_mlp_value(theta, black, white):
    """:math:`v_\\theta(s)`, the probability that Black wins, of the board ``(black, white)``
    (``uint64`` bitboards) by the network packed in ``theta`` (:func:`pack_mlp`): the header
    read, the parameters viewed in their own float type and handed to
    :func:`gamelib.games.othello.mlp.mlp_value` (the same bits as
    :meth:`~gamelib.games.othello.mlp.MLP.predict`). Compiled with numba's reference counting, as it
    allocates the network's input and activations, so that the allocation-free search kernels
    can call it. ``theta`` must pass :func:`check_mlp_theta` (the kernel trusts its header, as
    the linear evaluation trusts θ's length)."""
    n_sizes = np.int64(theta[3])
    sizes = np.empty(n_sizes, dtype=np.int64)
    for k in range(n_sizes):
        sizes[k] = np.int64(theta[4 + k])
    n = np.int64(theta[4 + n_sizes])
    body = theta[_MLP_HEADER + n_sizes:]
    code = np.int64(theta[1])
    if theta[2] == 4.0:
        return mlp_value(body.view(np.float32)[:n], sizes, code, black, white)
    return mlp_value(body[:n], sizes, code, black, white)


@kernel
def evaluate_mlp(s, theta):
    """The value network's score for the side to move, :math:`2 v - 1` with :math:`v` the side to
    move's win probability (:func:`packed_mlp_value` when Black is to move, one minus it when
    White is; module doc)."""
    p, o = _pair(s)
    if side_to_move(s) == 0:
        return 2.0 * packed_mlp_value(theta, p, o) - 1.0
    return 2.0 * (1.0 - packed_mlp_value(theta, o, p)) - 1.0


@njit(cache=True)
def packed_table_value(theta, black, white):
    """:math:`v_b(s)` of the board ``(black, white)`` (``uint64`` bitboards) in the table packed in
    ``theta`` (:func:`pack_table`), or -1.0 when the table does not have it: the probe of
    :func:`gamelib.games.othello.value_table.table_value` over the packed slots and keys. ``theta``
    must pass :func:`check_table_theta` (an empty slot ends every probe)."""
    n_slots = np.int64(theta[1])
    mask = np.uint64(n_slots - 1)
    keys = _TABLE_HEADER + n_slots
    i = _pair_hash(black, white) & mask
    while True:
        row = np.int64(theta[_TABLE_HEADER + np.int64(i)])
        if row < 0:
            return -1.0
        at = keys + 4 * row
        if _key(theta, at) == black and _key(theta, at + 2) == white:
            return theta[keys + 4 * np.int64(theta[2]) + row]
        i = (i + _U1) & mask


@njit(cache=True, _nrt=True)
def _fallback_value(theta, black, white):
    """The fallback network's :math:`v_\\theta(s)` of a packed table with one
    (:func:`packed_mlp_value` of its last ``M`` entries, ``M > 0``)."""
    return packed_mlp_value(theta[theta.shape[0] - np.int64(theta[3]):], black, white)


@kernel
def evaluate_table(s, theta):
    """The value table's score for the side to move, :math:`2 v - 1` with :math:`v` the side to
    move's win rate: :func:`packed_table_value` where the table has the position, else the
    fallback network (module doc)."""
    p, o = _pair(s)
    black_to_move = side_to_move(s) == 0
    black = p if black_to_move else o
    white = o if black_to_move else p
    v = packed_table_value(theta, black, white)
    if v < 0.0:
        if theta[3] == 0.0:
            return 0.0
        v = _fallback_value(theta, black, white)
    if not black_to_move:
        v = 1.0 - v
    return 2.0 * v - 1.0


@kernel(inline="always")
def evaluate_kind(s, theta, kind):
    """:func:`evaluate_mlp` for :data:`EVAL_MLP`, :func:`evaluate_table` for :data:`EVAL_TABLE`,
    else the linear evaluation (``EVAL_KINDS``)."""
    if kind == EVAL_MLP:
        return evaluate_mlp(s, theta)
    if kind == EVAL_TABLE:
        return evaluate_table(s, theta)
    return evaluate(s, theta)


@kernel(inline="always")
def pack_position(s, gen):
    """The two bitboards, and the colour to move with ``gen``."""
    top = _u(_HIST + 2 * s[_PLY])
    return s[top], s[top + _U1], ((s[_SIDE] + s[_PLY]) & 1) | (gen << 1)

"""The linear evaluation of 5×5 shogi positions over the PGLeaf paper's features.

Morioka & Igarashi (section 5.1) evaluate a position with a linear function of 8,033 features
of six kinds: material; the position of a piece on the board; the relative position of two
pieces; the type of piece blocking a sliding piece's line; piece mobility; the number of squares
the king can move to. The paper does not spell the features out, so this module fixes one layout
of those six kinds, 7,886 features *of a side*; the evaluation has one weight per feature of the
side to move, one per feature of the other side, and a side-to-move (tempo) weight:
:data:`N_FEATURES` = 2 × 7,886 + 1 = 15,773 parameters.

Two sides, a tempo, and (anti)symmetry
--------------------------------------
Let :math:`\\psi_c(s)` be the features *of side* :math:`c` -- its pieces, its pairs, its sliders,
its mobility -- read on the board as :math:`c` sees it (its own pieces "own", the board rotated
by 180° for gote, so that every side moves "north"). With ``stm`` the side to move and ``opp``
the other one, the evaluation, from the side to move's point of view in the paper's units (a
pawn is 0.02), is

.. math::  v(s) = \\theta \\cdot \\phi(s), \\qquad
           \\phi(s) = \\bigl(\\psi_{\\mathrm{stm}}(s),\\; -\\psi_{\\mathrm{opp}}(s),\\; 1\\bigr),
           \\qquad
           v(s) = \\theta_{\\mathrm{stm}} \\cdot \\psi_{\\mathrm{stm}}(s)
                - \\theta_{\\mathrm{opp}} \\cdot \\psi_{\\mathrm{opp}}(s) + \\theta_{\\mathrm{tempo}}.

Let :math:`\\hat s` be the colour-swapped, 180°-rotated position with the same colour to move
(:func:`mirror`): :math:`\\psi_{\\mathrm{stm}}(\\hat s) = \\psi_{\\mathrm{opp}}(s)` and vice versa, so
:math:`\\phi(\\hat s)` is :math:`-\\phi(s)` with the two halves exchanged (:func:`swap_sides`), the
tempo entry staying 1. With equal halves, :math:`\\theta_{\\mathrm{stm}} = \\theta_{\\mathrm{opp}} =
w` (:func:`side_weights_theta`), the evaluation is the antisymmetric one,
:math:`v(s) = w \\cdot (\\psi_{\\mathrm{stm}} - \\psi_{\\mathrm{opp}}) + \\theta_{\\mathrm{tempo}}` and
:math:`v(\\hat s) = -v(s) + 2\\theta_{\\mathrm{tempo}}`: a position is worth to one side minus
what it is worth to the other, apart from the value of having the move. The initial weights
(:func:`initial_theta`) and the reference opponent's are of that form; learning may make the
halves differ, :math:`\\theta_{\\mathrm{stm}} - \\theta_{\\mathrm{opp}}` being the value of having the
move *in the feature's configuration* (an attacker near the enemy king is worth more to the side
that can use it now), :math:`\\theta_{\\mathrm{tempo}}` its constant part.

Why not one antisymmetric block. The first layout (version 1) had only
:math:`w \\cdot (\\psi_{\\mathrm{stm}} - \\psi_{\\mathrm{opp}})`. A position that is its own mirror
(:math:`\\hat s = s`, e.g. after 1. 2e4c 4a2c) then has :math:`\\phi = 0`: value 0 and gradient 0
for every θ. In self-play, TD(λ) and TDLeaf(λ) taught gote to copy sente's moves and lose
(sente won ≥ 99 % of the games after a few thousand, see the chapter "PGLeaf"): a TD learner
only changes the values of the positions it reaches, and the mirror reply's value could not
move at all. A constant tempo feature alone (layout version 2, 7,887 parameters)
does not help: it is the same for every reply of a side, so it cannot change which
reply is preferred (its weight grew to 0.6-1.3, the runs collapsed as before). With a weight
per side, a mirror position has its features (:math:`\\phi(s) = (\\psi, -\\psi, 1)`), its value is
learned like any other, and in our runs TDLeaf(λ) no longer collapses (TD(λ) without search
still can; the chapter shows both).

Feature layout
--------------
Squares are named as the feature's side sees the board (sente's coordinates, ``5a`` is the far
left corner); the piece types are P S G B R K +P +S +B +R (codes 1..10 of
:mod:`gamelib.games.minishogi.rules`); "own" and "enemy" are relative to the side :math:`c` whose
:math:`\\psi_c` holds the feature. Each active feature of :math:`\\psi_c` has value 1 (hands:
the number of pieces), so :math:`\\phi` holds small integers (negative in the ``opp_`` blocks);
the tempo feature is always 1. The blocks of a side (the ``opp_`` copies follow in the same order
at :data:`OPP_OFFSET` = 7,886; :func:`opp_index`):

==============  ======  ======  ===========================================================
block           offset  size    one feature per ...
==============  ======  ======  ===========================================================
material        0       14      board type (P S G B R +P +S +B +R) and hand type (P S G B R)
piece_square    14      250     own piece type (10, king included) × square (25)
pair_own        264     2,376   unordered pair of own pieces (type, type) × relative offset
                                (dr, dc), ``max(|dr|, |dc|) ≤ 3`` (48 offsets; a pair of equal
                                types and its reverse offset are one feature; no king-king)
pair_enemy      2,640   4,800   own piece type (10) × enemy piece type (10) × offset (48)
blocker         7,440   320     own slider (B R +B +R) × its sliding direction (4) × the first
                                piece on that line (type × own/enemy = 20)
mobility        7,760   117     own non-king type (9) × number of squares it can move to (0..12)
king_mobility   7,877   9       number of squares the own king can move to (0..8)
opp_*           7,886   7,886   the same blocks for the side not to move (value −count)
tempo           15,772  1       the side to move: 1 in every position
**total**               15,773
==============  ======  ======  ===========================================================

Mobility counts the squares a piece reaches by the movement rules that are empty or hold an
enemy piece (pins and checks ignored, promotion not double counted); king mobility counts only
the squares not attacked by the enemy (the king's legal moves).

Functions
---------
All kernels are ``@njit(cache=True)`` (those the search calls ``@kernel``) and take the
:mod:`gamelib.games.minishogi.core` state array: :func:`evaluate` (θ·φ, computed directly without
building φ), :func:`evaluate_material` (the material blocks only; the "material-only" engine),
:func:`evaluate_kind` (the dispatcher the search calls), :func:`features` (the sparse φ: sorted
unique indices, non-zero values; :func:`features_unsorted`: the same entries in scan order, for
the learners' sums). Both evaluation and features are produced by one feature scan, so
``evaluate(s, θ) == θ·φ(s)`` by construction. :func:`initial_theta` gives the paper's initial
weights (Table 1 piece values, the rest small seeded noise, equal for both sides, tempo 0);
:func:`side_weights_theta` builds an antisymmetric θ from one side's weights, :func:`swap_sides`
exchanges the halves; :func:`save_theta` / :func:`load_theta` store parameters as ``.npz`` files
that carry :data:`LAYOUT_NAME` and :data:`FORMAT_VERSION`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros as _ctz

from gamelib.runtime.bits import ctpop
from gamelib.runtime.index import unsigned as _u
from gamelib.runtime.kernels import kernel
from gamelib.runtime.parameters import check_parameters, load_parameters, save_parameters
from . import core
from . import rules as R
from .notation import SQUARE_NAMES

__all__ = [
    "N_FEATURES",
    "MAX_ACTIVE",
    "EVAL_MATERIAL",
    "EVAL_LINEAR",
    "LAYOUT",
    "LAYOUT_NAME",
    "FORMAT_VERSION",
    "Block",
    "block",
    "PIECE_VALUES",
    "evaluate",
    "prepare",
    "prepare_into",
    "N_WEIGHTS",
    "PAIR_TABLE_SIZE",
    "evaluate_material",
    "evaluate_kind",
    "features",
    "features_unsorted",
    "evaluate_and_features_unsorted",
    "sparse_features",
    "mirror",
    "dense_features",
    "feature_name",
    "material_index",
    "piece_square_index",
    "pair_index",
    "blocker_index",
    "mobility_index",
    "king_mobility_index",
    "TEMPO_INDEX",
    "OPP_OFFSET",
    "opp_index",
    "swap_sides",
    "side_weights_theta",
    "check_theta",
    "initial_theta",
    "table1_theta",
    "save_theta",
    "load_theta",
]

#: ``kind`` argument of :func:`evaluate_kind`: the material block only / the full evaluation.
EVAL_MATERIAL = 0
EVAL_LINEAR = 1

#: Name of the feature layout, stored in parameter files.
LAYOUT_NAME = "minishogi-pgleaf-linear"
#: Version of the layout and of the parameter file format (1: one antisymmetric block;
#: 2: that and a tempo feature; 3: separate weights for the two sides and a tempo feature).
FORMAT_VERSION = 3


@dataclass(frozen=True)
class Block:
    """A block of consecutive features: ``theta[offset:offset + size]``."""

    name: str
    offset: int
    size: int
    description: str

    @property
    def stop(self) -> int:
        return self.offset + self.size

    @property
    def slice(self) -> slice:
        return slice(self.offset, self.stop)


# ----------------------------------------------------------------------------- geometry
_PIECE_TYPES = tuple(range(1, R.N_PIECE_TYPES))  # 1..10: P S G B R K +P +S +B +R
_TYPE_NAMES = {t: ("+" + R.PIECE_LETTERS[R.UNPROMOTED[t]] if t in R.UNPROMOTED else R.PIECE_LETTERS[t]) for t in _PIECE_TYPES}
_MATERIAL_BOARD_TYPES = (R.PAWN, R.SILVER, R.GOLD, R.BISHOP, R.ROOK, R.TOKIN, R.PRO_SILVER, R.HORSE, R.DRAGON)
_SLIDER_TYPES = (R.BISHOP, R.ROOK, R.HORSE, R.DRAGON)
_PAIR_RADIUS = 3
_MAX_MOBILITY = 12  # a horse or dragon in the centre of the 5×5 board
_N_KING_MOVES = 8


def _offset81(dr: int, dc: int) -> int:
    return (dr + 4) * 9 + (dc + 4)


_OFFSETS = [(dr, dc) for dr in range(-_PAIR_RADIUS, _PAIR_RADIUS + 1) for dc in range(-_PAIR_RADIUS, _PAIR_RADIUS + 1) if (dr, dc) != (0, 0)]


def _build_layout():
    """Blocks and the index tables of the pair features (see the module docstring)."""
    n_off = len(_OFFSETS)
    pair_own = np.full((R.N_PIECE_TYPES, R.N_PIECE_TYPES, 81), -1, dtype=np.int64)
    names_own = []
    k = 0
    for i, ta in enumerate(_PIECE_TYPES):
        for tb in _PIECE_TYPES[i:]:
            if ta == tb == R.KING:
                continue
            for dr, dc in _OFFSETS:
                if ta == tb and (dr < 0 or (dr == 0 and dc < 0)):
                    continue  # the pair seen from the other piece: same feature
                pair_own[ta, tb, _offset81(dr, dc)] = k
                pair_own[tb, ta, _offset81(-dr, -dc)] = k
                names_own.append(f"own {_TYPE_NAMES[ta]} with own {_TYPE_NAMES[tb]} at ({dr:+d},{dc:+d})")
                k += 1
    n_pair_own = k
    pair_enemy = np.full((R.N_PIECE_TYPES, R.N_PIECE_TYPES, 81), -1, dtype=np.int64)
    names_enemy = []
    k = 0
    for ta in _PIECE_TYPES:
        for tb in _PIECE_TYPES:
            for dr, dc in _OFFSETS:
                pair_enemy[ta, tb, _offset81(dr, dc)] = k
                names_enemy.append(f"own {_TYPE_NAMES[ta]} with enemy {_TYPE_NAMES[tb]} at ({dr:+d},{dc:+d})")
                k += 1
    assert k == len(_PIECE_TYPES) ** 2 * n_off
    sizes = [
        ("material", len(_MATERIAL_BOARD_TYPES) + len(R.HAND_TYPES),
         "piece count difference per board type (P S G B R +P +S +B +R) and hand type (P S G B R)"),
        ("piece_square", len(_PIECE_TYPES) * R.SQUARES, "own piece type × square, as its owner sees the board"),
        ("pair_own", n_pair_own, f"two own pieces: types × relative offset, max(|dr|,|dc|) ≤ {_PAIR_RADIUS}"),
        ("pair_enemy", len(_PIECE_TYPES) ** 2 * n_off, f"own piece, enemy piece: types × relative offset, max(|dr|,|dc|) ≤ {_PAIR_RADIUS}"),
        ("blocker", len(_SLIDER_TYPES) * 4 * 2 * len(_PIECE_TYPES), "own slider × direction × first piece on its line (type, own/enemy)"),
        ("mobility", len(_MATERIAL_BOARD_TYPES) * (_MAX_MOBILITY + 1), "own non-king type × squares it can move to (0..12)"),
        ("king_mobility", _N_KING_MOVES + 1, "squares the own king can move to (0..8)"),
    ]
    blocks, offset = [], 0
    for name, size, description in sizes:
        blocks.append(Block(name, offset, size, f"side to move: {description}"))
        offset += size
    for name, size, description in sizes:
        blocks.append(Block(f"opp_{name}", offset, size, f"side not to move (value -count): {description}"))
        offset += size
    blocks.append(Block("tempo", offset, 1, "the side to move (1 in every position)"))
    return tuple(blocks), pair_own, pair_enemy, names_own, names_enemy


LAYOUT, _PAIR_OWN_LOCAL, _PAIR_ENEMY_LOCAL, _PAIR_OWN_NAMES, _PAIR_ENEMY_NAMES = _build_layout()
_BLOCKS = {b.name: b for b in LAYOUT}
#: Number of parameters (features) of the evaluation.
N_FEATURES = LAYOUT[-1].stop
assert N_FEATURES < 1 << 14  # the radix sort of features() sorts 14-bit indices


def block(name: str) -> Block:
    """The :class:`Block` called ``name`` (``ValueError`` listing the names if unknown)."""
    try:
        return _BLOCKS[name]
    except KeyError:
        raise ValueError(f"unknown feature block {name!r}; the blocks are {list(_BLOCKS)}") from None


MAT_OFF = _BLOCKS["material"].offset
PST_OFF = _BLOCKS["piece_square"].offset
PAIR_OWN_OFF = _BLOCKS["pair_own"].offset
PAIR_ENEMY_OFF = _BLOCKS["pair_enemy"].offset
BLOCKER_OFF = _BLOCKS["blocker"].offset
MOB_OFF = _BLOCKS["mobility"].offset
KMOB_OFF = _BLOCKS["king_mobility"].offset
#: Offset of the side not to move's copy of the features: feature ``k`` of ψ_opp is
#: ``k + OPP_OFFSET`` (with value −count).
OPP_OFFSET = _BLOCKS["opp_material"].offset
#: Index of the tempo (side-to-move) feature, 1 in every position.
TEMPO_INDEX = _BLOCKS["tempo"].offset
_N_MAT_BOARD = len(_MATERIAL_BOARD_TYPES)

#: Size of the buffers of :func:`features`: a scan emits at most 10 hand entries, 3 entries per
#: piece on the board (material, square, mobility; kings: square, king mobility) plus 4 blocker
#: entries per slider (4 sliders in the game), 2 entries per pair of pieces (66 pairs of 12
#: pieces) and the tempo entry: 10 + 36 + 16 + 132 + 1 = 195 <= 256.
MAX_ACTIVE = 256

# numba tables (global arrays are compile-time constants)
_MAT_OF_TYPE = np.full(R.N_PIECE_TYPES, -1, dtype=np.int64)
_MOB_OF_TYPE = np.full(R.N_PIECE_TYPES, -1, dtype=np.int64)
for _k, _t in enumerate(_MATERIAL_BOARD_TYPES):
    _MAT_OF_TYPE[_t] = MAT_OFF + _k
    _MOB_OF_TYPE[_t] = MOB_OFF + _k * (_MAX_MOBILITY + 1)
#: The feature scan's copies of the two, the king's -1 replaced by 0: a valid index for the
#: king's entries, which the scan's sinks drop without a branch.
_MAT_BASE = np.maximum(_MAT_OF_TYPE, 0)
_MOB_BASE = np.maximum(_MOB_OF_TYPE, 0)
_SLIDER_OF_TYPE = np.full(R.N_PIECE_TYPES, -1, dtype=np.int64)
for _k, _t in enumerate(_SLIDER_TYPES):
    _SLIDER_OF_TYPE[_t] = BLOCKER_OFF + _k * 4 * 2 * len(_PIECE_TYPES)
_PAIR_OWN = np.where(_PAIR_OWN_LOCAL >= 0, _PAIR_OWN_LOCAL + PAIR_OWN_OFF, -1).astype(np.int16)
_PAIR_ENEMY = np.where(_PAIR_ENEMY_LOCAL >= 0, _PAIR_ENEMY_LOCAL + PAIR_ENEMY_OFF, -1).astype(np.int16)
#: _PAIR_BY_OWNER[enemy]: _PAIR_OWN (enemy = 0) and _PAIR_ENEMY (1) in one table.
_PAIR_BY_OWNER = np.stack([_PAIR_OWN, _PAIR_ENEMY])
del _k, _t
#: _PAIR_SLOT[owner, a, b]: the offset of square b from square a as ``owner`` sees the board,
#: 0..48 within the pairs' radius ((dr + 3) * 7 + dc + 3), else 49 (no pair feature): the
#: offset coordinate of the pair table.
_PAIR_SLOT = np.full((2, 25, 25), 49, dtype=np.int16)
for _a in range(25):
    for _b in range(25):
        _dr, _dc = _b // 5 - _a // 5, _b % 5 - _a % 5
        if (_dr, _dc) != (0, 0) and max(abs(_dr), abs(_dc)) <= _PAIR_RADIUS:
            _PAIR_SLOT[0, _a, _b] = (_dr + 3) * 7 + _dc + 3
            _PAIR_SLOT[1, _a, _b] = (3 - _dr) * 7 + 3 - _dc
#: _PAIR_NEAR[a]: the squares within the pairs' radius of square a (a itself excluded), the
#: partners b of a that have a pair feature; the pair loops skip the others, which add nothing.
_PAIR_NEAR = np.zeros(25, dtype=np.int64)
for _a in range(25):
    for _b in range(25):
        if _PAIR_SLOT[0, _a, _b] != 49:
            _PAIR_NEAR[_a] |= 1 << _b
del _a, _b, _dr, _dc
_N_TYPES = len(_PIECE_TYPES)
#: _PAIR_PARTNER[c, code]: the part of a pair's row in :data:`_PAIR_FEATURES` that depends on
#: the second piece (``code`` = 16 side + type) when the first one is side c's:
#: 50 (N_TYPES (N_TYPES × enemy) + type - 1), enemy = (side != c) (see :func:`_pair_row`).
_PAIR_PARTNER = np.zeros((2, 32), dtype=np.int64)
for _c in range(2):
    for _code in range(32):
        _PAIR_PARTNER[_c, _code] = 50 * (_N_TYPES * _N_TYPES * ((_code >> 4) ^ _c) + (_code & 15) - 1)
del _c, _code


@njit(cache=True, inline="always")
def _pair_row(group, ta, tb):
    """The first row of the pair of piece types ``ta``, ``tb`` (1..10) in ``group`` of the pair
    tables, which have 50 rows per (group, ta, tb), one per offset slot: ``group`` is own/enemy
    (0/1) in :data:`_PAIR_FEATURES`, 2 × (side of the first piece: 0 the side to move) +
    own/enemy in the table of :func:`prepare`."""
    return 50 * (_N_TYPES * (_N_TYPES * group + ta - 1) + tb - 1)


#: _PAIR_FEATURES[_pair_row(enemy, ta, tb) + slot]: the features of
#: a pair of pieces of types ta (the first, on the side whose features they are) and tb (the
#: second, the first piece's own or, ``enemy = 1``, the other side's) at offset ``slot``
#: (:data:`_PAIR_SLOT`): column 0 its feature in the first piece's side's block, column 1 for an
#: enemy pair the feature of the second piece's side (types exchanged, offset reversed), -1 where
#: there is none (own pairs' column 1, pairs beyond the radius).
_PAIR_FEATURES = np.full((2 * _N_TYPES * _N_TYPES * 50, 2), -1, dtype=np.int16)
for _e in range(2):
    for _ta in range(1, _N_TYPES + 1):
        for _tb in range(1, _N_TYPES + 1):
            for _slot in range(49):
                _o = (_slot // 7 + 1) * 9 + _slot % 7 + 1  # the offset in sente's 9x9 grid
                _row = _pair_row.py_func(_e, _ta, _tb) + _slot
                _PAIR_FEATURES[_row, 0] = _PAIR_BY_OWNER[_e, _ta, _tb, _o]
                if _e == 1 and _PAIR_FEATURES[_row, 0] >= 0:
                    _PAIR_FEATURES[_row, 1] = _PAIR_ENEMY[_tb, _ta, _o]
del _e, _ta, _tb, _slot, _o, _row
#: Size of the pair table that :func:`prepare` appends to θ: for the side of the first piece
#: (0: the side to move, 1: the other), own/enemy second piece, the two types (P..+R) and the
#: offset slot (50), the two terms a pair adds to the evaluation (320 kB: it stays in a core's
#: cache beside θ).
PAIR_TABLE_SIZE = 2 * 2 * _N_TYPES * _N_TYPES * 50 * 2
#: Length of prepared weights (:func:`prepare`): θ, then its pair table.
N_WEIGHTS = N_FEATURES + PAIR_TABLE_SIZE

_RAY = core.RAY
_RAY_N = core.RAY_N
_SLIDE_DIR = core.SLIDE_DIR
_SLIDE_ND = core.SLIDE_ND
_HAND = core.HAND
_STM = core.STM
_KING_SQ = core.KING_SQ
_KING = R.KING
_RAY_MASK = core.RAY_MASK
_first_on_ray = core.first_on_ray
_BETWEEN = core.BETWEEN
#: _STEP_MASK[code, sq]: squares a piece reaches (and attacks) by one step.
_STEP_MASK = core.STEP_MASK
_ZERO_THETA = np.zeros(N_FEATURES)


# ----------------------------------------------------------------------------- the feature scan
#: _SIGN[opp]: the value of a piece's entries, +1 for a piece of the side to move (opp = 0) and
#: -1 for one of the other side (opp = 1), whose entries sit at their copy k + OPP_OFFSET.
_SIGN = np.array([1.0, -1.0])
#: _KEEP[cond]: 0.0 or 1.0, a term kept or dropped by a sink without a branch (see _add_if).
_KEEP = np.array([0.0, 1.0])


@njit(cache=True, inline="always")
def _add(i, x, theta, idx, val, n, v):
    """Evaluation sink: v += x θ[i] for the entry (i, x) of φ (i already at the copy
    k + OPP_OFFSET for an entry of ψ_opp)."""
    return n, v + x * theta[_u(i)]


@njit(cache=True, inline="always")
def _put(i, x, theta, idx, val, n, v):
    """Feature sink: append the entry (i, x)."""
    idx[_u(n)] = i
    val[_u(n)] = x
    return n + 1, v


@njit(cache=True, inline="always")
def _add_if(cond, i, x, theta, idx, val, n, v):
    """:func:`_add` if ``cond``, else v + (±0.0) (= v exactly: a sum of floats is -0.0 only if
    both terms are, and v is never -0.0, as the sum starts at +0.0), without a branch (θ is
    finite, so the dropped term x θ[i] · 0.0 is a zero)."""
    return n, v + (x * theta[_u(i)]) * _KEEP[np.int64(cond)]


@njit(cache=True, inline="always")
def _put_if(cond, i, x, theta, idx, val, n, v):
    """:func:`_put` if ``cond``: the entry is written in any case and counted only then."""
    idx[_u(n)] = i
    val[_u(n)] = x
    return n + np.int64(cond), v


@njit(cache=True, inline="always")
def _put_add(i, x, theta, idx, val, n, v):
    """:func:`_put` and :func:`_add` at once (the same operations as :func:`_add`, so the same
    bits)."""
    idx[_u(n)] = i
    val[_u(n)] = x
    return n + 1, v + x * theta[_u(i)]


@njit(cache=True, inline="always")
def _put_add_if(cond, i, x, theta, idx, val, n, v):
    """:func:`_put_if` and :func:`_add_if` at once."""
    idx[_u(n)] = i
    val[_u(n)] = x
    return n + np.int64(cond), v + (x * theta[_u(i)]) * _KEEP[np.int64(cond)]


@njit(cache=True, inline="always")
def _popcount(x):
    """Number of set bits of a board bitmask (25 bits, non-negative)."""
    return np.int64(ctpop(x))


@njit(cache=True, inline="always")
def _scan(s, theta, idx, val, sink, sink_if, pair_table=False):
    """Visit every entry of φ(s) = (ψ_stm(s), -ψ_opp(s), 1) and pass it to ``sink``.

    ``pair_table`` (an evaluation sink only, ``theta`` prepared by :func:`prepare`): the
    pairs' terms are read from the pair table instead of being passed to the sink -- the same
    terms added in the same order, so the same value to the last bit.

    ``sink_if(cond, i, x, ...)`` is ``sink`` where ``cond`` holds and nothing otherwise (without
    a branch). Each entry is (index i, value x): x = +count at the feature's index k in ψ_stm's
    block, x = -count at its copy k + OPP_OFFSET in ψ_opp's (an index may come more than once),
    and last the tempo entry (TEMPO_INDEX, 1). The side of a piece is the integer
    opp = (owner != side to move), which gives both the copy and the sign (:data:`_SIGN`)
    without a branch: the owners of successive pieces are unpredictable. Returns the sink's
    (count, accumulated value) and ``repeats``: 0 if no side has two pieces of one type on the
    board. Then no index comes twice (each block's feature names its pieces by type, so two
    entries with one index need two pieces of one side and type: material, the pairs, a
    slider's blockers, mobility), which lets :func:`_merge_in_scan_order` skip its merge.

    Every index is ≥ 0, a dropped entry's too (:data:`_MAT_BASE`, ``max(k, 0)``, an empty
    ray's blocker at the slider's own square), so the scan indexes with unsigned integers
    (:mod:`gamelib.runtime.index`).
    """
    stm = s[_STM]
    n = 0
    v = 0.0
    # hands (material)
    for t in range(5):
        d = s[_HAND + 5 * stm + t]
        if d != 0:
            n, v = sink(MAT_OFF + _N_MAT_BOARD + t, float(d), theta, idx, val, n, v)
        d = s[_HAND + 5 * (1 - stm) + t]
        if d != 0:
            n, v = sink(MAT_OFF + _N_MAT_BOARD + t + OPP_OFFSET, -float(d), theta, idx, val, n, v)
    # material and piece squares; occupancy
    occ0 = 0
    occ1 = 0
    for a in range(25):
        pa = s[a]
        occ0 |= np.int64(pa != 0 and pa < 16) << a
        occ1 |= np.int64(pa >= 16) << a
    occ = occ0 | occ1
    rest = occ
    seen = 0  # bit 16 c + t: side c has a piece of type t on the board
    repeats = 0
    while rest:
        a = _ctz(rest)
        rest &= rest - 1
        pa = s[_u(a)]
        ca = pa >> 4
        ta = pa & 15
        bit = np.int64(1) << pa  # pa = 16 ca + ta
        repeats |= seen & bit
        seen |= bit
        opp = ca ^ stm
        x = _SIGN[_u(opp)]
        # the square as the owner sees the board: a for sente, 24 - a for gote
        n, v = sink(PST_OFF + 25 * (ta - 1) + a + ca * (24 - 2 * a) + OPP_OFFSET * opp, x,
                    theta, idx, val, n, v)
        n, v = sink_if(ta != _KING, _MAT_BASE[_u(ta)] + OPP_OFFSET * opp, x, theta, idx, val, n, v)
    # pairs
    rest = occ
    if pair_table:  # the two terms of each pair read from θ's pair table (see prepare)
        while rest:
            a = _ctz(rest)
            rest &= rest - 1
            pa = s[_u(a)]
            ca = pa >> 4
            # i = N_FEATURES + 2 (_pair_row(2 side + enemy, ta, tb) + slot), its part that
            # depends on the first piece only out of the inner loop (3-5 % of an evaluation)
            row = N_FEATURES + 100 * _N_TYPES * (2 * _N_TYPES * (ca ^ stm) + (pa & 15) - 1)
            later = rest & _PAIR_NEAR[_u(a)]
            while later:
                b = _ctz(later)
                later &= later - 1
                pb = s[_u(b)]
                i = _u(row + 2 * (_PAIR_PARTNER[_u(ca), _u(pb)] + np.int64(_PAIR_SLOT[_u(ca), _u(a), _u(b)])))
                v = v + theta[i]
                v = v + theta[i + np.uint64(1)]
    else:  # the terms passed to the sink
        while rest:
            a = _ctz(rest)
            rest &= rest - 1
            pa = s[_u(a)]
            ca = pa >> 4
            opp = ca ^ stm
            x = _SIGN[_u(opp)]
            row = 50 * _N_TYPES * ((pa & 15) - 1)  # as above: i = _pair_row(enemy, ta, tb) + slot
            later = rest & _PAIR_NEAR[_u(a)]
            while later:
                b = _ctz(later)
                later &= later - 1
                pb = s[_u(b)]
                # branch-free: an own pair has one entry, an enemy pair two (the second one of
                # the other side's view, sign and copy flipped)
                i = _u(row + _PAIR_PARTNER[_u(ca), _u(pb)] + np.int64(_PAIR_SLOT[_u(ca), _u(a), _u(b)]))
                k1 = np.int64(_PAIR_FEATURES[i, 0])
                k2 = np.int64(_PAIR_FEATURES[i, 1])
                # a missing entry (k < 0) at index 0 or OPP_OFFSET, dropped by the sink
                n, v = sink_if(k1 >= 0, max(k1, 0) + OPP_OFFSET * opp, x, theta, idx, val, n, v)
                n, v = sink_if(k2 >= 0, max(k2, 0) + OPP_OFFSET * (1 - opp), -x, theta, idx, val, n, v)
    # mobility and blockers; attack maps (sliders see through the enemy king) for king mobility
    att0 = 0
    att1 = 0
    rest = occ
    while rest:
        a = _ctz(rest)
        rest &= rest - 1
        pa = s[_u(a)]
        ca = pa >> 4
        ta = pa & 15
        opp = ca ^ stm
        x = _SIGN[_u(opp)]
        copy = OPP_OFFSET * opp
        own_occ = (occ0 & (ca - 1)) | (occ1 & -ca)  # branch-free: ca is 0 or 1
        steps = _STEP_MASK[_u(pa), _u(a)]
        att = steps
        cnt = _popcount(steps & ~own_occ)
        if _SLIDE_ND[_u(pa)]:  # a slider: 4 directions (none for a king or a stepping piece)
            sbase = _SLIDER_OF_TYPE[_u(ta)] + copy
            for j in range(4):
                d = _SLIDE_DIR[_u(pa), j]
                ray = _RAY_MASK[_u(a), _u(d)]
                # the first piece on the ray (a itself if the ray is empty: then a blocker that
                # the sink drops, and the cmov-selected count and attacks of the whole ray)
                t = _first_on_ray(a, d, occ)
                empty = t < 0
                t = a if empty else t
                before = _BETWEEN[_u(a), _u(t)]
                q = s[_u(t)]
                own = (q >> 4) == ca
                # the count without a branch: a whole empty ray, or the squares up to the piece
                in_reach = _popcount(before) + np.int64(not own)
                cnt += in_reach + (_RAY_N[_u(a), _u(d)] - in_reach) * np.int64(empty)
                n, v = sink_if(not empty, sbase + 20 * (((d - 4 * ca) & 7) >> 1) + (q & 15) - 1
                               + 10 * np.int64(not own), x, theta, idx, val, n, v)
                through = empty or (not own and (q & 15) == _KING)  # on behind an enemy king
                att |= ray if through else before | (np.int64(1) << t)
        # a king's mobility is its own block's, below (the term dropped)
        n, v = sink_if(ta != _KING, _MOB_BASE[_u(ta)] + cnt + copy, x, theta, idx, val, n, v)
        att0 |= att & (ca - 1)
        att1 |= att & -ca
    k0 = s[_KING_SQ]
    k1 = s[_KING_SQ + 1]
    n, v = sink(KMOB_OFF + _popcount(_STEP_MASK[s[k0], k0] & ~occ0 & ~att1) + OPP_OFFSET * stm,
                _SIGN[stm], theta, idx, val, n, v)
    n, v = sink(KMOB_OFF + _popcount(_STEP_MASK[s[k1], k1] & ~occ1 & ~att0) + OPP_OFFSET * (1 - stm),
                _SIGN[1 - stm], theta, idx, val, n, v)
    # tempo: the side to move
    n, v = sink(TEMPO_INDEX, 1.0, theta, idx, val, n, v)
    return n, v, repeats


@kernel
def evaluate(s, theta):
    """θ·φ(s): the value of ``s`` for the side to move (paper's units, a pawn = 0.02), the
    tempo weight ``θ[TEMPO_INDEX]`` included.

    Parameters
    ----------
    s : int64 array
        A :mod:`gamelib.games.minishogi.core` state.
    theta : float64 array of length ``N_FEATURES`` or ``N_WEIGHTS``
        The parameters (not checked here: see :func:`check_theta`), or weights prepared from
        them by :func:`prepare` (the same value, 1.6-2.6 times faster pairs).
    """
    return _scan(s, theta, _ZERO_THETA, _ZERO_THETA, _add, _add_if,
                 theta.shape[0] == N_WEIGHTS)[1]


@njit(cache=True)
def features(s, idx, val):
    """Write the sparse φ(s) (side to move's view) into ``idx``/``val``; return its length.

    The entries come out sorted by index, without duplicates and without zeros, so
    ``evaluate(s, θ) == θ[idx[:n]] @ val[:n]`` (up to rounding).

    Parameters
    ----------
    s : int64 array
        A :mod:`gamelib.games.minishogi.core` state.
    idx : int32 array of length ≥ ``MAX_ACTIVE``
        Receives the feature indices.
    val : float64 array of length ≥ ``MAX_ACTIVE``
        Receives the feature values (small integers).
    """
    n = _scan(s, _ZERO_THETA, idx, val, _put, _put_if)[0]
    # LSD radix sort of the keys (index << 4 | value + 8) by index, two 7-bit digits
    work = np.empty(2 * n + 128, dtype=np.int64)
    keys = work[:n]
    other = work[n:2 * n]
    count = work[2 * n:]
    for i in range(n):
        keys[i] = (np.int64(idx[i]) << 4) | (np.int64(val[i]) + 8)
    for shift in (4, 11):
        count[:] = 0
        for i in range(n):
            count[(keys[i] >> shift) & 127] += 1
        total = 0
        for b in range(128):
            c = count[b]
            count[b] = total
            total += c
        for i in range(n):
            b = (keys[i] >> shift) & 127
            other[count[b]] = keys[i]
            count[b] += 1
        keys, other = other, keys
    # merge equal indices, drop zeros
    m = 0
    i = 0
    while i < n:
        k = keys[i] >> 4
        x = 0
        while i < n and (keys[i] >> 4) == k:
            x += (keys[i] & 15) - 8
            i += 1
        if x != 0:
            idx[m] = k
            val[m] = x
            m += 1
    return m


@kernel
def features_unsorted(s, idx, val, pos):
    """:func:`features` in the order of the feature scan instead of sorted by index: the same
    entries (unique indices, non-zero values), for sums over φ whose order across indices does
    not matter (the learners' ``g[idx[j]] += w · val[j]``). Returns their number.

    ``pos`` is an int32 scratch array of length ``N_FEATURES``, all zeros (and left so): a
    duplicate index is merged by ``pos`` instead of a sort (0.8 us a position instead of 1.2),
    and a position in which no side has two pieces of one type, which cannot repeat an index,
    skips the merge.
    """
    n, _, repeats = _scan(s, _ZERO_THETA, idx, val, _put, _put_if)
    return _merge_in_scan_order(idx, val, n, pos, repeats)


@kernel
def evaluate_and_features_unsorted(s, theta, idx, val, pos):
    """:func:`evaluate` and :func:`features_unsorted` from one feature scan: returns ``(number of
    entries, θ·φ(s))``, the value bit for bit :func:`evaluate`'s (the terms are added in the same
    order; a learner that needs both for every leaf -- REINFORCE -- scans once instead of twice)."""
    n, v, repeats = _scan(s, theta, idx, val, _put_add, _put_add_if)
    return _merge_in_scan_order(idx, val, n, pos, repeats), v


@njit(cache=True, inline="always")
def _merge_in_scan_order(idx, val, n, pos, repeats):
    """Merge the scan's ``n`` entries with equal indices (first occurrence's place) and drop the
    zeros; ``pos`` is the zeroed scratch of :func:`features_unsorted` (left zeroed). Returns the
    number of entries left. ``repeats`` is :func:`_scan`'s: if 0, no index comes twice and no
    entry is zero (every entry the scan counts is ±1 or a hand count), so there is nothing to
    do (positions with two pieces of one side and type need the merge)."""
    if repeats == 0:
        return n
    m = 0
    for i in range(n):
        k = idx[_u(i)]
        p = pos[_u(k)]
        if p == 0:
            pos[_u(k)] = m + 1
            idx[_u(m)] = k
            val[_u(m)] = val[_u(i)]
            m += 1
        else:
            val[_u(p - 1)] += val[_u(i)]
    nz = 0
    for j in range(m):
        pos[_u(idx[_u(j)])] = 0
        if val[_u(j)] != 0.0:
            idx[_u(nz)] = idx[_u(j)]
            val[_u(nz)] = val[_u(j)]
            nz += 1
    return nz


@kernel
def prepare_into(w):
    """Fill the pair table ``w[N_FEATURES:]`` from the parameters ``w[:N_FEATURES]`` (see
    :func:`prepare`); call it again whenever they change."""
    for c in range(2):
        x = 1.0 if c == 0 else -1.0
        for enemy in range(2):
            for ta in range(1, _N_TYPES + 1):
                for tb in range(1, _N_TYPES + 1):
                    for slot in range(50):
                        i = N_FEATURES + 2 * (_pair_row(2 * c + enemy, ta, tb) + slot)
                        f = _pair_row(enemy, ta, tb) + slot
                        k1 = np.int64(_PAIR_FEATURES[f, 0])
                        k2 = np.int64(_PAIR_FEATURES[f, 1])
                        w[i] = x * w[k1 + OPP_OFFSET * np.int64(x < 0.0)] if k1 >= 0 else 0.0
                        w[i + 1] = -x * w[k2 + OPP_OFFSET * np.int64(-x < 0.0)] if k2 >= 0 else 0.0


def prepare(theta) -> np.ndarray:
    """Weights for a faster :func:`evaluate`: θ (checked) followed by its pair table, length
    :data:`N_WEIGHTS`.

    A pair of pieces adds two terms to the evaluation, ``x θ[k]`` of its feature and, for an
    enemy pair, ``-x θ[k']`` of the other side's view (0.0 where there is none). The table holds
    both, for every (side of the first piece, own/enemy, types, offset), so the pair loop reads
    two numbers instead of looking up the indices, their sides and the weights -- the same
    terms added in the same order, so :func:`evaluate` gives the same value to the last bit.
    Every function that takes θ only to evaluate positions (the search, the self-play games)
    accepts the prepared weights; they are a function of θ, to be prepared again
    (:func:`prepare_into`) when θ changes.
    """
    w = np.empty(N_WEIGHTS)
    w[:N_FEATURES] = check_theta(theta)
    prepare_into(w)
    return w


@kernel
def evaluate_material(s, theta):
    """The material blocks of θ·φ(s) (board and hands, both sides), side to move's view: the
    material-only engine's evaluation (no tempo term). Only ``material`` and ``opp_material``
    are read."""
    stm = s[_STM]
    v = 0.0
    for t in range(5):
        k = MAT_OFF + _N_MAT_BOARD + t
        v += s[_HAND + 5 * stm + t] * theta[k] - s[_HAND + 5 * (1 - stm) + t] * theta[k + OPP_OFFSET]
    for a in range(25):
        pa = s[a]
        if pa == 0:
            continue
        k = _MAT_OF_TYPE[pa & 15]
        if k < 0:
            continue
        if (pa >> 4) == stm:
            v += theta[k]
        else:
            v -= theta[k + OPP_OFFSET]
    return v


@kernel
def evaluate_kind(s, theta, kind):
    """:func:`evaluate_material` if ``kind == EVAL_MATERIAL``, else :func:`evaluate`."""
    if kind == EVAL_MATERIAL:
        return evaluate_material(s, theta)
    return evaluate(s, theta)


# ----------------------------------------------------------------------------- Python helpers
def _state_of(position) -> np.ndarray:
    state = getattr(position, "state", position)
    if not isinstance(state, np.ndarray) or state.dtype != np.int64 or state.ndim != 1 or state.shape[0] < core.HIST:
        raise ValueError("expected a gamelib.games.minishogi Position or core state array (int64)")
    return state


def mirror(position) -> np.ndarray:
    """ŝ: a new state with the colours swapped and the board rotated by 180° (hands swapped),
    the same colour to move and no history: ψ_stm(ŝ) = ψ_opp(s) and ψ_opp(ŝ) = ψ_stm(s), so
    ``φ(ŝ) = -swap_sides(φ(s))`` on every block but the tempo one (``φ_tempo(ŝ) = φ_tempo(s) =
    1``), see :func:`swap_sides`.

    If the side to move of ``s`` is in check, ŝ has the side *not* to move in check: not a
    position of a game, but its features are well defined.
    """
    s = _state_of(position)
    board = np.zeros(25, dtype=np.int64)
    for sq in range(25):
        pc = int(s[sq])
        if pc:
            board[24 - sq] = pc ^ 16
    hands = np.concatenate([s[_HAND + 5:_HAND + 10], s[_HAND:_HAND + 5]])
    return core.new_state(board, hands, int(s[_STM]), int(s[core.MOVE_NUMBER] + s[core.PLY]), capacity=1)


def sparse_features(position) -> tuple[np.ndarray, np.ndarray]:
    """φ of a :class:`~gamelib.games.minishogi.Position` (or state) as (indices int32, values float64)."""
    idx = np.empty(MAX_ACTIVE, dtype=np.int32)
    val = np.empty(MAX_ACTIVE, dtype=np.float64)
    n = features(_state_of(position), idx, val)
    return idx[:n].copy(), val[:n].copy()


def dense_features(position) -> np.ndarray:
    """φ of a position as a dense ``float64`` vector of length ``N_FEATURES``."""
    idx, val = sparse_features(position)
    out = np.zeros(N_FEATURES)
    out[idx] = val
    return out


def feature_name(k: int) -> str:
    """A readable description of feature ``k``, e.g. ``'piece_square: own +R on 3b'`` (a feature
    of the side to move) or ``'opp_piece_square: own +R on 3b'`` (the same feature of the side
    not to move, "own" being that side's)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < N_FEATURES:
        raise ValueError(f"feature index must be an integer in [0, {N_FEATURES}), got {k!r}")
    k = int(k)
    b = next(b for b in LAYOUT if b.offset <= k < b.stop)
    i = k - b.offset
    base = b.name.removeprefix("opp_")
    if base == "material":
        if i < _N_MAT_BOARD:
            text = f"{_TYPE_NAMES[_MATERIAL_BOARD_TYPES[i]]} on the board"
        else:
            text = f"{_TYPE_NAMES[R.HAND_TYPES[i - _N_MAT_BOARD]]} in hand"
    elif base == "piece_square":
        text = f"own {_TYPE_NAMES[i // 25 + 1]} on {SQUARE_NAMES[i % 25]}"
    elif base == "pair_own":
        text = _PAIR_OWN_NAMES[i]
    elif base == "pair_enemy":
        text = _PAIR_ENEMY_NAMES[i]
    elif base == "blocker":
        per_slider = 4 * 2 * len(_PIECE_TYPES)
        slider = _SLIDER_TYPES[i // per_slider]
        direction = (i % per_slider) // 20
        kind = i % 20
        dirs = R.DIAGONAL if slider in (R.BISHOP, R.HORSE) else R.ORTHOGONAL
        dir_name = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")[dirs[direction]]
        owner = "own" if kind < 10 else "enemy"
        text = f"own {_TYPE_NAMES[slider]} looking {dir_name}, blocked by {owner} {_TYPE_NAMES[kind % 10 + 1]}"
    elif base == "mobility":
        text = f"own {_TYPE_NAMES[_MATERIAL_BOARD_TYPES[i // (_MAX_MOBILITY + 1)]]} with {i % (_MAX_MOBILITY + 1)} moves"
    elif base == "king_mobility":
        text = f"own king with {i} moves"
    else:
        text = "side to move"
    return f"{b.name}: {text}"


_NAME_TO_TYPE = {name: t for t, name in _TYPE_NAMES.items()}


def _piece_type(name: str, allowed=_PIECE_TYPES) -> int:
    t = _NAME_TO_TYPE.get(name)
    if t is None or t not in allowed:
        raise ValueError(f"bad piece type {name!r}: expected one of {[_TYPE_NAMES[x] for x in allowed]}")
    return t


def _square(square: str) -> int:
    if square not in SQUARE_NAMES:
        raise ValueError(f"bad square {square!r}: expected a file 1-5 then a rank a-e, e.g. '3c'")
    return SQUARE_NAMES.index(square)


def material_index(piece: str, in_hand: bool = False) -> int:
    """Index of the material feature of ``piece`` ("P", "+R", ...) on the board or in hand."""
    if in_hand:
        return MAT_OFF + _N_MAT_BOARD + R.HAND_TYPES.index(_piece_type(piece, R.HAND_TYPES))
    return int(_MAT_OF_TYPE[_piece_type(piece, _MATERIAL_BOARD_TYPES)])


def piece_square_index(piece: str, square: str) -> int:
    """Index of "own ``piece`` on ``square``" (the square as the piece's owner sees the board)."""
    return PST_OFF + 25 * (_piece_type(piece) - 1) + _square(square)


def pair_index(piece: str, other: str, dr: int, dc: int, enemy: bool) -> int:
    """Index of "own ``piece`` with own/enemy ``other`` at offset (dr, dc)" (ranks down, files
    left to right as the owner sees the board); ``ValueError`` if the pair has no feature."""
    ta, tb = _piece_type(piece), _piece_type(other)
    if not (isinstance(dr, (int, np.integer)) and isinstance(dc, (int, np.integer))) or max(abs(dr), abs(dc)) > _PAIR_RADIUS \
            or (dr, dc) == (0, 0):
        raise ValueError(f"pair offset ({dr}, {dc}) is not one of the features' offsets (max(|dr|,|dc|) <= {_PAIR_RADIUS})")
    k = int((_PAIR_ENEMY if enemy else _PAIR_OWN)[ta, tb, _offset81(int(dr), int(dc))])
    if k < 0:
        raise ValueError(f"no pair feature for own {piece} with own {other}")
    return k


def blocker_index(slider: str, direction: str, blocker: str, enemy: bool) -> int:
    """Index of "own ``slider`` looking ``direction`` ("N", "NE", ...) blocked by ``blocker``"."""
    t = _piece_type(slider, _SLIDER_TYPES)
    names = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
    dirs = R.DIAGONAL if t in (R.BISHOP, R.HORSE) else R.ORTHOGONAL
    if direction not in names or names.index(direction) not in dirs:
        raise ValueError(f"bad direction {direction!r} for {slider}: expected one of {[names[d] for d in dirs]}")
    kind = _piece_type(blocker) - 1 + (10 if enemy else 0)
    return int(_SLIDER_OF_TYPE[t]) + 20 * dirs.index(names.index(direction)) + kind


def mobility_index(piece: str, n_moves: int) -> int:
    """Index of "own ``piece`` (not the king) with ``n_moves`` squares to move to"."""
    t = _piece_type(piece, _MATERIAL_BOARD_TYPES)
    if not isinstance(n_moves, (int, np.integer)) or not 0 <= n_moves <= _MAX_MOBILITY:
        raise ValueError(f"n_moves must be an integer in [0, {_MAX_MOBILITY}], got {n_moves!r}")
    return int(_MOB_OF_TYPE[t]) + int(n_moves)


def king_mobility_index(n_moves: int) -> int:
    """Index of "own king with ``n_moves`` squares to move to" (0..8)."""
    if not isinstance(n_moves, (int, np.integer)) or not 0 <= n_moves <= _N_KING_MOVES:
        raise ValueError(f"n_moves must be an integer in [0, {_N_KING_MOVES}], got {n_moves!r}")
    return KMOB_OFF + int(n_moves)


def opp_index(k: int) -> int:
    """Index of the side not to move's copy of feature ``k`` of the side to move (an index of
    the first half of the layout, e.g. from :func:`material_index`)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < OPP_OFFSET:
        raise ValueError(f"k must be a side-to-move feature index in [0, {OPP_OFFSET}), got {k!r}")
    return int(k) + OPP_OFFSET


def swap_sides(v) -> np.ndarray:
    """A vector of the layout with the side to move's and the other side's halves exchanged
    (the tempo entry kept): for features, ``φ(ŝ) = -swap_sides(φ(s))`` but for the tempo entry;
    for parameters, ``swap_sides(θ) == θ`` means the antisymmetric evaluation."""
    v = np.asarray(v)
    if v.ndim != 1 or v.shape[0] != N_FEATURES:
        raise ValueError(f"expected a vector of {N_FEATURES} entries (layout {LAYOUT_NAME!r}), got shape {v.shape}")
    out = v.copy()
    out[:OPP_OFFSET] = v[OPP_OFFSET:2 * OPP_OFFSET]
    out[OPP_OFFSET:2 * OPP_OFFSET] = v[:OPP_OFFSET]
    return out


def side_weights_theta(weights, tempo: float = 0.0) -> np.ndarray:
    """θ of the antisymmetric evaluation ``w·(ψ_stm − ψ_opp) + tempo``: ``weights`` w (one per
    feature of a side, ``OPP_OFFSET`` of them) for both halves, and the tempo weight."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.shape[0] != OPP_OFFSET:
        raise ValueError(f"weights must be a vector of {OPP_OFFSET} side weights, got shape {w.shape}")
    if not np.all(np.isfinite(w)) or not np.isfinite(tempo):
        raise ValueError("weights and tempo must be finite")
    return np.concatenate([w, w, [float(tempo)]])


def check_theta(theta, name: str = "theta") -> np.ndarray:
    """``theta`` as a contiguous ``float64`` vector of length ``N_FEATURES``, or ``ValueError``
    (:func:`gamelib.runtime.parameters.check_parameters`)."""
    return check_parameters(theta, N_FEATURES, LAYOUT_NAME, name)


#: The paper's Table 1 piece values (a pawn = 0.02). Pieces in hand start at their board value.
PIECE_VALUES = {"P": 0.02, "S": 0.08, "G": 0.10, "B": 0.16, "R": 0.20, "+P": 0.10, "+S": 0.10, "+B": 0.26, "+R": 0.30}


def table1_theta() -> np.ndarray:
    """The paper's Table 1 piece values in both material blocks (hand = board value), 0
    elsewhere: the material-only antisymmetric evaluation."""
    w = np.zeros(OPP_OFFSET)
    for k, t in enumerate(_MATERIAL_BOARD_TYPES):
        w[MAT_OFF + k] = PIECE_VALUES[_TYPE_NAMES[t]]
    for k, t in enumerate(R.HAND_TYPES):
        w[MAT_OFF + _N_MAT_BOARD + k] = PIECE_VALUES[_TYPE_NAMES[t]]
    return side_weights_theta(w)


def initial_theta(seed: int = 0, scale: float = 1e-4) -> np.ndarray:
    """The paper's initial parameters: Table 1 piece values, the other weights ~ N(0, scale²),
    the same weights for both sides (the antisymmetric evaluation, :func:`side_weights_theta`)
    and the tempo weight 0 (the paper has no such term).

    Parameters
    ----------
    seed : int
        Seed of the noise (``numpy.random.default_rng``).
    scale : float
        Standard deviation of the other weights ("very small random numbers" in the paper).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    if not np.isfinite(scale) or scale < 0:
        raise ValueError(f"scale must be a non-negative number, got {scale!r}")
    w = np.random.default_rng(int(seed)).normal(0.0, float(scale), OPP_OFFSET)
    mat = _BLOCKS["material"].slice
    w[mat] = table1_theta()[mat]
    return side_weights_theta(w)


# ----------------------------------------------------------------------------- files
def save_theta(path, theta) -> Path:
    """Save parameters as ``.npz`` (atomically) with the layout name and version; returns the path."""
    return save_parameters(path, check_theta(theta), LAYOUT_NAME, FORMAT_VERSION)


def load_theta(path) -> np.ndarray:
    """Load parameters saved by :func:`save_theta`.

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    ValueError
        If the file is not a parameter file of this layout: damaged, missing fields, another
        layout name, another version, or a vector of the wrong length or with non-finite values.
    """
    theta = load_parameters(path, LAYOUT_NAME, FORMAT_VERSION, "minishogi")
    try:
        return check_theta(theta, name=f"{path}: theta")
    except ValueError as err:
        raise ValueError(str(err)) from None

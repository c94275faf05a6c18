"""The linear Othello evaluation of the learners: pattern tables, mobility and parity.

From the side to move's point of view (the protocol's convention: ``p`` its discs, ``o`` the
other side's), the evaluation is a sum of table entries and weighted counts,

.. math::  v(s) = \\theta \\cdot \\phi(s)
           = \\sum_{f} \\sum_{k \\in I_f} \\theta_{f,\\, \\kappa_f(c_k(s))}
           + \\sum_{t=1}^{5} \\theta_{\\mathrm{stage}(s),\\, t}\\; x_t(s),

where :math:`I_f` are the instances of pattern family :math:`f` on the board,
:math:`c_k(s)` the configuration of instance :math:`k` (each of its squares empty, the side to
move's or the other's), :math:`\\kappa_f` the class of a configuration under the family's own
symmetry, and :math:`x_t` the five counts below, with weights per game stage.

Pattern families
----------------
The families are Logistello's (Buro 1997), the pattern tables of a generalized linear
evaluation model (Buro 1999), without its 2×5 corner family and without its game stages, which
would give some 1.2 million weights where our learners see about 6 million positions (100,000
self-play games per learner in the PGLeaf study, some 120,000 WTHOR games for comparison
training and elmo's loss). The edge with its two X-squares is the unit of the edge tables of
IAGO (Rosenbloom 1982) and BILL (Lee & Mahajan 1990). Squares are named as in
:mod:`gamelib.games.othello.squares`; a family is one base pattern and its images under the eight
symmetries of the board:

==========  =============================  =========  =======  =========
family      base pattern (reading order)   instances  squares  weights
==========  =============================  =========  =======  =========
edge_2x     a1 b1 c1 d1 e1 f1 g1 h1 b2 g2  4          10       29,646
corner_3x3  a1 b1 c1 a2 b2 c2 a3 b3 c3     4          9        10,206
line_2      a2 b2 c2 d2 e2 f2 g2 h2        4          8        3,321
line_3      a3 ... h3                      4          8        3,321
line_4      a4 ... h4                      4          8        3,321
diag_8      a1 b2 c3 d4 e5 f6 g7 h8        2          8        3,321
diag_7      b1 c2 d3 e4 f5 g6 h7           4          7        1,134
diag_6      c1 d2 e3 f4 g5 h6              4          6        378
diag_5      d1 e2 f3 g4 h5                 4          5        135
diag_4      e1 f2 g3 h4                    4          4        45
==========  =============================  =========  =======  =========

The symmetries are taken in the order :math:`(c, r) \\mapsto` (c, r), (7−c, r), (c, 7−r),
(7−c, 7−r), (r, c), (7−r, c), (r, 7−c), (7−r, 7−c) (column ``c``, row ``r``, 0-based); an
instance is a new square set in that order, read in the order its first symmetry gives the base
pattern's squares. A configuration's code is :math:`\\sum_i d_i 3^i` with :math:`d_i` = 0 for
an empty square ``i`` of the reading order, 1 for a disc of the side to move, 2 for the
other's. All instances of a family share one table (the weight of a configuration does not
depend on where on the board it is), and the symmetries that map a pattern onto its own
squares (reversing a line, exchanging the two halves of the 3×3 corner, or of the edge with its
X-squares) make one class of a configuration and its mirror image: :math:`\\kappa_f` numbers the
classes by their smallest code, and ``weights`` above counts the classes. The evaluation is
therefore the same on the eight images of a position for *every* θ, as the board's symmetries
are of the rules.

Counts, per game stage
----------------------
With ``n`` = discs on the board, the stage is :math:`\\min(3, \\lfloor (n - 4) / 15 \\rfloor)`
(4 stages) and the five counts are

1. the side to move's mobility, its legal moves (Rosenbloom 1982);
2. the other side's mobility;
3. the side to move's potential mobility, the empty squares next to an opponent's disc
   (Rosenbloom 1982);
4. the other side's potential mobility, the empty squares next to one of ours;
5. parity: +1 when the number of empty squares is odd (the side to move plays last if nobody
   passes), −1 when it is even (Lee & Mahajan 1990; Buro 1997).

:data:`N_FEATURES` = 54,828 table entries + 4 × 5 = 54,848 weights; a position has at most
:data:`MAX_ACTIVE` = 38 + 5 = 43 features.

The sparse φ and the sum
------------------------
:func:`board_features` lists the families in the order of the table, each family's instances
in instance order, one entry per class at its first instance with the number of instances in
that class as its value (two empty corners are one entry of value 2), then the non-zero counts
in the order above; indices are distinct and every value is a small integer. :func:`board_evaluate`
adds :math:`\\theta_i \\phi_i` in exactly that order, so that it equals the sum of the sparse
product taken left to right to the last bit. Indices are computed with integer arithmetic from
the bitboards and precomputed tables: a line's or a diagonal's code from its squares gathered
into a byte (one multiplication, on the board or its reflection in the a1-h8 diagonal) and a
table of base-3 values, the edge's and the corner's by a loop over their squares, a class by
one table look-up. About 0.4 µs a position where the 64 square weights take 0.03 µs; a
depth-5 αβ search visits a quarter to a third as many nodes a second.

No antisymmetry is imposed: a configuration and its colour-swapped image have weights of their
own (the value of having the move in it; the 5×5 shogi chapter shows how an antisymmetric
evaluation left positions that are their own mirror image without a gradient). With
antisymmetric weights the evaluation is antisymmetric: :func:`initial_theta` is such a θ,
the classic square weights of :data:`CLASSIC_WEIGHTS` spread over the
edge and line tables, so that it is the book's positional evaluation (to rounding).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import core as _core
from .squares import parse_square
from .symmetry import FLIP_A1H8, transform
from gamelib.runtime.bits import ctpop as _ctpop
from gamelib.runtime.index import unsigned as _u
from gamelib.runtime.kernels import kernel

__all__ = ["CLASSIC_WEIGHTS", "FAMILIES", "SYMMETRIES", "N_PATTERN_WEIGHTS", "N_STAGES", "N_COUNTS", "N_FEATURES",
           "MAX_ACTIVE", "family_table", "instances", "stage", "board_features",
           "board_evaluate", "initial_theta"]

#: A classic square-weight table: corners good, the squares next to them (X and C) bad, edges
#: mildly good, the centre neutral. Index 0 = a1 ... 63 = h8 (symmetric under the board's eight
#: symmetries).
CLASSIC_WEIGHTS = np.array([
    100, -20, 10, 5, 5, 10, -20, 100,
    -20, -50, -2, -2, -2, -2, -50, -20,
    10, -2, -1, -1, -1, -1, -2, 10,
    5, -2, -1, -1, -1, -1, -2, 5,
    5, -2, -1, -1, -1, -1, -2, 5,
    10, -2, -1, -1, -1, -1, -2, 10,
    -20, -50, -2, -2, -2, -2, -50, -20,
    100, -20, 10, 5, 5, 10, -20, 100,
], dtype=np.float64)
CLASSIC_WEIGHTS.flags.writeable = False

#: Family name -> its base pattern, in reading order.
FAMILIES = {
    "edge_2x": "a1 b1 c1 d1 e1 f1 g1 h1 b2 g2",
    "corner_3x3": "a1 b1 c1 a2 b2 c2 a3 b3 c3",
    "line_2": "a2 b2 c2 d2 e2 f2 g2 h2",
    "line_3": "a3 b3 c3 d3 e3 f3 g3 h3",
    "line_4": "a4 b4 c4 d4 e4 f4 g4 h4",
    "diag_8": "a1 b2 c3 d4 e5 f6 g7 h8",
    "diag_7": "b1 c2 d3 e4 f5 g6 h7",
    "diag_6": "c1 d2 e3 f4 g5 h6",
    "diag_5": "d1 e2 f3 g4 h5",
    "diag_4": "e1 f2 g3 h4",
}

#: The eight symmetries of the board, ``(c, r) -> (x, y)``, in the module doc's order.
SYMMETRIES = (lambda c, r: (c, r), lambda c, r: (7 - c, r), lambda c, r: (c, 7 - r),
              lambda c, r: (7 - c, 7 - r), lambda c, r: (r, c), lambda c, r: (7 - r, c),
              lambda c, r: (r, 7 - c), lambda c, r: (7 - r, 7 - c))

N_STAGES = 4
N_COUNTS = 5
_STAGE_DISCS = 15
_MAX_SQUARES = 10


def _map(g, sq: int) -> int:
    x, y = SYMMETRIES[g](sq % 8, sq // 8)
    return 8 * y + x


def instances(family: str) -> list[tuple[int, ...]]:
    """The instances of ``family``: square indices in reading order, in instance order."""
    base = [parse_square(name) for name in FAMILIES[family].split()]
    seen, out = set(), []
    for g in range(len(SYMMETRIES)):
        image = tuple(_map(g, sq) for sq in base)
        if frozenset(image) not in seen:
            seen.add(frozenset(image))
            out.append(image)
    return out


def family_table(family: str) -> np.ndarray:
    """Code -> class (``int32``, ``3**k`` entries): the classes of the family's configurations
    under the symmetries that map its base pattern onto its own squares, numbered by their
    smallest code."""
    base = [parse_square(name) for name in FAMILIES[family].split()]
    k = len(base)
    codes = np.arange(3 ** k, dtype=np.int64)
    digits = codes[:, None] // 3 ** np.arange(k) % 3            # digits[code, i] = d_i
    smallest = codes.copy()
    for g in range(len(SYMMETRIES)):
        image = [_map(g, sq) for sq in base]
        if set(image) == set(base):   # reading i of the image is square base[perm[i]]
            perm = [base.index(sq) for sq in image]
            smallest = np.minimum(smallest, (digits[:, perm] * 3 ** np.arange(k)).sum(axis=1))
    classes = np.unique(smallest)
    return np.searchsorted(classes, smallest).astype(np.int32)


def _tables():
    """The kernels' tables: every instance's squares, length and class-table offset; each
    family's first instance, end, and first weight."""
    sq, length, table_off, first, end, weight_off, tables = [], [], [], [], [], [], []
    n_tables = n_weights = 0
    for family in FAMILIES:
        table = family_table(family)
        first.append(len(sq))
        for inst in instances(family):
            sq.append(list(inst) + [0] * (_MAX_SQUARES - len(inst)))
            length.append(len(inst))
            table_off.append(n_tables)
        end.append(len(sq))
        weight_off.append(n_weights)
        tables.append(table)
        n_tables += table.size
        n_weights += int(table.max()) + 1
    as_array = lambda x: np.array(x, dtype=np.int64)   # noqa: E731
    return (as_array(sq).ravel(), as_array(length), as_array(table_off), as_array(first), as_array(end),
            as_array(weight_off), np.concatenate(tables), n_weights)


def _line_gathers():
    """For every instance: 0, or 1 + the view (0 the board, 1 its reflection in the a1-h8
    diagonal) in which its squares lie in distinct columns, with the mask of those squares in
    the view and the shift that brings the leftmost to bit 0 after the gather; such a line is read in the view's column order, its reading order or the reverse
    one (the same class: every line family's own symmetry reverses it)."""
    view, mask, shift = [], [], []
    for family in FAMILIES:
        for inst in instances(family):
            v = 0
            if family in ("edge_2x", "corner_3x3"):
                view.append(v)
                mask.append(0)
                shift.append(0)
                continue
            squares = list(inst)
            if len({sq % 8 for sq in squares}) < len(squares):
                v, squares = 1, [8 * (sq % 8) + sq // 8 for sq in squares]
            columns = [sq % 8 for sq in squares]
            assert columns in (sorted(columns), sorted(columns, reverse=True))
            view.append(1 + v)
            mask.append(sum(1 << sq for sq in squares))
            shift.append(56 + min(columns))
    return (np.array(view, dtype=np.int64), np.array(mask, dtype=np.uint64),
            np.array(shift, dtype=np.uint64))


(_SQ, _LEN, _TABLE_OFF, _FIRST, _END, _WEIGHT_OFF, _CLASS, N_PATTERN_WEIGHTS) = _tables()
_GATHER, _GATHER_MASK, _GATHER_SHIFT = _line_gathers()
_N_FAMILIES = len(FAMILIES)
#: Table entries, then the counts' weights (stage-major: ``N_PATTERN_WEIGHTS + 5 * stage + t``).
N_FEATURES = N_PATTERN_WEIGHTS + N_STAGES * N_COUNTS
MAX_ACTIVE = len(_LEN) + N_COUNTS
_U1 = np.uint64(1)
_POW3 = np.array([3 ** i for i in range(_MAX_SQUARES)], dtype=np.uint64)
_TERNARY = np.array([sum(3 ** i for i in range(8) if b >> i & 1) for b in range(256)], dtype=np.uint64)
_COLUMNS = np.uint64(0x0101010101010101)   # x & mask times this: the mask's columns in the top byte
_NOT_A = np.uint64(0xFEFEFEFEFEFEFEFE)   # every square but the a-file
_NOT_H = np.uint64(0x7F7F7F7F7F7F7F7F)   # every square but the h-file


@njit(cache=True, inline="always")
def _class(p, o, pt, ot, k):
    """The class (within its family) of instance ``k``'s configuration: its code
    :math:`\\sum_i 3^i (p_i + 2 o_i)` over the reading order, then the family's table. A line
    is gathered into a byte by one multiplication (its squares, in distinct columns of the board
    or of its reflection ``pt, ot``, land in the top byte without carries) and coded by a table;
    the edge and the corner by a loop over their squares."""
    g = _GATHER[_u(k)]
    if g > 0:
        m = _GATHER_MASK[_u(k)]
        s = _GATHER_SHIFT[_u(k)]
        x = p if g == 1 else pt
        y = o if g == 1 else ot
        code = _TERNARY[((x & m) * _COLUMNS) >> s] + (_TERNARY[((y & m) * _COLUMNS) >> s] << _U1)
    else:
        code = np.uint64(0)
        base = _u(_MAX_SQUARES * k)
        for i in range(_LEN[_u(k)]):
            bit = np.uint64(_SQ[base + _u(i)])
            code += _POW3[_u(i)] * (((p >> bit) & _U1) + (((o >> bit) & _U1) << _U1))
    return np.int64(_CLASS[_u(_TABLE_OFF[_u(k)]) + code])


@njit(cache=True, inline="always")
def _family_classes(p, o, pt, ot, f):
    """The classes of family ``f``'s instances (four; -1 and -2 for the missing ones of a family
    of two)."""
    k = _FIRST[_u(f)]
    c0 = _class(p, o, pt, ot, k)
    c1 = _class(p, o, pt, ot, k + 1)
    if _END[_u(f)] - k == 2:
        return c0, c1, np.int64(-1), np.int64(-2)
    return c0, c1, _class(p, o, pt, ot, k + 2), _class(p, o, pt, ot, k + 3)


@njit(cache=True, inline="always")
def _multiplicities(classes):
    """For each of four classes: how many of the four it is if no earlier one is it, else 0
    (0 for the missing ones, which are negative)."""
    c0, c1, c2, c3 = classes
    m0 = 1 + (c1 == c0) + (c2 == c0) + (c3 == c0)
    m1 = 0 if c1 == c0 else 1 + (c2 == c1) + (c3 == c1)
    m2 = 0 if c2 < 0 or c2 == c0 or c2 == c1 else 1 + (c3 == c2)
    m3 = 0 if c3 < 0 or c3 == c0 or c3 == c1 or c3 == c2 else 1
    return (m0, m1, m2, m3)


@njit(cache=True, inline="always")
def _neighbours(x):
    """The squares next to a square of ``x`` (eight directions)."""
    h = ((x << _U1) & _NOT_A) | ((x >> _U1) & _NOT_H)
    x = x | h
    return h | (x << np.uint64(8)) | (x >> np.uint64(8))


@njit(cache=True, inline="always")
def stage(p, o):
    """The game stage, ``min(3, (discs - 4) // 15)``."""
    return min(N_STAGES - 1, (np.int64(_ctpop(p | o)) - 4) // _STAGE_DISCS)


@njit(cache=True, inline="always")
def _counts(p, o):
    """Mobility, the opponent's, potential mobility, the opponent's, parity (±1)."""
    empty = ~(p | o)
    parity = 1 if _ctpop(empty) & _U1 else -1
    return (np.int64(_ctpop(_core.move_mask(p, o))), np.int64(_ctpop(_core.move_mask(o, p))),
            np.int64(_ctpop(empty & _neighbours(o))), np.int64(_ctpop(empty & _neighbours(p))),
            parity)


@kernel
def board_features(p, o, idx, val):
    """The sparse φ of the position ``(p, o)`` (``uint64`` bitboards, ``p`` to move) into
    ``idx`` (int32) and ``val`` (float64); returns the number of entries (module doc's order)."""
    pt, ot = transform(FLIP_A1H8, p), transform(FLIP_A1H8, o)
    n = 0
    for f in range(_N_FAMILIES):
        classes = _family_classes(p, o, pt, ot, f)
        multiplicities = _multiplicities(classes)
        for j in range(4):
            if multiplicities[j] > 0:
                idx[n] = _WEIGHT_OFF[f] + classes[j]
                val[n] = multiplicities[j]
                n += 1
    base = N_PATTERN_WEIGHTS + N_COUNTS * stage(p, o)
    t = 0
    for x in _counts(p, o):
        if x != 0:
            idx[n] = base + t
            val[n] = x
            n += 1
        t += 1
    return n


@kernel
def board_evaluate(p, o, theta):
    """θ·φ of the position ``(p, o)``, added in :func:`board_features`' order."""
    pt, ot = transform(FLIP_A1H8, p), transform(FLIP_A1H8, o)
    v = 0.0
    for f in range(_N_FAMILIES):
        classes = _family_classes(p, o, pt, ot, f)
        multiplicities = _multiplicities(classes)
        for j in range(4):
            if multiplicities[j] > 0:
                v += theta[_u(_WEIGHT_OFF[f] + classes[j])] * np.float64(multiplicities[j])
    base = N_PATTERN_WEIGHTS + N_COUNTS * stage(p, o)
    t = 0
    for x in _counts(p, o):
        if x != 0:
            v += theta[_u(base + t)] * np.float64(x)
        t += 1
    return v


def initial_theta(weights=CLASSIC_WEIGHTS) -> np.ndarray:
    """Square weights ``w`` (symmetric under the board's symmetries) as pattern weights: every
    square lies on one row and one column of the edge and line families (an X-square on two
    more, its edges'), so an entry of those tables is :math:`\\sum_i w_i \\sigma_i / m_i /
    \\sum|w|` over the pattern's squares (σ = +1, −1, 0 for a disc of the side to move, of the
    other side, an empty square; ``m`` the square's number of instances), and θ·φ is the
    positional score :math:`\\sum_i w_i (p_i - o_i) / \\sum_i |w_i|` (to rounding). The other
    tables and the counts' weights are 0.

    Raises
    ------
    ValueError
        If ``weights`` are not 64 numbers equal on the eight images of every square.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (64,) or any(w[_map(g, sq)] != w[sq] for g in range(8) for sq in range(64)):
        raise ValueError("square weights must be 64 numbers, the same on the eight images of "
                         "a square under the board's symmetries")
    rows = ("edge_2x", "line_2", "line_3", "line_4")
    cover = np.zeros(64)
    for family in rows:
        for inst in instances(family):
            cover[list(inst)] += 1
    theta = np.zeros(N_FEATURES)
    total = np.abs(w).sum()
    for f, family in enumerate(FAMILIES):
        if family not in rows:
            continue
        base = list(instances(family)[0])
        table = family_table(family)
        codes = np.arange(table.size)
        digits = codes[:, None] // 3 ** np.arange(len(base)) % 3
        sign = np.where(digits == 1, 1.0, np.where(digits == 2, -1.0, 0.0))
        value = (sign * (w[base] / cover[base])).sum(axis=1) / total
        theta[_WEIGHT_OFF[f] + table] = value   # the members of a class have one value
    return theta

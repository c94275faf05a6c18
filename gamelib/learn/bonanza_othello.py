"""The Bonanza method on Othello: the loss's slope in evaluation units, the scale constraint.

The learner is the game-neutral one (:mod:`gamelib.learn.bonanza_positions`,
:mod:`gamelib.learn.bonanza_search`, :mod:`gamelib.learn.bonanza_steps`) on the positions of
professional games (:mod:`gamelib.learn.wthor_positions`) with Othello's linear evaluation
(:mod:`gamelib.games.othello.features`: pattern tables and per-stage counts), started from the
classic square weights (:func:`gamelib.games.othello.game.initial_theta`). Two things are Othello's
own: the unit of the loss T (eq. 2) and the constraint that fixes the evaluation's scale
(eqs. 8–10). Equation numbers are those of :mod:`gamelib.learn.bonanza`.

Units: the slope
----------------
The starting evaluation is the classic positional score ``Σ_i w_i (p_i − o_i) / Σ_i |w_i|``
(``w`` the classic square weights, ``Σ|w| = 928``), so a disc on square i is worth
``w_i / 928`` and a disc on an average square ``mean |w_i| / Σ |w_i| = 1/64`` of an evaluation
unit. Bonanza's slope ``a = 7/256`` is per Bonanza unit, in which its smallest unit of material,
the pawn, is 100: a one-pawn difference between a move and the expert's gives
``T = sigmoid(2.73) ≈ 0.94``, a clear but not certain preference. Othello's unit of material is
the disc, so one disc on an average square is given the pawn's part: one Bonanza unit is
``(1/64)/100 = 1/6400`` evaluation units (:data:`EVAL_PER_BONANZA_UNIT`) and

    ``T(x) = sigmoid(a · 6400 · x)``,   slope :data:`SLOPE` = 7/256 × 6400 = 175 per unit,

Bonanza's window ±256 being ±0.04 (:data:`WINDOW`). At the start a corner (100/928 ≈ 0.108)
saturates T (slope × 0.108 ≈ 19), as a rook against a pawn does in shogi; the scale constraint
below keeps the classic unit the unit of the learned evaluation, so the slope keeps its meaning
as the weights move. Game-end scores of the search (±(1000 − plies)) saturate T. On 2,000
training positions of the 1985–86 WTHOR games searched at depth 1 with the starting weights,
the differences x have a median ``|x|`` of 0.0098 (0.6 of a disc) and 61 % of the comparisons have
0.05 < T < 0.95: the slope puts most comparisons where T still tells moves apart.

The scale constraint
--------------------
J depends on v only through the differences ``ξ(p_m) − ξ(p_1)`` times the slope, and it has
flat directions that change no difference: every leaf of a position's search that does not end
the game lies ``depth`` plies below it (a pass is a ply, and Othello has no quiescence moves),
so all have the same side to move, and every position has the same number of instances of a
pattern family (4, or 2 for the long diagonal) whose φ entries count them, so adding one number
to every entry of one pattern table (the direction ``1_f`` of table f) adds the same amount to
every such ξ of a position. The piece values of eq. (8) fix the scale of an evaluation that has
them; Othello's has none, and a sum ``Σ_{i∈Π} v_i = C`` of table entries (unit coefficients)
would not fix it either: ``1_f`` changes that sum by ``|Π ∩ f|`` per unit and J not at all, so
the sum can be kept by a table's level while the differences, the scale, grow or shrink. The
classic square weights set entries of four tables (the edge with its X-squares, and the second
to fourth rows and columns), ``c = othello_features.initial_theta()``, whose values sum to 0
within each table (a configuration and its colour-swapped image have opposite values): ``c`` is
orthogonal to every ``1_f`` and measures the scale. The constraint
(:class:`~gamelib.learn.bonanza.LinearConstraint`, eq. 8 with coefficients) is

    ``g(v) = Σ_{i∈Π} c_i v_i − C = 0``,   Π = the 38,652 entries with ``c_i ≠ 0``,
    ``C = c · v⁰`` (= ``c · c`` from :func:`gamelib.games.othello.game.initial_theta`: its noise
    lies where ``c = 0``),

i.e. the component of v along the classic evaluation stays that of the start (one classic
unit, :func:`classic_component` = 1) and learning moves v only in the directions orthogonal to
it, with eq. (9)'s multiplier ``λ₀ = c·G / c·c`` (the exact projection of the gradient onto the
plane) and eq. (10)'s median in its weighted form for sign steps. The counts' weights
(mobility, potential mobility, parity) and the other tables are free.

L1 (eq. 11): R is every weight by default (the constraint is a direction, not a set of weights
to leave out); after a proximal step the projection of
:func:`~gamelib.learn.bonanza.descent_step` puts v back on the plane.

Use
---
::

    split = wthor_positions.wthor_split(1977, 2018, held_out_fraction=0.1, seed=0)
    theta0 = othello.initial_theta(0, 1e-4)
    settings = BonanzaSettings(batch_size=10_000, learning_rate=1e-4,
                               search=SearchSettings(depth=1, qdepth=0))
    theta, counts = learn_steps(theta0, split.positions, split.train, settings, 0, 100, 0,
                                slope=SLOPE, constraint=scale_constraint(theta0))
    evaluate(theta, split.positions, split.held_out, settings.search, slope=SLOPE)

with :class:`~gamelib.learn.bonanza_steps.BonanzaSettings`,
:func:`~gamelib.learn.bonanza_steps.learn_steps`,
:class:`~gamelib.learn.bonanza_search.SearchSettings` and
:func:`~gamelib.learn.bonanza_search.evaluate`.
"""

from __future__ import annotations

import numpy as np

from gamelib.games.othello import features as F
from gamelib.learn import bonanza as bz

__all__ = ["EVAL_PER_BONANZA_UNIT", "SLOPE", "WINDOW", "DISC", "CONSTRAINTS",
           "classic_direction", "classic_component", "scale_constraint", "constraint_of"]

#: One disc on an average square of the classic square weights, in evaluation units: 1/64.
DISC = 1.0 / 64.0
#: One Bonanza unit (its pawn = 100) in evaluation units: a disc on an average square / 100.
EVAL_PER_BONANZA_UNIT = DISC / 100.0
#: The slope a = 7/256 of T(x) = sigmoid(a x) per evaluation unit: 7/256 × 6400 = 175.
SLOPE = bz.BONANZA_SLOPE / EVAL_PER_BONANZA_UNIT
#: Bonanza's window ±256 in evaluation units (±0.04).
WINDOW = bz.BONANZA_WINDOW * EVAL_PER_BONANZA_UNIT
#: The constraints :func:`constraint_of` knows.
CONSTRAINTS = ("classic", "none")


def classic_direction() -> tuple[np.ndarray, np.ndarray]:
    """``(indices, coefficients)``: Π and ``c_i`` of the scale constraint, the non-zero entries of
    the classic square weights as pattern weights
    (:func:`gamelib.games.othello.features.initial_theta`)."""
    c = F.initial_theta()
    idx = np.flatnonzero(c)
    return idx, c[idx]


def classic_component(theta) -> float:
    """v's component along the classic evaluation, ``c·v / c·c``: 1 at the start, kept by the
    scale constraint."""
    idx, c = classic_direction()
    con = bz.LinearConstraint(idx, c, 0.0)
    return con.value(theta) / con.value(F.initial_theta())


def scale_constraint(theta0) -> bz.LinearConstraint:
    """The constraint ``c·v = c·θ⁰`` (module doc) that keeps ``theta0``'s classic component."""
    idx, c = classic_direction()
    theta0 = np.asarray(theta0, dtype=np.float64)
    if theta0.shape != (F.N_FEATURES,):
        raise ValueError(f"theta0 must have Othello's {F.N_FEATURES} weights, got shape "
                         f"{theta0.shape}")
    return bz.LinearConstraint.keeping(idx, c, theta0)


def constraint_of(name: str, theta0) -> bz.LinearConstraint | None:
    """The constraint ``name`` of :data:`CONSTRAINTS` for a learner started at ``theta0``:
    ``"classic"`` (:func:`scale_constraint`) or ``"none"``."""
    if name == "none":
        return None
    if name == "classic":
        return scale_constraint(theta0)
    raise ValueError(f"unknown constraint {name!r}; use one of {CONSTRAINTS}")

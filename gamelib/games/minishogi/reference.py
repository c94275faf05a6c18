"""The reference opponent's hand-made evaluation (a stand-in for the paper's ``ssp``).

The PGLeaf paper measures its learners against ``ssp``, a 5×5 shogi engine that is no longer
available. Our stand-in is a fixed, documented engine: the same search as the learners
(:func:`gamelib.search.search`) with the hand-made weights below, in the learners' own feature
layout (:mod:`gamelib.games.minishogi.features`), at the fixed node budget :data:`REFERENCE_NODE_BUDGET`
(:func:`gamelib.play.shogi.reference_player`). Being linear in the same features, it can also
serve as a starting point or a target for the learners.

The weights (paper's units, a pawn = 0.02), all stated here:

* **Material.** The paper's Table 1 values (P 0.02, S 0.08, G 0.10, B 0.16, R 0.20; +P 0.10,
  +S 0.10, +B 0.26, +R 0.30), a piece in hand 10 % more than on the board (it can be dropped
  anywhere). We also tried the relative values that the engine Nanoha tuned for its 5×5 variant
  (silver about a gold, bishop well below rook, a pawn a fifth of a silver) scaled to a pawn =
  0.02; against the material-only engine they did worse than Table 1's (37 % of 60 games
  without the other terms), so the reference keeps Table 1.
* **Piece squares.** The king should stay home: -0.010 per rank it has left its own back rank
  (rank ``e`` as its owner sees the board), -0.004 more on the centre file. A pawn gains 0.004
  per rank of advance; silvers, golds and promoted minor pieces gain 0.003 per rank of advance
  beyond the middle rank (attackers near the enemy king).
* **King safety (relative position of two pieces).** Each own gold, silver, promoted pawn or
  promoted silver next to the own king (8-neighbourhood) +0.008; each enemy piece next to the own
  king -0.012 (pawn -0.006), two squares away -0.004 (pawn -0.002).
* **Mobility.** Bishop and rook +0.002 per square they can move to, horse and dragon +0.0015,
  silver and gold +0.001.
* **King mobility.** A king with no square to go to -0.020, one square -0.010, two -0.004.
* **Both sides alike, no tempo.** The same weights for the side to move's features and the other
  side's (:func:`~gamelib.games.minishogi.features.side_weights_theta`: the antisymmetric evaluation),
  tempo 0. The layout's separate weights per side and its tempo feature came after the
  reference was tuned; with equal halves it evaluates exactly as before.

The other numbers are our own choices, checked by matches against the material-only engine and
random play (see the chapter "Search and evaluation").
"""

from __future__ import annotations

import numpy as np

from . import features as E

__all__ = ["REFERENCE_NODE_BUDGET", "REFERENCE_QDEPTH", "reference_theta", "MATERIAL", "HAND_BONUS",
           "TEMPO"]

#: Node budget of the reference opponent's search per move.
REFERENCE_NODE_BUDGET = 20_000
#: Quiescence depth of the reference opponent's search.
REFERENCE_QDEPTH = 8

#: Board values (paper's units): the paper's Table 1.
MATERIAL = dict(E.PIECE_VALUES)
#: A piece in hand is worth this factor times its board value.
HAND_BONUS = 1.10
#: The weight of the side-to-move (tempo) feature.
TEMPO = 0.0

_RANKS = "abcde"  # as the owner sees the board: a is the enemy's back rank, e the own one
_FILES = "54321"
_DEFENDERS = ("G", "S", "+P", "+S")
_ATTACKERS = ("P", "S", "G", "B", "R", "+P", "+S", "+B", "+R")
_ALL_TYPES = ("P", "S", "G", "B", "R", "K", "+P", "+S", "+B", "+R")


def reference_theta() -> np.ndarray:
    """The reference opponent's weights (a new array; see the module docstring)."""
    theta = np.zeros(E.N_FEATURES)  # the side to move's half is filled, then copied
    for piece, value in MATERIAL.items():
        theta[E.material_index(piece)] = value
        if not piece.startswith("+"):
            theta[E.material_index(piece, in_hand=True)] = HAND_BONUS * value
    for r, rank in enumerate(_RANKS):
        advance = 4 - r  # ranks advanced from the own back rank
        for file in _FILES:
            sq = file + rank
            theta[E.piece_square_index("K", sq)] = -0.010 * advance - (0.004 if file == "3" else 0.0)
            if rank != "a":  # an unpromoted pawn never stands on the last rank
                theta[E.piece_square_index("P", sq)] = 0.004 * advance
            for piece in ("S", "G", "+P", "+S"):
                theta[E.piece_square_index(piece, sq)] = 0.003 * max(0, advance - 2)
    for dr in range(-2, 3):
        for dc in range(-2, 3):
            dist = max(abs(dr), abs(dc))
            if dist == 0:
                continue
            if dist == 1:
                for piece in _DEFENDERS:
                    theta[E.pair_index("K", piece, dr, dc, enemy=False)] += 0.008
            for piece in _ATTACKERS:
                weight = (-0.012 if dist == 1 else -0.004) * (0.5 if piece == "P" else 1.0)
                theta[E.pair_index("K", piece, dr, dc, enemy=True)] += weight
    for piece, per_move in (("B", 0.002), ("R", 0.002), ("+B", 0.0015), ("+R", 0.0015), ("S", 0.001), ("G", 0.001)):
        for n in range(13):
            theta[E.mobility_index(piece, n)] = per_move * n
    for n, weight in ((0, -0.020), (1, -0.010), (2, -0.004)):
        theta[E.king_mobility_index(n)] = weight
    return E.side_weights_theta(theta[:E.OPP_OFFSET], TEMPO)

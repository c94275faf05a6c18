"""The rules of 5×5 shogi (minishogi, 5五将棋), all in one place.

Every other module of :mod:`gamelib.games.minishogi` derives its tables and checks from the constants
below, in the way Fairy-Stockfish's ``variant.cpp`` states a variant: change a rule here and the
move generator, the SFEN parser and the game-end test follow.

The rules are those of Fairy-Stockfish's ``minishogi`` variant, with standard shogi's pawn-drop
mate rule:

* **Board and pieces.** 5×5 board; each side has a king K, gold G, silver S, bishop B, rook R and
  pawn P. Start position (SFEN) ``rbsgk/4p/5/P4/KGSBR b - 1``: sente (uppercase, "black" in SFEN)
  moves first.
* **Moves.** P one step forward; S one step forward or diagonally; G (and the promoted P and S)
  one step orthogonally or diagonally forward; K one step in any direction; B and R slide
  diagonally and orthogonally; the horse (+B) and dragon (+R) slide like B and R and also step
  one square orthogonally (horse) or diagonally (dragon).
* **Promotion.** The zone is the farthest rank (rank ``a`` for sente, ``e`` for gote). A P, S,
  B or R that starts or ends its move in the zone may promote (optional), except that a pawn
  reaching the last rank must promote. P and S promote to gold-movers, B to horse, R to dragon.
* **Captures and drops.** A captured piece goes to the captor's hand, unpromoted. Instead of a
  board move, a side may drop a piece from its hand on any empty square, unpromoted, except:
  a pawn never on the last rank; a pawn never on a file that holds an unpromoted pawn of the same
  side (nifu, the two-pawn rule); a pawn drop that gives checkmate is illegal (uchifuzume).
* **Game end.** A side with no legal move loses (checkmate; stalemate also loses). The fourth
  occurrence of the same position (board, hands, side to move) ends the game as a loss for
  sente, unless one side gave check with every one of its moves through the repetition: then
  that side loses (both did: a draw). The repetition is counted over the positions of the game
  since the position it was started from, as Fairy-Stockfish does.
* **Our convention.** The rules have no move limit; self-play and :func:`outcome` stop a game
  after :data:`DEFAULT_MAX_PLIES` plies of the game (counted from move 1 through the SFEN move
  number) and score it a draw.

Geometry used throughout: square ``sq = 5 * rank + col`` with ``rank`` 0..4 for USI ranks
``a``..``e`` (top to bottom as sente sees the board) and ``col`` 0..4 for USI files ``5``..``1``
(left to right), so ``sq`` 0 is ``5a`` and ``sq`` 24 is ``1e``; this is the order of the SFEN
board string. Sente moves "north" (towards rank ``a``).
"""

from __future__ import annotations

#: Board size.
FILES = 5
RANKS = 5
SQUARES = FILES * RANKS

#: Start position (SFEN).
START_SFEN = "rbsgk/4p/5/P4/KGSBR b - 1"

#: Sides. Sente ("black" in SFEN, uppercase, moves first) and gote.
SENTE = 0
GOTE = 1
SIDE_NAMES = ("sente", "gote")

# Piece types. 1..5 are the types that can be held in hand (in this order in the hand arrays).
EMPTY = 0
PAWN = 1
SILVER = 2
GOLD = 3
BISHOP = 4
ROOK = 5
KING = 6
TOKIN = 7  # promoted pawn (+P)
PRO_SILVER = 8  # promoted silver (+S)
HORSE = 9  # promoted bishop (+B)
DRAGON = 10  # promoted rook (+R)
N_PIECE_TYPES = 11
HAND_TYPES = (PAWN, SILVER, GOLD, BISHOP, ROOK)

#: SFEN letters of the unpromoted types (sente's; gote's are lowercase). "+" prefixes a promoted one.
PIECE_LETTERS = {PAWN: "P", SILVER: "S", GOLD: "G", BISHOP: "B", ROOK: "R", KING: "K"}
#: Promoted type of each promotable type, and back.
PROMOTES_TO = {PAWN: TOKIN, SILVER: PRO_SILVER, BISHOP: HORSE, ROOK: DRAGON}
UNPROMOTED = {TOKIN: PAWN, PRO_SILVER: SILVER, HORSE: BISHOP, DRAGON: ROOK}

#: Number of pieces of each unpromoted type in the whole game (both sides, board and hands).
PIECES_PER_TYPE = {PAWN: 2, SILVER: 2, GOLD: 2, BISHOP: 2, ROOK: 2, KING: 2}

# Directions as (rank step, col step) from sente's point of view; gote's are rotated by 180°.
N, NE, E, SE, S, SW, W, NW = range(8)
DIRECTIONS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
ORTHOGONAL = (N, E, S, W)
DIAGONAL = (NE, SE, SW, NW)
_GOLD_STEPS = (N, NE, E, S, W, NW)

#: One-square moves of each type (for sente).
STEPS = {
    PAWN: (N,),
    SILVER: (N, NE, SE, SW, NW),
    GOLD: _GOLD_STEPS,
    TOKIN: _GOLD_STEPS,
    PRO_SILVER: _GOLD_STEPS,
    KING: tuple(range(8)),
    BISHOP: (),
    ROOK: (),
    HORSE: ORTHOGONAL,
    DRAGON: DIAGONAL,
}
#: Sliding moves of each type (any distance up to the first occupied square, which may be captured).
SLIDES = {
    PAWN: (),
    SILVER: (),
    GOLD: (),
    TOKIN: (),
    PRO_SILVER: (),
    KING: (),
    BISHOP: DIAGONAL,
    ROOK: ORTHOGONAL,
    HORSE: DIAGONAL,
    DRAGON: ORTHOGONAL,
}

#: The promotion zone of each side (a set of board ranks 0..4): the farthest rank.
PROMOTION_RANKS = {SENTE: (0,), GOTE: (4,)}
#: Ranks where a piece of the type could never move again (must promote / may not be dropped).
DEAD_RANKS = {SENTE: {PAWN: (0,)}, GOTE: {PAWN: (4,)}}

#: Two-pawn rule: no pawn drop on a file holding an unpromoted pawn of the same side.
NIFU = True
#: Pawn-drop mate (uchifuzume) is illegal (Fairy-Stockfish generates it and scores it a loss).
PAWN_DROP_MATE_ILLEGAL = True
#: A side without legal moves loses (checkmate and stalemate alike). The only value implemented:
#: :mod:`gamelib.games.minishogi.core` refuses to load with False.
NO_MOVES_LOSES = True
#: The n-th occurrence of a position ends the game.
REPETITION_COUNT = 4
#: The side that loses a repetition without perpetual check.
REPETITION_LOSER = SENTE
#: A side that checked on every one of its moves through the repetition loses it (both: draw).
PERPETUAL_CHECK_LOSES = True
#: Our self-play convention: a game reaching this many plies is scored a draw.
DEFAULT_MAX_PLIES = 300

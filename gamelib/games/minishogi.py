"""5×5 shogi behind the game protocol: the kernels of :mod:`gamelib.minishogi.core` and the
PGLeaf paper's linear evaluation (:mod:`gamelib.evaluation.shogi`), as they are.

The state is the core's ``int64`` array (position and history, :func:`gamelib.minishogi.core.
new_state`); moves, make/unmake, the incremental Zobrist key ``s[HASH]``, the captures that
quiescence searches and the check flag are the core's own functions. The wrappers below only
fix an argument or translate a code:

* ``outcome``: the core's ``game_result`` without a ply cap (a side without legal moves loses,
  then the repetition rule), its ``RESULT_*`` code turned into the side to move's view;
* ``hash_from_scratch``: the key that :func:`gamelib.minishogi.core.new_state` computes for a
  fresh state of the same board, hands and side to move;
* ``live_length``: the position's entries and the history up to the current ply
  (``HIST + 4·PLY + 3``: its hash, check flag and move slot).

The evaluation is θ·φ(s) with the 15,773 features of :mod:`gamelib.evaluation.shogi`
(``evaluate`` and ``features`` are that module's). Perft counts move sequences only (a position
without moves is no leaf before the last ply), as the published minishogi numbers do.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gamelib.evaluation import shogi as _ev
from gamelib.minishogi import core as _core
from gamelib.minishogi.position import Position
from gamelib.runtime.kernels import kernel
from .protocol import DRAW, LOSS, ONGOING, WIN

__all__ = ["start", "MAX_MOVES", "N_FEATURES", "MAX_ACTIVE", "PASS", "PERFT_END_LEAF",
           "gen_moves", "count_moves", "gen_noisy", "make_move", "unmake_move", "outcome",
           "in_check", "side_to_move", "game_ply", "hash_key", "hash_from_scratch",
           "live_length", "evaluate", "features"]

MAX_MOVES = _core.MAX_MOVES
N_FEATURES = _ev.N_FEATURES
MAX_ACTIVE = _ev.MAX_ACTIVE
PASS = -1
PERFT_END_LEAF = 0

count_moves = _core.count_legal_moves
gen_noisy = _core.gen_captures
make_move = _core.make_move
unmake_move = _core.unmake_move
in_check = _core.in_check
evaluate = _ev.evaluate
features = _ev.features

_STM = _core.STM
_PLY = _core.PLY
_HASH = _core.HASH
_MOVE_NUMBER = _core.MOVE_NUMBER
_HIST = _core.HIST
_HIST_STRIDE = _core.HIST_STRIDE
_HAND = _core.HAND


def start(capacity: int = _core.DEFAULT_CAPACITY) -> np.ndarray:
    """The start position's state with room for ``capacity`` plies of history."""
    s = Position().state
    return _core.new_state(s[:25], s[_HAND:_HAND + 10], int(s[_STM]), capacity=capacity)


@kernel(inline="always")
def gen_moves(s, buf, start):
    """All legal moves (:func:`gamelib.minishogi.core.gen_moves` without ``captures_only``)."""
    return _core.gen_moves(s, buf, start, False)


@kernel
def outcome(s, buf, start):
    """``game_result`` without a ply cap, from the side to move's view (see the module doc)."""
    r = _core.game_result(s, buf, start, 0)
    if r == _core.RESULT_NONE:
        return ONGOING
    if r == _core.RESULT_DRAW:
        return DRAW
    winner = 0 if r == _core.RESULT_SENTE_WINS else 1
    return WIN if winner == s[_STM] else LOSS


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

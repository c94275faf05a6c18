"""Self-play episodes for the PGLeaf experiment, and its two reward settings (paper, sec. 5.1).

Rewards
-------
*MDP*: at the end of the game the winner gets +1, the loser −1, both 0 for a draw.

*Non-MDP*: the winner gets ``+1 + bonus``, the loser ``−1 + bonus``, both 0 for a draw, where a
side's *enclosure bonus* ("囲いの駒のボーナス") is +0.1 for each of its golds and silvers that

1. stood on the board in the game's first position and was never captured (so it was on the
   board throughout: a piece that is captured and dropped back by its owner has left it), and
2. at the end of the game is a gold or an (unpromoted) silver -- a promoted silver (成銀) is no
   longer a 銀将 -- on one of the 8 squares around its own king.

Each side's bonus is added to that side's reward whether it won or lost. The bonus depends on
the whole history of the game, not only on its last position: the reward is not Markov in the
position, which is the point of the paper's non-MDP setting. :func:`enclosure_bonus` computes it
from a :mod:`gamelib.minishogi.core` state, whose history holds the game's moves.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gamelib.minishogi import core
from gamelib.minishogi import rules as R
from gamelib.minishogi.notation import parse_sfen, usi_to_move

__all__ = ["REWARDS", "ENCLOSURE_BONUS", "enclosure_bonus", "enclosure_bonus_usi",
           "game_rewards"]

#: The reward settings.
REWARDS = ("mdp", "non_mdp")
#: The bonus per enclosing gold or silver (the paper: 0.1).
ENCLOSURE_BONUS = 0.1

_MAX_TRACKED = 16


@njit(cache=True)
def enclosure_counts(s, out):
    """``out[side]`` = the number of ``side``'s enclosing golds and silvers (see the module
    docstring) at the end of the game held in state ``s`` (``s`` is not modified).

    The game's first position is recovered by taking back every move of the history; the
    golds and silvers standing on the board there are then followed move by move.
    """
    t = s.copy()
    n = t[core.PLY]
    moves = np.empty(n, dtype=np.int64)
    for p in range(n):
        moves[p] = t[core.HIST + core.HIST_STRIDE * p + 2]
    for p in range(n):
        core.unmake_move(t)
    sq = np.full(_MAX_TRACKED, -1, dtype=np.int64)
    owner = np.zeros(_MAX_TRACKED, dtype=np.int64)
    k = 0
    for x in range(25):
        pc = t[x]
        typ = pc & 15
        if pc != 0 and (typ == R.GOLD or typ == R.SILVER) and k < _MAX_TRACKED:
            sq[k] = x
            owner[k] = pc >> 4
            k += 1
    for p in range(n):
        m = moves[p]
        side = t[core.STM]
        to = m & 31
        frm = (m >> 5) & 31
        if frm <= core.DROP_BASE:
            for i in range(k):
                if sq[i] == to and owner[i] != side:
                    sq[i] = -1  # captured: it has left the board
            for i in range(k):
                if sq[i] == frm and owner[i] == side:
                    sq[i] = to
        core.make_move(t, m)
    out[0] = 0
    out[1] = 0
    for i in range(k):
        x = sq[i]
        if x < 0:
            continue
        pc = t[x]
        typ = pc & 15
        if (pc >> 4) != owner[i] or not (typ == R.GOLD or typ == R.SILVER):
            continue
        ksq = t[core.KING_SQ + owner[i]]
        dr = abs(x // 5 - ksq // 5)
        dc = abs(x % 5 - ksq % 5)
        if max(dr, dc) == 1:
            out[owner[i]] += 1


@njit(cache=True)
def rewards_into(s, result, non_mdp, bonus, out):
    """``out[side]`` = the final reward of ``side`` for game result ``result``
    (``core.RESULT_*``) of the game in state ``s``; ``non_mdp`` adds ``bonus`` per enclosing
    gold/silver to both decisive rewards."""
    if result == core.RESULT_SENTE_WINS:
        out[0] = 1.0
        out[1] = -1.0
    elif result == core.RESULT_GOTE_WINS:
        out[0] = -1.0
        out[1] = 1.0
    else:
        out[0] = 0.0
        out[1] = 0.0
        return
    if non_mdp:
        cnt = np.zeros(2, dtype=np.int64)
        enclosure_counts(s, cnt)
        out[0] += bonus * cnt[0]
        out[1] += bonus * cnt[1]


def _state_from_usi(sfen: str, usi_moves) -> np.ndarray:
    board, hands, side, move_number = parse_sfen(sfen)
    moves = list(usi_moves)
    s = core.new_state(board, hands, side, move_number, capacity=len(moves) + 8)
    buf = np.empty(core.MAX_MOVES, dtype=np.int32)
    for i, usi in enumerate(moves):
        try:
            m = usi_to_move(s, usi, buf)
        except ValueError as err:
            raise ValueError(f"move {i + 1} of the game: {err}") from None
        core.make_move(s, m)
    return s


def enclosure_bonus(s, bonus: float = ENCLOSURE_BONUS) -> tuple[float, float]:
    """(sente's, gote's) enclosure bonus at the end of the game in state ``s``."""
    cnt = np.zeros(2, dtype=np.int64)
    enclosure_counts(np.asarray(s, dtype=np.int64), cnt)
    return bonus * float(cnt[0]), bonus * float(cnt[1])


def enclosure_bonus_usi(sfen: str, usi_moves, bonus: float = ENCLOSURE_BONUS) -> tuple[float, float]:
    """(sente's, gote's) enclosure bonus of the game played from ``sfen`` with ``usi_moves``.

    ``ValueError`` names a malformed SFEN or the first illegal move.
    """
    return enclosure_bonus(_state_from_usi(sfen, usi_moves), bonus)


def game_rewards(s, result: int, reward: str = "mdp",
                 bonus: float = ENCLOSURE_BONUS) -> tuple[float, float]:
    """(sente's, gote's) final rewards of the finished game in state ``s``.

    Parameters
    ----------
    s : int64 array
        The :mod:`~gamelib.minishogi.core` state at the end of the game (with its history).
    result : int
        ``core.RESULT_SENTE_WINS``, ``RESULT_GOTE_WINS`` or ``RESULT_DRAW``.
    reward : {"mdp", "non_mdp"}
    bonus : float
        Enclosure bonus per piece (non-MDP; the paper: 0.1).
    """
    if reward not in REWARDS:
        raise ValueError(f"unknown reward setting {reward!r}; valid: {', '.join(REWARDS)}")
    if result not in (core.RESULT_SENTE_WINS, core.RESULT_GOTE_WINS, core.RESULT_DRAW):
        raise ValueError(f"result must be a finished game's core.RESULT_* code (1, 2 or 3), got "
                         f"{result!r}")
    out = np.zeros(2)
    rewards_into(np.asarray(s, dtype=np.int64), int(result), reward == "non_mdp", float(bonus), out)
    return float(out[0]), float(out[1])

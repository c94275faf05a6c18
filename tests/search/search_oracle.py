"""Slow, plain-Python oracles for the search tests: minimax without pruning, brute-force
quiescence, a forced-mate solver and the in-search repetition rule written out directly.

They call only the rules engine (``gamelib.games.minishogi.core``) and the evaluation, never the
search, and they follow the search's definitions (module docstring of ``gamelib.search.core``)
literally, without windows, tables or move ordering.
"""

from __future__ import annotations

import numpy as np

from gamelib.games.minishogi import features as ev
from gamelib.games.minishogi import core as mc
from gamelib.games.minishogi import rules as R
from gamelib.search import core as sc

MATE = sc.MATE


def moves_of(s, captures_only=False):
    buf = np.empty(mc.MAX_MOVES, dtype=np.int32)
    n = mc.gen_moves(s, buf, 0, captures_only)
    return [int(m) for m in buf[:n]]


def static(s, theta, kind, noise_std=0.0, seed=0):
    v = ev.evaluate_kind(s, theta, kind)
    if noise_std > 0:
        v += noise_std * sc.gauss_noise(int(s[mc.HASH]), sc.mix_seed(seed))
    return v


def in_check(s):
    return bool(s[mc.HIST + mc.HIST_STRIDE * int(s[mc.PLY]) + 1])


def cycle_verdict(s, root_ply):
    """The repetition rule with in-search cycles, written from its definition."""
    p = int(s[mc.PLY])
    hashes = [int(s[mc.HIST + mc.HIST_STRIDE * q]) for q in range(p + 1)]
    checks = [bool(s[mc.HIST + mc.HIST_STRIDE * q + 1]) for q in range(p + 1)]
    occ = [q for q in range(p - 4, -1, -2) if hashes[q] == hashes[p]]  # most recent first
    if not occ:
        return mc.RESULT_NONE
    if occ[0] >= root_ply:
        first = occ[0]
    elif len(occ) + 1 >= R.REPETITION_COUNT:
        first = occ[R.REPETITION_COUNT - 2]
    else:
        return mc.RESULT_NONE
    them = all(checks[k] for k in range(first, p + 1, 2))  # the side that just moved checked
    us = all(checks[k] for k in range(first + 1, p, 2))
    stm = int(s[mc.STM])
    if R.PERPETUAL_CHECK_LOSES and (them or us):
        if them and us:
            return mc.RESULT_DRAW
        loser = 1 - stm if them else stm
    else:
        loser = R.REPETITION_LOSER
    return mc.RESULT_GOTE_WINS if loser == 0 else mc.RESULT_SENTE_WINS


def result_score(result, stm, ply):
    if result == mc.RESULT_DRAW:
        return 0.0
    winner = 0 if result == mc.RESULT_SENTE_WINS else 1
    return MATE - ply if winner == stm else -(MATE - ply)


def qsearch(s, theta, kind, ply, qleft, noise_std=0.0, seed=0):
    """Brute-force quiescence: (value, line) with no pruning."""
    if in_check(s):
        moves = moves_of(s)
        if not moves:
            return -(MATE - ply), []
        if qleft == 0:
            return static(s, theta, kind, noise_std, seed), []
        best, line = None, None
    else:
        best, line = static(s, theta, kind, noise_std, seed), []
        if qleft == 0:
            return best, line
        moves = moves_of(s, True)
    for m in moves:
        mc.make_move(s, m)
        v, sub = qsearch(s, theta, kind, ply + 1, qleft - 1, noise_std, seed)
        mc.unmake_move(s)
        if best is None or -v > best:
            best, line = -v, [m] + sub
    return best, line


def minimax(s, theta, kind, depth, qdepth, ply, root_ply, max_plies=0, noise_std=0.0, seed=0):
    """Plain negamax value of a non-root node (``ply >= 1``) by the search's definitions."""
    r = cycle_verdict(s, root_ply)
    if r != mc.RESULT_NONE:
        return result_score(r, int(s[mc.STM]), ply)
    if max_plies and int(s[mc.MOVE_NUMBER]) - 1 + int(s[mc.PLY]) >= max_plies:
        return 0.0 if moves_of(s) else -(MATE - ply)
    if depth <= 0:
        return qsearch(s, theta, kind, ply, qdepth, noise_std, seed)[0]
    moves = moves_of(s)
    if not moves:
        return -(MATE - ply)
    best = None
    for m in moves:
        mc.make_move(s, m)
        v = -minimax(s, theta, kind, depth - 1, qdepth, ply + 1, root_ply, max_plies, noise_std, seed)
        mc.unmake_move(s)
        best = v if best is None else max(best, v)
    return best


def root_values(s, theta, kind, depth, qdepth, max_plies=0, noise_std=0.0, seed=0):
    """{move: minimax value of the move (root side's view)} with ``depth`` plies incl. the move."""
    root_ply = int(s[mc.PLY])
    out = {}
    for m in moves_of(s):
        mc.make_move(s, m)
        out[m] = -minimax(s, theta, kind, depth - 1, qdepth, 1, root_ply, max_plies, noise_std, seed)
        mc.unmake_move(s)
    return out


def forced_win(s, plies):
    """True if the side to move can force the opponent out of legal moves within ``plies`` (odd)."""
    for m in moves_of(s):
        mc.make_move(s, m)
        replies = moves_of(s)
        if not replies:
            ok = True
        elif plies >= 3:
            ok = True
            for r in replies:
                mc.make_move(s, r)
                ok = forced_win(s, plies - 2)
                mc.unmake_move(s)
                if not ok:
                    break
        else:
            ok = False
        mc.unmake_move(s)
        if ok:
            return True
    return False

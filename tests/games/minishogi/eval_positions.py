"""Helpers of the evaluation tests: positions from seeded random playouts, and the mirror image
of a position built from its SFEN text alone (independently of the engine's state array)."""

from __future__ import annotations

import random

import numpy as np

import gamelib.games.minishogi as ms
from gamelib.games.minishogi import core


def _sfen_squares(board: str) -> list[str]:
    """The 25 squares of an SFEN board field ('' for empty, 'P', '+b', ...)."""
    out = []
    for rank in board.split("/"):
        i = 0
        while i < len(rank):
            ch = rank[i]
            if ch.isdigit():
                out.extend([""] * int(ch))
            elif ch == "+":
                out.append(rank[i:i + 2])
                i += 1
            else:
                out.append(ch)
            i += 1
    assert len(out) == 25
    return out


def _sfen_board(squares: list[str]) -> str:
    ranks = []
    for r in range(5):
        text, empty = "", 0
        for sq in squares[5 * r:5 * r + 5]:
            if not sq:
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            text += sq
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks)


def mirror_sfen(sfen: str, keep_turn: bool = True) -> str:
    """ŝ as SFEN text: colours swapped (letter case), board rotated by 180°, hands swapped; the
    same colour to move (``keep_turn``) or the other one."""
    board, side, hand, number = sfen.split()
    squares = [sq.swapcase() for sq in reversed(_sfen_squares(board))]
    side = side if keep_turn else {"b": "w", "w": "b"}[side]
    return f"{_sfen_board(squares)} {side} {hand.swapcase()} {number}"


def mirror_state(sfen: str) -> np.ndarray:
    """State of ŝ (same colour to move). If the SFEN parser refuses ŝ because the side not to
    move would be in check (the side to move of ``sfen`` is in check), ŝ is parsed with the other
    colour to move and the turn is set afterwards (the features never read the check flags)."""
    try:
        return ms.Position(mirror_sfen(sfen)).state.copy()
    except ValueError as err:
        assert "is in check" in str(err)
        state = ms.Position(mirror_sfen(sfen, keep_turn=False)).state.copy()
        state[core.STM] = 1 - state[core.STM]
        return state


def random_positions(n: int, seed: int) -> list[str]:
    """SFENs of ``n`` positions sampled from uniformly random games (all plies, varied lengths)."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        pos = ms.Position(max_plies=None)
        for _ in range(rng.randrange(0, 120)):
            legal = pos.legal_moves
            if not legal or pos.is_repetition():
                break
            pos.push_usi(rng.choice(legal))
        out.append(pos.sfen())
    return out

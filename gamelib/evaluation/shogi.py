"""Linear evaluation of 5×5 shogi positions (first version: the material block only).

The full feature set lands next; the signatures below are the contract with the search.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gamelib.minishogi import core

HAND = core.HAND
STM = core.STM

#: Material block: 9 board types (P S G B R +P +S +B +R) then 5 hand types (P S G B R).
MATERIAL_OFFSET = 0
MATERIAL_SIZE = 14
N_FEATURES = 7886
MAX_ACTIVE = 256

EVAL_MATERIAL = 0
EVAL_LINEAR = 1

# board piece type (0..10) -> material feature (-1: empty or king)
_MAT_BOARD = np.array([-1, 0, 1, 2, 3, 4, -1, 5, 6, 7, 8], dtype=np.int64)


@njit(cache=True)
def _material_counts(s, out):
    """out[k] = (count of the side to move) - (count of the opponent) for material feature k."""
    stm = s[STM]
    for k in range(MATERIAL_SIZE):
        out[k] = 0
    for sq in range(25):
        pc = s[sq]
        if pc == 0:
            continue
        f = _MAT_BOARD[pc & 15]
        if f < 0:
            continue
        if (pc >> 4) == stm:
            out[f] += 1
        else:
            out[f] -= 1
    for t in range(5):
        out[9 + t] += s[HAND + 5 * stm + t] - s[HAND + 5 * (1 - stm) + t]


@njit(cache=True)
def evaluate_material(s, theta):
    """Material part of θ·φ(s), from the side to move's point of view."""
    stm = s[STM]
    v = 0.0
    for sq in range(25):
        pc = s[sq]
        if pc == 0:
            continue
        f = _MAT_BOARD[pc & 15]
        if f < 0:
            continue
        if (pc >> 4) == stm:
            v += theta[MATERIAL_OFFSET + f]
        else:
            v -= theta[MATERIAL_OFFSET + f]
    for t in range(5):
        v += (s[HAND + 5 * stm + t] - s[HAND + 5 * (1 - stm) + t]) * theta[MATERIAL_OFFSET + 9 + t]
    return v


@njit(cache=True)
def features(s, idx, val):
    """Write the sparse φ(s) into ``idx``/``val`` and return the number of entries."""
    counts = np.empty(MATERIAL_SIZE, dtype=np.int64)
    _material_counts(s, counts)
    n = 0
    for k in range(MATERIAL_SIZE):
        if counts[k] != 0:
            idx[n] = MATERIAL_OFFSET + k
            val[n] = counts[k]
            n += 1
    return n


@njit(cache=True)
def evaluate(s, theta):
    """θ·φ(s) from the side to move's point of view."""
    return evaluate_material(s, theta)


@njit(cache=True)
def evaluate_kind(s, theta, kind):
    """``evaluate_material`` if ``kind == EVAL_MATERIAL`` else ``evaluate``."""
    if kind == EVAL_MATERIAL:
        return evaluate_material(s, theta)
    return evaluate(s, theta)


PIECE_VALUES = {"P": 0.02, "S": 0.08, "G": 0.10, "B": 0.16, "R": 0.20, "+P": 0.10, "+S": 0.10, "+B": 0.26, "+R": 0.30}


def initial_theta(seed: int = 0, scale: float = 1e-4) -> np.ndarray:
    """Table-1 piece values, every other weight small seeded Gaussian noise."""
    theta = np.random.default_rng(seed).normal(0.0, scale, N_FEATURES)
    board = ["P", "S", "G", "B", "R", "+P", "+S", "+B", "+R"]
    for k, name in enumerate(board):
        theta[MATERIAL_OFFSET + k] = PIECE_VALUES[name]
    for k, name in enumerate(["P", "S", "G", "B", "R"]):
        theta[MATERIAL_OFFSET + 9 + k] = PIECE_VALUES[name]
    return theta

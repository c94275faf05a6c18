"""Evaluation noise drawn from the position, not from the order of a search.

``z(h, key)`` is a standard normal number determined by a position key ``h`` and a stream key:
Box-Muller on two 53-bit uniforms from SplitMix64 of ``h xor key``,

.. math::  z = \\sqrt{-2 \\ln u_1}\\,\\cos(2\\pi u_2),

with the logarithm and cosine of :mod:`gamelib.exactmath` (the same bits on every CPU). Every
occurrence of a position in one search gets the same noise, so the noisy evaluation is a
consistent function that a transposition table, re-searches and deeper iterations agree on.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gamelib import exactmath as xm
from gamelib.runtime.kernels import kernel

__all__ = ["mix_seed", "gauss_noise"]


@njit(cache=True, inline="always")
def _splitmix64(x):
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def mix_seed(seed):
    """The 64-bit stream key of a seed (any int64)."""
    return np.int64(_splitmix64(np.uint64(seed) ^ np.uint64(0x5DEECE66D)))


@kernel
def gauss_noise(h, key):
    """A standard normal number determined by a position key ``h`` and a stream ``key``
    (see the module doc)."""
    a = _splitmix64(np.uint64(h) ^ np.uint64(key))
    b = _splitmix64(a)
    u1 = (np.float64(a >> np.uint64(11)) + 1.0) * (1.0 / 9007199254740992.0)  # (0, 1]
    u2 = np.float64(b >> np.uint64(11)) * (1.0 / 9007199254740992.0)  # [0, 1)
    return np.sqrt(-2.0 * xm.log(u1)) * xm.cos_2pi(u2)

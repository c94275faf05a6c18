"""Elementary functions that give the same bits on every CPU, for numba code.

Numba lowers ``math.exp``/``np.exp``, ``np.tanh`` and friends to the C library, and glibc picks
an implementation of ``exp``, ``log``, ``pow``, ``expm1``, ``sin``, ... at load time by CPU
(FMA or not); numpy's own array versions of ``exp`` and ``log`` have separate AVX2 and AVX-512
code paths. They are all accurate to about one unit in the last place, but not identical, and a
learner that feeds its outputs back into its parameters turns a last-bit difference into a
different result. The functions here use only ``+ - * /``, ``floor`` and ``ldexp`` (each exact
or correctly rounded by IEEE 754, so the same on every machine); numba compiles them without
fastmath, so LLVM neither reorders their operations nor fuses a multiply and an add.
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["exp_nonpositive", "sigmoid"]

_LN2_HI = 6.93147180369123816490e-01  # ln 2 rounded to 32 significant bits: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10  # ln 2 - _LN2_HI
_INV_LN2 = 1.44269504088896338700e+00
#: 1/n! for n = 13, 12, ..., 0 (the Taylor coefficients of exp, highest first).
_TAYLOR = tuple(1.0 / math.factorial(n) for n in range(13, -1, -1))
_UNDERFLOW = -745.2  # exp(x) < 2**-1075 below: rounds to 0


@njit(cache=True)
def exp_nonpositive(x: float) -> float:
    """:math:`e^x` for ``x <= 0`` (float64), within about 1 ulp, the same bits on every CPU.

    ``x = k ln 2 + r`` with ``k`` the nearest integer to ``x / ln 2`` and ``|r| <= ln 2 / 2``
    (Cody-Waite: ``ln 2`` in two parts, so ``r`` carries no rounding error from the reduction);
    :math:`e^r` by its Taylor polynomial of degree 13 (truncation error below ``2e-18``),
    evaluated by Horner's rule; then the exact scaling by :math:`2^k`.
    """
    if x < _UNDERFLOW:
        return 0.0
    k = math.floor(x * _INV_LN2 + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = 0.0
    for c in _TAYLOR:
        p = p * r + c
    return math.ldexp(p, int(k))


@njit(cache=True)
def sigmoid(z: float) -> float:
    """:math:`1 / (1 + e^{-z})` in float64, overflow-free, the same bits on every CPU."""
    if z >= 0.0:
        return 1.0 / (1.0 + exp_nonpositive(-z))
    e = exp_nonpositive(z)
    return e / (1.0 + e)

"""Elementary functions that give the same bits on every CPU, for numba code and arrays.

Numba lowers ``math.exp``/``np.exp``, ``np.tanh`` and friends to the C library, and glibc picks
an implementation of ``exp``, ``log``, ``pow``, ``expm1``, ``sin``, ... at load time by CPU
(FMA or not); numpy's own array versions of ``exp`` and ``log`` have separate AVX2 and AVX-512
code paths. They are all accurate to about one unit in the last place, but not identical, and a
learner that feeds its outputs back into its parameters turns a last-bit difference into a
different result. The functions here use only ``+ - * /``, ``floor`` and ``ldexp`` (each exact
or correctly rounded by IEEE 754, so the same on every machine); numba compiles them without
fastmath, so LLVM neither reorders their operations nor fuses a multiply and an add.

Every learner, the search's evaluation noise and the softmax players use them (``exp``, ``log``,
``tanh``, ``sigmoid``, ``softplus``, ``cos_2pi``); the ``*_array`` forms apply them to numpy
arrays. They are accurate to a few units in the last place (the tests measure it against the C
library); what they buy is that a run gives the same bits on every x86-64 machine, with or
without FMA or AVX-512 (``tests/test_cpu_kernels.py`` forces the other code paths of glibc and
numpy and compares).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gamelib.runtime.kernels import kernel

__all__ = ["exp", "exp_nonpositive", "expm1", "log", "log1p", "tanh", "sigmoid", "softplus",
           "cos_2pi", "softmax_into", "exp_array", "log_array", "tanh_array", "sigmoid_array", "softplus_array"]

_LN2_HI = 6.93147180369123816490e-01  # ln 2 rounded to 32 significant bits: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10  # ln 2 - _LN2_HI
_INV_LN2 = 1.44269504088896338700e+00
#: 1/n! for n = 13, 12, ..., 0 (the Taylor coefficients of exp, highest first).
_TAYLOR = tuple(1.0 / math.factorial(n) for n in range(13, -1, -1))
_UNDERFLOW = -745.2  # exp(x) < 2**-1075 below: rounds to 0
_OVERFLOW = 709.782712893384  # exp(x) > the largest float64 above
#: 1/n! for n = 16, ..., 1 (expm1 near 0 without the constant term, highest first).
_EXPM1 = tuple(1.0 / math.factorial(n) for n in range(16, 0, -1))
_SQRT_HALF = 0.70710678118654752440
#: (-1)^n (2π)^(2n) / (2n)! and (-1)^n (2π)^(2n+1) / (2n+1)!, n = 11..0 (cos and sin of 2π t).
_COS_2PI = tuple((-1) ** n * (2 * math.pi) ** (2 * n) / math.factorial(2 * n) for n in range(11, -1, -1))
_SIN_2PI = tuple((-1) ** n * (2 * math.pi) ** (2 * n + 1) / math.factorial(2 * n + 1) for n in range(11, -1, -1))


@njit(cache=True, inline="always")
def _exp_reduced(x: float) -> float:
    """:math:`e^x` for x in the float64 range: ``x = k ln 2 + r`` with ``k`` the nearest integer to
    ``x / ln 2`` and ``|r| <= ln 2 / 2`` (Cody-Waite: ``ln 2`` in two parts, so ``r`` carries no
    rounding error from the reduction); :math:`e^r` by its Taylor polynomial of degree 13
    (truncation error below ``2e-18``), evaluated by Horner's rule; then the exact scaling by
    :math:`2^k`."""
    k = math.floor(x * _INV_LN2 + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = 0.0
    for c in _TAYLOR:
        p = p * r + c
    return math.ldexp(p, int(k))


@njit(cache=True)
def exp_nonpositive(x: float) -> float:
    """:math:`e^x` for ``x <= 0`` (float64), within about 1 ulp, the same bits on every CPU
    (:func:`_exp_reduced`; 0 below -745.2)."""
    if x < _UNDERFLOW:
        return 0.0
    return _exp_reduced(x)


@njit(cache=True)
def exp(x: float) -> float:
    """:math:`e^x` (float64) for every x, within about 1 ulp, the same bits on every CPU
    (:func:`_exp_reduced`; 0 below -745.2, ``inf`` above ~709.78, NaN stays NaN)."""
    if x != x:
        return x
    if x > _OVERFLOW:
        return math.inf
    if x < _UNDERFLOW:
        return 0.0
    return _exp_reduced(x)


@njit(cache=True)
def expm1(x: float) -> float:
    """:math:`e^x - 1`, accurate near 0 (its Taylor series for :math:`|x| < 0.35`, else ``exp(x) - 1``),
    the same bits on every CPU."""
    if x != x:
        return x
    if abs(x) >= 0.35:
        return exp(x) - 1.0
    p = 0.0
    for c in _EXPM1:
        p = p * x + c
    return p * x


@njit(cache=True)
def _log_core(m: float) -> float:
    """log(m) for m in [√½, √2): ``2 atanh(s)``, ``s = (m - 1)/(m + 1)``, |s| < 0.172, by its
    odd series to the power 27 (truncation below 1e-19 relative)."""
    f = m - 1.0                      # exact (Sterbenz)
    s = f / (2.0 + f)
    z = s * s
    p = 0.0
    for n in range(13, 0, -1):        # 1/(2n+1), n = 13..1
        p = p * z + 1.0 / (2 * n + 1)
    return 2.0 * s + 2.0 * s * (z * p)


@njit(cache=True)
def log(x: float) -> float:
    """Natural logarithm (float64) within about 1 ulp, the same bits on every CPU: ``x = m 2^e``
    with m in [√½, √2) (exact), ``log x = e ln 2 + log m`` (``ln 2`` in two parts).
    ``log(0) = -inf``; negative x or NaN give NaN."""
    if x != x or x < 0.0:
        return math.nan
    if x == 0.0:
        return -math.inf
    if x == math.inf:
        return x
    m, e = math.frexp(x)              # x = m 2^e, m in [0.5, 1)
    if m < _SQRT_HALF:
        m *= 2.0
        e -= 1
    return e * _LN2_HI + (e * _LN2_LO + _log_core(m))


@njit(cache=True)
def log1p(x: float) -> float:
    r""":math:`\log(1 + x)`, accurate near 0, the same bits on every CPU (x < -1: NaN)."""
    if x != x or x < -1.0:
        return math.nan
    if abs(x) < 0.25:
        s = x / (2.0 + x)
        z = s * s
        p = 0.0
        for n in range(13, 0, -1):
            p = p * z + 1.0 / (2 * n + 1)
        return 2.0 * s + 2.0 * s * (z * p)
    u = 1.0 + x
    return log(u) - ((u - 1.0) - x) / u   # first-order correction of the rounding of 1 + x


@njit(cache=True)
def tanh(x: float) -> float:
    r""":math:`\tanh x = \operatorname{expm1}(2x) / (\operatorname{expm1}(2x) + 2)`, odd, ±1
    beyond :math:`|x| = 22`, the same bits on every CPU."""
    if x != x:
        return x
    a = abs(x)
    if a > 22.0:
        t = 1.0
    else:
        e = expm1(2.0 * a)
        t = e / (e + 2.0)
    return t if x >= 0.0 else -t


@njit(cache=True)
def sigmoid(z: float) -> float:
    """:math:`1 / (1 + e^{-z})` in float64, overflow-free, the same bits on every CPU."""
    if z >= 0.0:
        return 1.0 / (1.0 + exp_nonpositive(-z))
    e = exp_nonpositive(z)
    return e / (1.0 + e)


@njit(cache=True)
def softplus(x: float) -> float:
    r""":math:`\log(1 + e^x)` without overflow, the same bits on every CPU (= numpy's
    ``logaddexp(0, x)``)."""
    if x != x:
        return x
    if x > 0.0:
        return x + log1p(exp_nonpositive(-x))
    return log1p(exp_nonpositive(x))


@njit(cache=True)
def cos_2pi(u: float) -> float:
    r""":math:`\cos 2\pi u` for u in [0, 1), the same bits on every CPU: reflected exactly to
    t in [0, 1/8] (``cos`` or ``sin`` of 2πt by its Taylor series, :math:`|2\pi t| \le \pi/4`)."""
    t = u - math.floor(u)            # [0, 1)
    if t > 0.5:
        t = 1.0 - t                  # cos(2π(1 - t)) = cos 2πt; exact for t in (0.5, 1)
    sign = 1.0
    if t > 0.25:
        t = 0.5 - t                  # cos(2π(½ - t)) = -cos 2πt; exact
        sign = -1.0
    # t in [0, 1/4]: cos 2πt, or sin 2π(¼ - t) for t > 1/8
    if t <= 0.125:
        z = t * t
        p = 0.0
        for c in _COS_2PI:
            p = p * z + c
        return sign * p
    t = 0.25 - t
    z = t * t
    p = 0.0
    for c in _SIN_2PI:
        p = p * z + c
    return sign * (p * t)


@kernel
def softmax_into(scores, n, temperature, out):
    """The softmax (the PGLeaf paper's Boltzmann policy, eq. 6):
    ``out[k] = exp(scores[k]/T) / Σ_j exp(scores[j]/T)`` for ``k < n``, by :func:`exp_nonpositive`.

    The largest score is subtracted first, so that mate scores (far beyond the material scale)
    neither overflow nor turn into NaN. Returns ``log Σ_j exp((scores[j] − max)/T)``.
    """
    top = scores[0]
    for k in range(1, n):
        if scores[k] > top:
            top = scores[k]
    z = 0.0
    for k in range(n):
        e = exp_nonpositive((scores[k] - top) / temperature)
        out[k] = e
        z += e
    for k in range(n):
        out[k] /= z
    return log(z)



def _elementwise(f, name):
    @njit(cache=True)
    def loop(x, out):
        for i in range(x.size):
            out[i] = f(x[i])

    def apply(x):
        a = np.asarray(x, dtype=np.float64)
        out = np.empty(a.size)
        loop(np.ascontiguousarray(a).reshape(-1), out)
        return out.reshape(a.shape)

    apply.__name__ = name
    apply.__doc__ = (f":func:`{f.__name__}` of every element of an array (a number: a 0-d array), the "
                     f"same bits on every CPU: numpy's own ``{f.__name__}`` has AVX2 and AVX-512 "
                     f"code paths that differ in the last bit.")
    return apply


exp_array = _elementwise(exp, "exp_array")
log_array = _elementwise(log, "log_array")
tanh_array = _elementwise(tanh, "tanh_array")
sigmoid_array = _elementwise(sigmoid, "sigmoid_array")
softplus_array = _elementwise(softplus, "softplus_array")

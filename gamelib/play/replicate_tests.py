"""Tests with the replicate -- one training run -- as the unit: Student's t-test on per-replicate
values in exact arithmetic, its power, and Holm's correction of a family of such tests.

*The test.* Each replicate gives one number x_k (a win rate ``w / (w + l)``, or a difference of
two): rational. H0: μ = μ0 is tested against μ > μ0 (``p_greater``) or μ < μ0 (``p_less``) by

.. math::

    t = \\frac{\\bar x - μ_0}{s / \\sqrt n}, \\qquad s^2 = \\frac{1}{n - 1} \\sum_k (x_k - \\bar x)^2,
    \\qquad p_{>} = P(T_ν \\ge t), \\; ν = n - 1 .

:math:`\\bar x`, :math:`s^2` and :math:`t^2` are computed as fractions, exactly. Student's
distribution with an integer ν has closed forms (Abramowitz & Stegun 26.7.3-4): with
:math:`\\cos^2 θ = ν / (ν + t^2)` and :math:`A = P(|T_ν| < |t|)`,

.. math::

    ν \\text{ even}: A = \\sin θ \\sum_{j=0}^{ν/2 - 1} c_j \\cos^{2j} θ, \\quad
    c_0 = 1, \\; c_j = c_{j-1} \\tfrac{2j - 1}{2j};
    \\qquad
    ν \\text{ odd}: A = \\tfrac{2}{π}\\Bigl(θ + \\sin θ \\cos θ \\sum_{j=0}^{(ν-3)/2} d_j
    \\cos^{2j} θ\\Bigr), \\quad d_0 = 1, \\; d_j = d_{j-1} \\tfrac{2j}{2j + 1},

and :math:`P(T_ν \\ge t) = (1 - A)/2` for t ≥ 0, :math:`(1 + A)/2` below. They are evaluated
in decimal arithmetic with :data:`DIGITS` significant digits (square roots, θ = atan and π by
series): a p-value is the same on every machine, and right to the last digit of a float even
near 1e-30, where ``1 - A`` cancels.

*Its power.* With true shift δ > 0 and between-replicate standard deviation σ, the one-sided
test at level a with n replicates rejects with probability

.. math::

    P(T'_{ν, λ} \\ge c) = \\int_0^\\infty Φ(λ - c\\,s)\\, f_S(s)\\, ds, \\qquad
    λ = δ \\sqrt n / σ, \\; c = t_{ν, 1-a}, \\; f_S(s) ∝ s^{ν - 1} e^{-ν s^2 / 2}

(the noncentral t; S = √(V/ν), V ~ χ²_ν), integrated by Simpson's rule on 20,000 intervals of
[0, 1 + 12/√ν] with Φ by Marsaglia's series and e^x, log x from :mod:`gamelib.exactmath`, so
the numbers are the same on every CPU; the critical value c inverts the exact tail by
bisection.

*A family of tests.* :func:`holm` decides several tests together with Holm's (1979) step-down
procedure, which keeps the family-wise error rate -- the chance of rejecting any true null
hypothesis of the family -- at most ``alpha`` whatever the dependence between the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Iterable

from numba import njit

from gamelib import exactmath

__all__ = ["DIGITS", "TTest", "t_test", "t_sf", "t_quantile", "t_power", "tost_power",
           "replicates_needed", "holm"]

#: Significant digits of the decimal arithmetic of :func:`t_sf`.
DIGITS = 60


def _atan_small(x: Decimal) -> Decimal:
    """atan x for 0 <= x <= 1: halve the angle (atan x = 2 atan(x / (1 + √(1 + x²)))) until
    x < 1e-4, then the Taylor series."""
    doublings = 0
    while x > Decimal("1e-4"):
        x = x / (1 + (1 + x * x).sqrt())
        doublings += 1
    total, term, k, x2 = Decimal(0), x, 0, x * x
    while term != 0:
        total += term / (2 * k + 1)
        term = -term * x2
        k += 1
        if abs(term) < Decimal(10) ** -(DIGITS + 5):
            break
    return total * (2 ** doublings)


@lru_cache(maxsize=1)
def _pi() -> Decimal:
    with localcontext() as ctx:
        ctx.prec = DIGITS + 10
        return 4 * _atan_small(Decimal(1))


def _t_sf_decimal(t_squared: Fraction, negative: bool, nu: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = DIGITS + 10
        cos2 = Decimal(nu) / (Decimal(nu) + Decimal(t_squared.numerator)
                              / Decimal(t_squared.denominator))
        sin = (1 - cos2).sqrt()
        series, coef, power = Decimal(0), Decimal(1), Decimal(1)
        if nu % 2 == 0:
            for j in range(nu // 2):
                if j:
                    coef = coef * (2 * j - 1) / (2 * j)
                    power *= cos2
                series += coef * power
            inside = sin * series
        else:
            cos = cos2.sqrt()
            theta = (_atan_small(sin / cos) if sin <= cos else
                     _pi() / 2 - _atan_small(cos / sin))
            for j in range((nu - 1) // 2):
                if j:
                    coef = coef * (2 * j) / (2 * j + 1)
                    power *= cos2
                series += coef * power
            inside = 2 / _pi() * (theta + sin * cos * series)
        return (1 + inside) / 2 if negative else (1 - inside) / 2


def t_sf(t_squared: Fraction, negative: bool, nu: int) -> float:
    """:math:`P(T_ν \\ge t)` for Student's t with ``nu`` degrees of freedom, t given exactly by
    its square and its sign (``negative``: t < 0); see the module docstring."""
    if nu < 1:
        raise ValueError(f"nu must be a positive integer, got {nu!r}")
    return float(_t_sf_decimal(Fraction(t_squared), negative, nu))


@dataclass(frozen=True)
class TTest:
    """A one-sample t-test of H0: μ = ``mu0`` over ``n`` replicate values.

    ``p_greater``/``p_less``: the one-sided p-values (NaN with fewer than two values; with all
    values equal, 0 or 1 by the side of ``mu0`` the values lie on, 1 on both sides when they
    equal it)."""

    n: int
    mean: Fraction
    variance: Fraction
    mu0: Fraction
    p_greater: float
    p_less: float

    @property
    def sd(self) -> float:
        """The sample standard deviation s (decimal square root of the exact variance)."""
        with localcontext() as ctx:
            ctx.prec = DIGITS
            return float((Decimal(self.variance.numerator) / Decimal(self.variance.denominator))
                         .sqrt())


def t_test(values: Iterable, mu0=0) -> TTest:
    """The t-test of the module docstring on ``values`` (ints, fractions, or floats taken
    exactly) against ``mu0``."""
    xs = [Fraction(v) for v in values]
    mu0 = Fraction(mu0)
    n = len(xs)
    if n == 0:
        return TTest(0, Fraction(0), Fraction(0), mu0, math.nan, math.nan)
    mean = sum(xs, Fraction(0)) / n
    if n < 2:
        return TTest(n, mean, Fraction(0), mu0, math.nan, math.nan)
    variance = sum(((x - mean) ** 2 for x in xs), Fraction(0)) / (n - 1)
    shift = mean - mu0
    if variance == 0:
        greater = 0.0 if shift > 0 else 1.0
        less = 0.0 if shift < 0 else 1.0
        return TTest(n, mean, variance, mu0, greater, less)
    t2 = shift * shift * n / variance
    return TTest(n, mean, variance, mu0, t_sf(t2, shift < 0, n - 1), t_sf(t2, shift > 0, n - 1))


@lru_cache(maxsize=None)
def t_quantile(level: float, nu: int) -> float:
    """The critical value c with :math:`P(T_ν \\ge c) = ` ``level`` (0 < level < 1/2), by
    bisection on the exact tail to a relative 1e-12."""
    if not 0.0 < level < 0.5:
        raise ValueError(f"level must be in (0, 0.5), got {level!r}")
    lo, hi = 0.0, 1.0
    while t_sf(Fraction(hi) ** 2, False, nu) > level:
        lo, hi = hi, 2 * hi
    while hi - lo > 1e-12 * hi:
        mid = (lo + hi) / 2
        if t_sf(Fraction(mid) ** 2, False, nu) > level:
            lo = mid
        else:
            hi = mid
    return hi


@njit(cache=True)
def _normal_cdf(x: float) -> float:
    """Φ(x) = 1/2 + φ(x) Σ_k x^(2k+1) / (1·3···(2k+1)) (Marsaglia); 0 or 1 beyond |x| = 9."""
    if x < -9.0:
        return 0.0
    if x > 9.0:
        return 1.0
    term, total, k = x, x, 0
    while True:
        k += 1
        term = term * x * x / (2 * k + 1)
        if total + term == total:
            break
        total += term
    return 0.5 + total * exactmath.exp(-0.5 * x * x) * 0.3989422804014327


@njit(cache=True)
def _noncentral_sf(lam: float, c: float, nu: int, intervals: int) -> float:
    """:math:`\\int Φ(λ - c s) f_S(s) ds` by Simpson's rule (module docstring), the density
    normalised by its own Simpson sum."""
    top = 1.0 + 12.0 / math.sqrt(nu)
    h = top / intervals
    mode = math.sqrt((nu - 1) / nu) if nu > 1 else 0.0
    log_mode = ((nu - 1) * exactmath.log(mode) if nu > 1 else 0.0) - 0.5 * nu * mode * mode
    num, den = 0.0, 0.0
    for i in range(intervals + 1):
        s = i * h
        if s == 0.0:
            density = 1.0 if nu == 1 else 0.0
            density = density * exactmath.exp(-log_mode)
        else:
            density = exactmath.exp((nu - 1) * exactmath.log(s) - 0.5 * nu * s * s - log_mode)
        w = 1.0 if i == 0 or i == intervals else (4.0 if i % 2 else 2.0)
        num += w * density * _normal_cdf(lam - c * s)
        den += w * density
    return num / den


def t_power(effect: float, sd: float, n: int, level: float) -> float:
    """The power of the one-sided t-test at ``level`` with ``n`` replicates when the true mean
    lies ``effect`` > 0 beyond μ0 and the replicates scatter with standard deviation ``sd``
    (module docstring)."""
    if n < 2:
        raise ValueError(f"a t-test needs at least 2 replicates, got {n}")
    if effect <= 0 or sd <= 0:
        raise ValueError(f"effect and sd must be positive, got {effect!r}, {sd!r}")
    return float(_noncentral_sf(effect * math.sqrt(n) / sd, t_quantile(level, n - 1), n - 1,
                                20_000))


def tost_power(difference: float, margin: float, sd: float, n: int, level: float) -> float:
    """A lower bound of the power of the equivalence test (two one-sided t-tests at ``level``,
    H0: ``|μ| >= margin``) when the true mean is ``difference`` (``|difference| < margin``):
    P(both reject) >= P(one rejects) + P(other rejects) - 1."""
    if not abs(difference) < margin:
        raise ValueError(f"|difference| ({difference!r}) must be below the margin ({margin!r})")
    return max(0.0, t_power(margin - difference, sd, n, level)
               + t_power(margin + difference, sd, n, level) - 1.0)


def replicates_needed(power_at: Callable[[int], float], target: float = 0.8,
                      most: int = 1000) -> int | None:
    """The fewest replicates n (2 <= n <= ``most``) with ``power_at(n) >= target`` (power
    grows with n: bisection), or None when even ``most`` are too few."""
    if power_at(most) < target:
        return None
    lo, hi = 1, most          # power_at(lo) < target (or lo below 2), power_at(hi) >= target
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid >= 2 and power_at(mid) >= target:
            hi = mid
        else:
            lo = mid
    return hi


def holm(p_values, alpha: float) -> list[bool]:
    """Holm's (1979) step-down procedure: which of ``p_values`` are rejected at family-wise error
    rate ``alpha``. The m p-values are taken in increasing order and the k-th (from 1) is
    rejected while every one up to it is at most ``alpha / (m - k + 1)``; the first that is not
    stops the procedure. NaN p-values are never rejected and do not count in the family."""
    valid = [i for i, p in enumerate(p_values) if not math.isnan(p)]
    order = sorted(valid, key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] > alpha / (len(order) - rank):
            break
        rejected[i] = True
    return rejected

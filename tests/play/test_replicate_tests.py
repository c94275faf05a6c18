"""gamelib.play.replicate_tests against closed forms, hand computations and published power values."""

import math
from fractions import Fraction

import pytest

from gamelib.play.replicate_tests import (holm, replicates_needed, t_power, t_quantile, t_sf,
                                          t_test, tost_power)


@pytest.mark.parametrize("t", [0.0, 0.3, 1.0, 2.5, 12.706204736174698, 300.0])
def test_t_tail_matches_the_closed_forms_of_one_two_and_three_degrees_of_freedom(t):
    t2 = Fraction(t) ** 2
    # ν = 1 (Cauchy): 1/2 - atan(t)/π;  ν = 2: (1 - t/√(2 + t²))/2;
    # ν = 3: 1/2 - (atan(t/√3) + √3 t/(3 + t²))/π
    assert t_sf(t2, False, 1) == pytest.approx(0.5 - math.atan(t) / math.pi, rel=1e-13, abs=1e-16)
    assert t_sf(t2, False, 2) == pytest.approx(1 / (math.sqrt(2 + t * t) * (math.sqrt(2 + t * t) + t)),
                                               rel=1e-13)
    assert t_sf(t2, False, 3) == pytest.approx(
        0.5 - (math.atan(t / math.sqrt(3)) + math.sqrt(3) * t / (3 + t * t)) / math.pi,
        rel=1e-9, abs=1e-16)
    for nu in (1, 2, 3, 8, 9):
        assert t_sf(t2, True, nu) == pytest.approx(1 - t_sf(t2, False, nu), rel=1e-15)


@pytest.mark.parametrize("nu, quantile", [(4, 2.776445105197793), (10, 2.228138851986274),
                                          (30, 2.042272456301238)])
def test_t_tail_at_the_tables_97_5_percent_points(nu, quantile):
    """R's qt(0.975, nu)."""
    assert t_sf(Fraction(quantile) ** 2, False, nu) == pytest.approx(0.025, rel=1e-12, abs=0)
    assert t_quantile(0.025, nu) == pytest.approx(quantile, rel=1e-11)


def test_far_tail_keeps_its_relative_precision():
    # ν = 2, t = 1e6: p = 1/(√(2+t²)(√(2+t²)+t)) ≈ 5e-13, where 1 - A cancels 12 digits
    t = 10 ** 6
    assert t_sf(Fraction(t) ** 2, False, 2) == pytest.approx(
        1 / (math.sqrt(2 + t * t) * (math.sqrt(2 + t * t) + t)), rel=1e-12)


def test_t_test_by_hand():
    # 0.6, 0.7, 0.8 against 1/2: mean 0.7, s = 0.1, t = 0.2 / (0.1/√3) = 2√3, ν = 2:
    # p = 1/2 - t/(2√(2 + t²)) = 1/2 - √(3/14)
    test = t_test([Fraction(3, 5), Fraction(7, 10), Fraction(4, 5)], Fraction(1, 2))
    assert (test.n, test.mean, test.variance) == (3, Fraction(7, 10), Fraction(1, 100))
    assert test.sd == pytest.approx(0.1, rel=1e-15)
    assert test.p_greater == pytest.approx(0.5 - math.sqrt(3 / 14), rel=1e-13)
    assert test.p_less == pytest.approx(0.5 + math.sqrt(3 / 14), rel=1e-15)
    # differences against 0 (a paired test)
    paired = t_test([Fraction(1, 10), Fraction(-1, 20)], 0)
    t = 0.025 / (math.sqrt(0.01125) / math.sqrt(2))          # ν = 1: 1/2 - atan(t)/π
    assert paired.p_greater == pytest.approx(0.5 - math.atan(t) / math.pi, rel=1e-13)


def test_t_test_degenerate_samples():
    assert math.isnan(t_test([Fraction(1, 2)], 0).p_greater)            # one replicate
    assert math.isnan(t_test([], 0).p_less)
    same = t_test([0.6, 0.6, 0.6], 0.5)                                   # no spread
    assert (same.p_greater, same.p_less) == (0.0, 1.0)
    at_null = t_test([0.5, 0.5], 0.5)
    assert (at_null.p_greater, at_null.p_less) == (1.0, 1.0)


def test_power_matches_published_values():
    # one-sided one-sample t-test, α = 0.05, d = 0.5: 27 subjects give power 0.8118 (G*Power;
    # Cohen's tables), 26 do not reach 0.8
    assert t_power(0.5, 1.0, 27, 0.05) == pytest.approx(0.8118, abs=2e-4)
    assert t_power(0.5, 1.0, 26, 0.05) < 0.8
    assert replicates_needed(lambda n: t_power(0.5, 1.0, n, 0.05)) == 27
    # large n: the noncentral t is nearly normal, power ≈ Φ(δ√n/σ - z); δ = 0.1, n = 1000
    z = t_quantile(0.05, 999)
    approx = 0.5 * math.erfc(-(0.1 * math.sqrt(1000) - z) / math.sqrt(2))
    assert t_power(0.1, 1.0, 1000, 0.05) == pytest.approx(approx, abs=3e-3)
    # power grows with the effect and shrinks with the spread and a stricter level
    assert t_power(0.3, 0.1, 5, 0.001) > t_power(0.2, 0.1, 5, 0.001) > t_power(0.2, 0.2, 5, 0.001)
    assert t_power(0.2, 0.1, 5, 0.01) > t_power(0.2, 0.1, 5, 0.001)


def test_tost_power_bound_and_replicates_needed_edges():
    one = t_power(0.1 - 0.02, 0.05, 10, 0.01)
    other = t_power(0.1 + 0.02, 0.05, 10, 0.01)
    assert tost_power(0.02, 0.1, 0.05, 10, 0.01) == pytest.approx(one + other - 1)
    assert tost_power(0.02, 0.1, 0.05, 2, 0.01) == 0.0                  # bound below 0
    with pytest.raises(ValueError, match="margin"):
        tost_power(0.1, 0.1, 0.05, 10, 0.01)
    with pytest.raises(ValueError, match="at least 2"):
        t_power(0.1, 0.1, 1, 0.01)
    assert replicates_needed(lambda n: n / 100) == 80
    assert replicates_needed(lambda n: 1.0) == 2
    assert replicates_needed(lambda n: n / 100, most=50) is None


def test_holm_by_hand():
    # alpha 0.05, m = 4: thresholds 0.0125, 0.01667, 0.025, 0.05 in p order
    assert holm([0.01, 0.04, 0.03, 0.005], 0.05) == [True, False, False, True]  # 0.03 > .025
    assert holm([0.01, 0.04, 0.03, 0.02], 0.05) == [True, False, False, False]
    assert holm([0.013, 0.001], 0.05) == [True, True]          # 0.001 <= .025, 0.013 <= .05
    assert holm([0.03, 0.001], 0.05) == [True, True]
    assert holm([0.03, math.nan, 0.001], 0.05) == [True, False, True]   # NaN: not in the family
    assert holm([0.2, 0.3], 0.05) == [False, False]

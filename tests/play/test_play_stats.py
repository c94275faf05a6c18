"""gamelib.play.stats against brute-force oracles, closed forms and the paper's tables."""

import math
import re
from fractions import Fraction

import numpy as np
import pytest

from gamelib.play.stats import (ELO_PER_NAT, Record, binomial_test, bootstrap_ratings,
                                bradley_terry, clopper_pearson_interval, elo_difference,
                                expected_score, format_percent, round_robin_table, summarize,
                                wilson_interval)

Z95 = 1.959963984540054


# -- oracles ---------------------------------------------------------------------------------

def exact_pmf(n, p):
    """Binomial pmf as exact fractions."""
    p = Fraction(p)
    return [math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(n + 1)]


def brute_binomial_test(k, n, p, alternative):
    pmf = exact_pmf(n, p)
    if alternative == "greater":
        return float(sum(pmf[k:]))
    if alternative == "less":
        return float(sum(pmf[:k + 1]))
    limit = pmf[k] * Fraction(1 + 10 ** -7)
    return min(1.0, float(sum(f for f in pmf if f <= limit)))


def float_binom_sf(k, n, p):
    """P(X >= k) by summing the pmf in floating point (independent of the beta function)."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))


def bisect(f, target, increasing):
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if (f(mid) < target) == increasing:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# -- records ---------------------------------------------------------------------------------

def test_record_counts_and_rates():
    rec = Record.from_outcomes([1, 1, 0, -1, 1, 0, -1, -1, 1])
    assert (rec.wins, rec.draws, rec.losses) == (4, 2, 3)
    assert rec.games == 9 and rec.decisive == 7 and rec.points == 5.0
    assert rec.win_rate == pytest.approx(4 / 7) and rec.score == pytest.approx(5 / 9)
    assert rec.reversed() == Record(3, 2, 4)
    assert rec + rec.reversed() == Record(7, 4, 7)
    assert rec.rate("win_rate") == rec.win_rate and rec.rate("score") == rec.score
    assert math.isnan(Record(0, 5, 0).win_rate) and Record(0, 5, 0).score == 0.5
    assert Record(np.int64(3), 0, 1).wins == 3


@pytest.mark.parametrize("bad", [(-1, 0, 0), (1.5, 0, 0), (True, 0, 0), ("2", 0, 0)])
def test_record_rejects_bad_counts(bad):
    with pytest.raises(ValueError, match="non-negative integer"):
        Record(*bad)


def test_record_rejects_bad_outcomes():
    with pytest.raises(ValueError, match="game 2: outcome"):
        Record.from_outcomes([1, -1, 2])
    with pytest.raises(ValueError, match="unknown rate"):
        Record(1).rate("elo")


# -- binomial test ---------------------------------------------------------------------------

@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("k,n,p", [
    (0, 1, "1/2"), (1, 1, "1/2"), (3, 10, "1/2"), (5, 10, "1/2"), (7, 20, "1/5"),
    (3, 10, "3/10"), (0, 25, "1/3"), (25, 25, "1/3"), (13, 40, "7/10"), (225, 400, "1/2"),
    (221, 395, "1/2"), (58, 100, "1/2"), (1, 60, "9/10"), (59, 60, "1/100"),
    (31, 137, "1/4"), (300, 700, "2/5")])
def test_binomial_test_matches_exact_pmf_sums(k, n, p, alternative):
    expected = brute_binomial_test(k, n, Fraction(p), alternative)
    got = binomial_test(k, n, float(Fraction(p)), alternative)
    assert got == pytest.approx(expected, rel=1e-10, abs=1e-300)


def test_binomial_test_keeps_relative_precision_in_far_tails():
    # P(X <= 1) for B(900, 1/2) is about 1e-268: still exact to 1e-10 relative
    expected = brute_binomial_test(1, 900, Fraction(1, 2), "two-sided")
    assert 0 < expected < 1e-260
    assert binomial_test(1, 900) == pytest.approx(expected, rel=1e-10)


def test_binomial_test_symmetric_case_is_twice_the_smaller_tail():
    for k in range(0, 41):
        tail = min(brute_binomial_test(k, 40, Fraction(1, 2), "less"),
                   brute_binomial_test(k, 40, Fraction(1, 2), "greater"))
        assert binomial_test(k, 40) == pytest.approx(min(1.0, 2 * tail), rel=1e-12)


def test_binomial_test_large_n_against_normal_approximation():
    # n = 100000: z = 3.16; the exact p-value is within 1% of the continuity-corrected normal one
    from statistics import NormalDist
    k, n = 50500, 100000
    z = (k - 0.5 - n / 2) / math.sqrt(n / 4)
    assert binomial_test(k, n) == pytest.approx(2 * (1 - NormalDist().cdf(z)), rel=0.01)


@pytest.mark.parametrize("args,message", [
    ((5, 4), "cannot exceed"), ((-1, 4), "non-negative"), ((1, 4, 0.0), "strictly between"),
    ((1, 4, 1.0), "strictly between"), ((1, 4, 0.5, "bigger"), "unknown alternative")])
def test_binomial_test_rejects_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        binomial_test(*args)


def test_binomial_test_without_trials_is_one():
    assert binomial_test(0, 0) == 1.0


# -- intervals --------------------------------------------------------------------------------

@pytest.mark.parametrize("k,n", [(0, 10), (5, 10), (10, 10), (1, 3), (308, 400), (97, 400),
                                 (7.5, 20)])
def test_wilson_interval_formula(k, n):
    phat = k / n
    centre = (phat + Z95 ** 2 / (2 * n)) / (1 + Z95 ** 2 / n)
    half = Z95 / (1 + Z95 ** 2 / n) * math.sqrt(phat * (1 - phat) / n + Z95 ** 2 / (4 * n * n))
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(max(0.0, centre - half), abs=1e-14)
    assert hi == pytest.approx(min(1.0, centre + half), abs=1e-14)


def test_wilson_interval_known_cases():
    # 0/10: upper limit z^2 / (n + z^2); 5/10: the textbook (0.2366, 0.7634)
    assert wilson_interval(0, 10) == pytest.approx((0.0, Z95 ** 2 / (10 + Z95 ** 2)), abs=1e-14)
    assert wilson_interval(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-5)
    lo, hi = wilson_interval(30, 100, confidence=0.99)
    lo2, hi2 = wilson_interval(70, 100, confidence=0.99)
    assert (lo, hi) == pytest.approx((1 - hi2, 1 - lo2), abs=1e-14)
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("k,n", [(1, 10), (5, 10), (9, 10), (3, 50), (97, 400), (302, 400),
                                 (17, 33), (1, 120)])
@pytest.mark.parametrize("confidence", [0.95, 0.99])
def test_clopper_pearson_against_bisection_on_summed_tails(k, n, confidence):
    alpha = 1 - confidence
    lo_expected = bisect(lambda x: float_binom_sf(k, n, x), alpha / 2, increasing=True)
    hi_expected = bisect(lambda x: 1 - float_binom_sf(k + 1, n, x), alpha / 2, increasing=False)
    lo, hi = clopper_pearson_interval(k, n, confidence)
    assert lo == pytest.approx(lo_expected, abs=1e-10)
    assert hi == pytest.approx(hi_expected, abs=1e-10)


def test_clopper_pearson_closed_forms_at_the_edges():
    for n in (1, 10, 400):
        lo, hi = clopper_pearson_interval(0, n)
        assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / n), rel=1e-12)
        lo, hi = clopper_pearson_interval(n, n)
        assert hi == 1.0 and lo == pytest.approx(0.025 ** (1 / n), rel=1e-12)
    assert clopper_pearson_interval(0, 0) == (0.0, 1.0)


def test_clopper_pearson_limits_are_where_one_sided_tests_reach_alpha_half():
    lo, hi = clopper_pearson_interval(50123, 100000)
    assert binomial_test(50123, 100000, lo, "greater") == pytest.approx(0.025, rel=1e-6)
    assert binomial_test(50123, 100000, hi, "less") == pytest.approx(0.025, rel=1e-6)


@pytest.mark.parametrize("bad", [0.0, 1.0, 95])
def test_intervals_reject_bad_confidence(bad):
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 2, bad)
    with pytest.raises(ValueError, match="confidence"):
        clopper_pearson_interval(1, 2, bad)


def test_wilson_rejects_successes_out_of_range():
    with pytest.raises(ValueError, match=r"\[0, n=4\]"):
        wilson_interval(5, 4)


# -- one pairing -----------------------------------------------------------------------------

def test_elo_difference_and_expected_score_are_inverse():
    for score in (0.01, 0.25, 0.5, 0.762, 0.99):
        assert expected_score(elo_difference(score)) == pytest.approx(score, rel=1e-12)
    assert elo_difference(0.5) == 0.0 and elo_difference(1.0) == math.inf
    assert expected_score(400) == pytest.approx(10 / 11)
    with pytest.raises(ValueError, match="score"):
        elo_difference(1.2)


def test_summarize_one_pairing():
    s = summarize((223, 3, 174))
    assert s["games"] == 400 and s["win_rate"] == pytest.approx(223 / 397)
    assert s["score"] == pytest.approx(224.5 / 400)
    assert (s["wilson_low"], s["wilson_high"]) == pytest.approx(wilson_interval(223, 397))
    assert (s["cp_low"], s["cp_high"]) == pytest.approx(clopper_pearson_interval(223, 397))
    assert s["p_greater"] == pytest.approx(brute_binomial_test(223, 397, Fraction(1, 2),
                                                               "greater"), rel=1e-10)
    assert s["p_greater"] < 0.01 < s["p_two_sided"]
    assert s["significant"]
    assert not summarize((223, 3, 174), alternative="two-sided")["significant"]
    # the weaker side is never "significant", even with a one-sided test the other way round
    assert not summarize((174, 3, 223), alternative="less")["significant"]


def test_format_percent_rounds_half_up():
    assert format_percent(24.25) == "24.3" and format_percent(75.75) == "75.8"
    assert format_percent(100 * 97 / 400) == "24.3" and format_percent(5.0, 0) == "5"


# -- round-robin tables ------------------------------------------------------------------------

NAMES = ["PGLeaf", "REINFORCE", "TDLeaf", "TD"]
ABBREV = {"PGLeaf": "PL", "REINFORCE": "RE", "TDLeaf": "TL", "TD": "TD"}

# (wins, draws, losses) of the first player, 400 games each, chosen with the fewest draws that
# reproduce both mirrored cells of the paper's Tables 3 and 4 (PGLeaf paper, section 5.3).
TABLE3 = {("PGLeaf", "REINFORCE"): (348, 6, 46), ("PGLeaf", "TDLeaf"): (176, 1, 223),
          ("PGLeaf", "TD"): (350, 6, 44), ("REINFORCE", "TDLeaf"): (49, 1, 350),
          ("REINFORCE", "TD"): (210, 1, 189), ("TDLeaf", "TD"): (352, 6, 42)}
TABLE4 = {("PGLeaf", "REINFORCE"): (304, 1, 95), ("PGLeaf", "TDLeaf"): (223, 3, 174),
          ("PGLeaf", "TD"): (350, 2, 48), ("REINFORCE", "TDLeaf"): (64, 0, 336),
          ("REINFORCE", "TD"): (125, 1, 274), ("TDLeaf", "TD"): (348, 0, 52)}
PAPER_TABLE3 = """\
| | PL | RE | TL | TD |
|---|---:|---:|---:|---:|
| PGLeaf | - | **88.3** | 44.1 | **88.8** |
| REINFORCE | 11.7 | - | 12.3 | 52.6 |
| TDLeaf | 55.9 | **87.7** | - | **89.3** |
| TD | 11.2 | 47.4 | 10.7 | - |
"""
PAPER_TABLE4 = """\
| | PL | RE | TL | TD |
|---|---:|---:|---:|---:|
| PGLeaf | - | **76.2** | **56.2** | **87.9** |
| REINFORCE | 23.8 | - | 16.0 | 31.3 |
| TDLeaf | 43.8 | **84.0** | - | **87.0** |
| TD | 12.1 | **68.7** | 13.0 | - |
"""


@pytest.mark.parametrize("results,paper", [(TABLE3, PAPER_TABLE3), (TABLE4, PAPER_TABLE4)])
def test_round_robin_reproduces_the_papers_tables_and_bold_cells(results, paper):
    table = round_robin_table(results, NAMES)
    assert table.to_markdown(column_labels=ABBREV) == paper


def test_two_sided_test_would_not_bold_the_papers_56_2():
    table = round_robin_table(TABLE4, NAMES, alternative="two-sided")
    assert not table.significant.loc["PGLeaf", "TDLeaf"]
    assert table.significant.loc["PGLeaf", "REINFORCE"]


def test_round_robin_merges_directions_and_keeps_missing_pairs_empty():
    results = {("A", "B"): (10, 2, 5), ("B", "A"): Record(3, 0, 4), ("C", "A"): (1, 1, 1)}
    table = round_robin_table(results, ["C", "B", "A", "D"], rate="score")
    assert table.records[("A", "B")] == Record(14, 2, 8)
    assert table.records[("B", "A")] == Record(8, 2, 14)
    rates = table.rates
    assert list(rates.index) == ["C", "B", "A", "D"] == list(rates.columns)
    assert rates.loc["A", "B"] == pytest.approx(100 * 15 / 24)
    assert rates.loc["A", "B"] + rates.loc["B", "A"] == pytest.approx(100)
    assert np.isnan(rates.loc["B", "C"]) and np.isnan(rates.loc["A", "A"])
    assert np.isnan(rates.loc["D"]).all()
    assert table.p_values.loc["A", "B"] == pytest.approx(binomial_test(14, 22, 0.5, "greater"))
    assert table.p_values.loc["B", "A"] == pytest.approx(binomial_test(8, 22, 0.5, "greater"))
    lines = table.to_markdown().splitlines()
    assert lines[2] == "| C | - |  | 50.0 |  |"
    frame = table.to_frame()
    assert len(frame) == 4
    assert list(frame[["player", "opponent"]].itertuples(index=False, name=None)) == \
        [("C", "A"), ("B", "A"), ("A", "C"), ("A", "B")]
    row = frame.iloc[1]
    assert (row.wins, row.draws, row.losses, row.games) == (8, 2, 14, 24)
    assert row.p_two_sided == pytest.approx(binomial_test(8, 22))


def test_round_robin_csv_and_style(tmp_path):
    table = round_robin_table(TABLE4, NAMES)
    path = tmp_path / "t.csv"
    table.to_frame().to_csv(path, index=False)
    import pandas as pd
    back = pd.read_csv(path)
    assert back["significant"].sum() == 6 and back["wins"].sum() == sum(
        w + l for w, _, l in TABLE4.values())
    styler = table.style(column_labels=ABBREV)
    html = styler.to_html()
    bold_rule = re.search(r"([^}]*)\{\s*font-weight: bold", html).group(1)
    bold_cells = sorted(re.findall(r"row(\d)_col(\d)", bold_rule))
    assert bold_cells == [("0", "1"), ("0", "2"), ("0", "3"), ("2", "1"), ("2", "3"), ("3", "1")]
    assert ">56.2<" in html and ">RE<" in html


@pytest.mark.parametrize("results,message", [
    ({("A", "A"): (1, 0, 0)}, "with itself"), ({("A",): (1, 0, 0)}, "not a \\(player"),
    ({("A", "B"): (1, 0)}, "triple"), ({}, "empty"), ([("A", "B")], "mapping")])
def test_round_robin_rejects_bad_results(results, message):
    with pytest.raises(ValueError, match=message):
        round_robin_table(results)


def test_round_robin_rejects_bad_players_and_options():
    with pytest.raises(ValueError, match="not in players"):
        round_robin_table({("A", "B"): (1, 0, 0)}, ["A"])
    with pytest.raises(ValueError, match="duplicates"):
        round_robin_table({("A", "B"): (1, 0, 0)}, ["A", "B", "A"])
    with pytest.raises(ValueError, match="unknown rate"):
        round_robin_table({("A", "B"): (1, 0, 0)}, rate="elo")
    with pytest.raises(ValueError, match="alpha"):
        round_robin_table({("A", "B"): (1, 0, 0)}, alpha=1.5)
    with pytest.raises(ValueError, match="column labels"):
        round_robin_table({("A", "B"): (1, 0, 0)}).to_markdown(column_labels=["x"])


# -- Bradley-Terry ------------------------------------------------------------------------------

TRUE_ELO = {"A": 0.0, "B": 120.0, "C": 310.0, "D": -180.0, "E": 45.0}


def expected_results(n_games):
    """Every pairing with counts rounded from the model's expected score (no draws)."""
    names = list(TRUE_ELO)
    out = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            wins = round(n_games * expected_score(TRUE_ELO[a] - TRUE_ELO[b]))
            out[(a, b)] = (wins, 0, n_games - wins)
    return out


def sampled_results(n_games, seed, draw_rate=0.2):
    rng = np.random.default_rng(seed)
    names = list(TRUE_ELO)
    out = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p = expected_score(TRUE_ELO[a] - TRUE_ELO[b])
            # draws take half their mass from each side: the expected score stays p
            draw = 2 * draw_rate * min(p, 1 - p)
            probs = [p - draw / 2, draw, 1 - p - draw / 2]
            out[(a, b)] = tuple(int(x) for x in rng.multinomial(n_games, probs))
    return out


def mm_fit(results, names):
    """Hunter's (2004) MM fixed point, an independent oracle for the maximum likelihood."""
    idx = {p: i for i, p in enumerate(names)}
    m = len(names)
    n = np.zeros((m, m))
    w = np.zeros(m)
    for (a, b), (wins, draws, losses) in results.items():
        i, j = idx[a], idx[b]
        n[i, j] += wins + draws + losses
        n[j, i] += wins + draws + losses
        w[i] += wins + draws / 2
        w[j] += losses + draws / 2
    gamma = np.ones(m)
    for _ in range(100_000):
        new = w / (n / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new / gamma))) < 1e-14:
            break
        gamma = new
    else:
        raise AssertionError("MM did not converge")
    return ELO_PER_NAT * np.log(new)


def test_bradley_terry_recovers_known_strengths():
    ratings = bradley_terry(expected_results(100_000), anchor="A")
    got = dict(zip(ratings.players, ratings.elo))
    for name, elo in TRUE_ELO.items():
        assert got[name] == pytest.approx(elo, abs=0.2)
    assert got["A"] == 0.0 and ratings.se[ratings.players.index("A")] == 0.0


def test_bradley_terry_matches_mm_oracle_with_draws():
    results = sampled_results(300, seed=1)
    ratings = bradley_terry(results)
    np.testing.assert_allclose(ratings.elo, mm_fit(results, ratings.players), atol=1e-6)
    assert ratings.elo.mean() == pytest.approx(0.0, abs=1e-9)
    # anchoring only shifts the ratings
    anchored = bradley_terry(results, anchor="C", anchor_elo=1500.0)
    np.testing.assert_allclose(anchored.elo - anchored.elo[2] + 1500.0, anchored.elo)
    np.testing.assert_allclose(anchored.elo - ratings.elo, 1500.0 - ratings.elo[2], atol=1e-8)


def test_bradley_terry_two_players_closed_form():
    ratings = bradley_terry({("X", "Y"): (70, 20, 30)}, anchor="Y")
    score = 80 / 120
    assert ratings.elo[0] == pytest.approx(elo_difference(score), abs=1e-8)
    se = ELO_PER_NAT / math.sqrt(120 * score * (1 - score))
    assert ratings.se[0] == pytest.approx(se, rel=1e-8)
    assert (ratings.lower[0], ratings.upper[0]) == pytest.approx(
        (ratings.elo[0] - Z95 * se, ratings.elo[0] + Z95 * se), rel=1e-8)
    # very lopsided results still converge to the closed form
    lopsided = bradley_terry({("X", "Y"): (1, 0, 10 ** 6)}, anchor="Y")
    assert lopsided.elo[0] == pytest.approx(elo_difference(1 / (10 ** 6 + 1)), abs=1e-6)


def test_bradley_terry_standard_errors_cover_the_truth():
    # 40 independent data sets: the 95% Wald intervals of B-A should cover about 95% of them
    covered = 0
    for seed in range(40):
        ratings = bradley_terry(sampled_results(200, seed), anchor="A")
        i = ratings.players.index("B")
        covered += ratings.lower[i] <= TRUE_ELO["B"] <= ratings.upper[i]
    assert covered >= 34


def test_bootstrap_is_deterministic_and_agrees_with_wald():
    results = sampled_results(400, seed=3)
    boot = bootstrap_ratings(results, n_boot=200, seed=7, anchor="A")
    again = bootstrap_ratings(results, n_boot=200, seed=7, anchor="A")
    other = bootstrap_ratings(results, n_boot=200, seed=8, anchor="A")
    np.testing.assert_array_equal(boot.lower, again.lower)
    assert not np.array_equal(boot.lower, other.lower)
    wald = bradley_terry(results, anchor="A")
    np.testing.assert_allclose(boot.elo, wald.elo)
    np.testing.assert_allclose(boot.se[1:], wald.se[1:], rtol=0.25)
    assert boot.method == "bootstrap" and set(boot.to_frame().columns) == {
        "player", "elo", "se", "lower", "upper"}


def test_unbounded_ratings_are_reported_and_prior_draws_fix_them():
    results = {("A", "B"): (10, 0, 0), ("B", "C"): (5, 2, 5), ("A", "C"): (3, 0, 0)}
    with pytest.raises(ValueError, match=r"\['A'\] won every game"):
        bradley_terry(results)
    ratings = bradley_terry(results, prior_draws=1.0)
    assert np.isfinite(ratings.elo).all() and ratings.elo[0] == ratings.elo.max()
    with pytest.raises(ValueError, match="no games"):
        bradley_terry({("A", "B"): (1, 0, 1), ("C", "D"): (1, 0, 1)})
    with pytest.raises(ValueError, match="anchor 'Z'"):
        bradley_terry({("A", "B"): (1, 0, 1)}, anchor="Z")
    with pytest.raises(ValueError, match="prior_draws"):
        bradley_terry({("A", "B"): (1, 0, 1)}, prior_draws=-1)


def test_bootstrap_names_an_unbounded_replicate():
    with pytest.raises(ValueError, match="bootstrap replicate"):
        bootstrap_ratings({("A", "B"): (1, 0, 1)}, n_boot=200, seed=0)


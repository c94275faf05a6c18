"""One match's numbers as engine testers print them: Elo with an interval, the likelihood of
superiority, and the sequential probability ratio test (SPRT).

The conventions are those of cutechess-cli, fastchess and fishtest (trinomial model: each game
scores 1, 1/2 or 0 for the player):

* **Elo** of the mean score :math:`\\mu`: :math:`-400 \\log_{10}(1/\\mu - 1)`; its interval maps
  :math:`\\mu \\pm z\\,\\sigma/\\sqrt{n}` through the same function, with :math:`\\sigma^2` the
  per-game variance of the scores (the Wilson interval of the points when that variance is 0).
* **LOS** (likelihood of superiority): :math:`\\Phi((W - L)/\\sqrt{W + L})`, the probability that
  the player is the stronger, from the decisive games (draws carry no information here).
* **SPRT** between H0: Elo = ``elo0`` and H1: Elo = ``elo1`` (logistic Elo): the generalised
  SPRT of fishtest and fastchess. The log-likelihood ratio is
  :math:`LLR = \\max_{p: E_p = s_1} \\ell(p) - \\max_{p: E_p = s_0} \\ell(p)`, the difference of the
  trinomial log-likelihoods maximised under each hypothesis' expected score :math:`s_i`
  (:func:`constrained_log_likelihood`; Michel Van den Bergh's exact form, which stays finite when
  every game so far had the same result, where the usual normal approximation divides by a zero
  variance). The test accepts H1 when the LLR reaches :math:`\\log((1-\\beta)/\\alpha)` and H0
  when it falls to :math:`\\log(\\beta/(1-\\alpha))`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from gamelib.play.stats import Record, as_record, elo_difference, expected_score, wilson_interval

__all__ = ["score_moments", "elo_interval", "likelihood_of_superiority", "constrained_log_likelihood", "Sprt",
           "summary_line"]


def score_moments(record) -> tuple[float, float]:
    """Mean score and per-game variance of the scores (draws 1/2)."""
    rec = as_record(record)
    if rec.games == 0:
        raise ValueError("no games: the score is undefined")
    n = rec.games
    mu = (rec.wins + 0.5 * rec.draws) / n
    var = (rec.wins * (1 - mu) ** 2 + rec.draws * (0.5 - mu) ** 2 + rec.losses * mu ** 2) / n
    return mu, var


def elo_interval(record, confidence: float = 0.95) -> tuple[float, float, float]:
    """``(elo, low, high)`` of the player's score (the Elo is infinite at a score of 0 or 1).

    When every game had the same score the per-game variance is 0 and the interval is the
    Wilson score interval of the points instead (so 10 wins of 10 give a finite lower bound)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    rec = as_record(record)
    mu, var = score_moments(rec)
    if var == 0.0:  # every game scored the same: the normal interval would be a point
        lo, hi = wilson_interval(rec.points, rec.games, confidence)
        return elo_difference(mu), elo_difference(lo), elo_difference(hi)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    half = z * math.sqrt(var / rec.games)
    return (elo_difference(mu), elo_difference(max(0.0, mu - half)), elo_difference(min(1.0, mu + half)))


def likelihood_of_superiority(record) -> float:
    """:math:`\\Phi((W-L)/\\sqrt{W+L})` (0.5 without decisive games)."""
    rec = as_record(record)
    if rec.decisive == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((rec.wins - rec.losses) / math.sqrt(2.0 * rec.decisive)))


_SCORES = (1.0, 0.5, 0.0)  # win, draw, loss


def constrained_log_likelihood(record, s: float) -> float:
    """:math:`\\max_p \\sum_i n_i \\log p_i` over win/draw/loss probabilities ``p`` with expected
    score ``s`` (0 < s < 1), for the counts ``n`` of ``record``.

    The maximiser is :math:`p_i = n_i / (N (1 + \\lambda (x_i - s)))` with :math:`\\lambda` the root
    of :math:`\\sum_i n_i (x_i - s) / (1 + \\lambda (x_i - s)) = 0` in the interval where every
    :math:`1 + \\lambda (x - s)` is positive; when the observed results all lie on one side of
    ``s`` the root is at that interval's end and the missing probability goes to the unobserved
    extreme result (a loss or a win).
    """
    rec = as_record(record)
    if not 0.0 < s < 1.0:
        raise ValueError(f"the expected score must lie strictly between 0 and 1, got {s!r}")
    counts = (rec.wins, rec.draws, rec.losses)
    n = sum(counts)
    if n == 0:
        return 0.0
    terms = [(c, x - s) for c, x in zip(counts, _SCORES) if c]

    def f(lam):
        return sum(c * d / (1.0 + lam * d) for c, d in terms)

    lo, hi = -1.0 / (1.0 - s), 1.0 / s
    if f(hi * (1 - 1e-15)) >= 0.0:
        lam = hi  # no loss observed and the wins/draws score above s: p(loss) takes the rest
    elif f(lo * (1 - 1e-15)) <= 0.0:
        lam = lo
    else:
        a, b = lo, hi
        for _ in range(200):
            mid = 0.5 * (a + b)
            if f(mid) > 0.0:
                a = mid
            else:
                b = mid
        lam = 0.5 * (a + b)
    return sum(c * math.log(c / (n * (1.0 + lam * d))) for c, d in terms)


@dataclass(frozen=True)
class Sprt:
    """A sequential test of H0: Elo = ``elo0`` against H1: Elo = ``elo1`` with error rates
    ``alpha`` (false H1) and ``beta`` (false H0)."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self):
        for name in ("elo0", "elo1"):
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"{name} must be finite, got {getattr(self, name)!r}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got elo0={self.elo0} elo1={self.elo1}")
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if not 0.0 < v < 0.5:
                raise ValueError(f"{name} must lie strictly between 0 and 0.5, got {v!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lower, upper)``: accept H0 at or below ``lower``, H1 at or above ``upper``."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, record) -> float:
        """The log-likelihood ratio of H1 against H0 after ``record`` (0 before any game)."""
        rec = as_record(record)
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return constrained_log_likelihood(rec, s1) - constrained_log_likelihood(rec, s0)

    def decision(self, record) -> str | None:
        """``"H1"``, ``"H0"`` or None (go on)."""
        llr = self.llr(record)
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None


def summary_line(record: Record, confidence: float = 0.95) -> str:
    """``W-D-L  score  Elo x [lo, hi]  LOS p`` for a player's record."""
    rec = as_record(record)
    elo, lo, hi = elo_interval(rec, confidence)
    return (f"{rec.wins}-{rec.draws}-{rec.losses} (W-D-L), score {rec.score:.3f}, "
            f"Elo {elo:+.1f} [{lo:+.1f}, {hi:+.1f}] ({confidence:.0%}), "
            f"LOS {likelihood_of_superiority(rec):.1%}")

"""One match's numbers as engine testers print them: Elo with an interval, the likelihood of
superiority, and the sequential probability ratio test (SPRT).

The conventions are those of cutechess-cli, fastchess and fishtest (trinomial model: each game
scores 1, 1/2 or 0 for the player):

* **Elo** of the mean score :math:`\\mu`: :math:`-400 \\log_{10}(1/\\mu - 1)`; its interval maps
  :math:`\\mu \\pm z\\,\\sigma/\\sqrt{n}` through the same function, with :math:`\\sigma^2` the
  per-game variance of the scores.
* **LOS** (likelihood of superiority): :math:`\\Phi((W - L)/\\sqrt{W + L})`, the probability that
  the player is the stronger, from the decisive games (draws carry no information here).
* **SPRT** between H0: Elo = ``elo0`` and H1: Elo = ``elo1`` (logistic Elo), with the generalised
  SPRT's log-likelihood ratio (Michel Van den Bergh's approximation, as fishtest computes it for
  the trinomial model): :math:`LLR = n (s_1 - s_0)(2\\mu - s_0 - s_1) / (2\\sigma^2)`, where
  :math:`s_i` are the expected scores at ``elo0``/``elo1``. The test accepts H1 when the LLR
  reaches :math:`\\log((1-\\beta)/\\alpha)` and H0 when it falls to :math:`\\log(\\beta/(1-\\alpha))`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from gamelib.play.stats import Record, as_record, elo_difference, expected_score

__all__ = ["score_moments", "elo_interval", "likelihood_of_superiority", "Sprt", "summary_line"]


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
    """``(elo, low, high)`` of the player's score (infinite at a score of 0 or 1)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    rec = as_record(record)
    mu, var = score_moments(rec)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    half = z * math.sqrt(var / rec.games)
    return (elo_difference(mu), elo_difference(max(0.0, mu - half)), elo_difference(min(1.0, mu + half)))


def likelihood_of_superiority(record) -> float:
    """:math:`\\Phi((W-L)/\\sqrt{W+L})` (0.5 without decisive games)."""
    rec = as_record(record)
    if rec.decisive == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((rec.wins - rec.losses) / math.sqrt(2.0 * rec.decisive)))


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
        """The log-likelihood ratio of H1 against H0 after ``record`` (0 before any game, and
        while every game had the same score: the variance is then 0)."""
        rec = as_record(record)
        if rec.games == 0:
            return 0.0
        mu, var = score_moments(rec)
        if var == 0.0:
            return 0.0
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return rec.games * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)

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

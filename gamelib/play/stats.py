"""Match statistics: records, win rates, intervals, exact tests, round-robin tables, Elo ratings.

Everything here is engine-independent: it only sees win/draw/loss counts.

Conventions
-----------
*Win rate (the paper's convention).* Morioka & Igarashi (PGLeaf, section 5.3, Tables 2-4) give
"the win rate of the row's algorithm against the column's" over 400 games per pairing without
saying how draws count. The printed numbers settle it (a search over every (wins, draws, losses)
with 400 games and every usual rounding rule):

* a draw as a loss for both sides, ``wins / 400``, cannot give 44.1 / 55.9 (Table 3): mirrored
  cells adding up to 100 leave no room for draws, and without draws every cell is a multiple of
  0.25 %;
* a draw as half a win, ``(wins + draws/2) / 400``, puts every cell on a 0.125 % grid, so
  24.3 / 75.7 (Table 2) or 88.3 / 11.7 (Table 3) would be 24.25 / 75.75 and 88.25 / 11.75
  rounded in opposite directions;
* draws left out, ``wins / (wins + losses)``, reproduces every mirrored pair with one rounding
  rule -- except 67.8 / 31.2 (TDLeaf-TD, Table 2), which adds up to 99.0 and fits no rule that
  makes mirrored cells complementary: presumably a misprint.

:attr:`Record.win_rate` is the paper's rate; :attr:`Record.score` counts a draw as half a win.

*Significance (the paper's bold cells).* The paper bolds results with which the row "can be judged
stronger at the 1 % significance level". Its bold cells match a one-sided exact binomial (sign)
test on the decisive games, H0: P(win) = 1/2 against "the row is stronger", at alpha = 0.01:
Table 4's 56.2 % (PGLeaf-TDLeaf) is bold although a two-sided test gives p > 0.015 for every
record consistent with it, while Table 3's 55.9 % is not bold (one-sided p > 0.010). Round-robin
tables therefore default to ``alternative="greater"``; :func:`binomial_test` defaults to the
two-sided test.

*Elo.* Ratings follow the Bradley-Terry model :math:`P(i \\text{ beats } j) = 1 / (1 +
10^{(R_j - R_i)/400})`, fitted by maximum likelihood with a draw counted as half a win and half a
loss.

Numerical methods
-----------------
Binomial tails use the regularized incomplete beta function
:math:`P(X \\ge k) = I_p(k, n - k + 1)`, evaluated by its continued fraction (modified Lentz) with
the prefactor in log space (``math.lgamma``), so p-values down to ~1e-300 keep full relative
precision and nothing depends on scipy. Clopper-Pearson limits invert those tails by bisection.
Normal quantiles come from :class:`statistics.NormalDist`.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from statistics import NormalDist
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of the Bradley-Terry log-strength (400 / ln 10)."""

ALTERNATIVES = ("two-sided", "greater", "less")
RATES = ("win_rate", "score")


def _count(value, name: str) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}") from None
    if number < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {number}")
    return number


def _check_confidence(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    return float(confidence)


def _check_alternative(alternative: str) -> str:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r}; valid: {', '.join(ALTERNATIVES)}")
    return alternative


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class Record:
    """Wins, draws and losses of one player against another, from that player's side.

    Parameters
    ----------
    wins, draws, losses : int
        Non-negative counts.
    """

    wins: int
    draws: int = 0
    losses: int = 0

    def __post_init__(self):
        for name in ("wins", "draws", "losses"):
            object.__setattr__(self, name, _count(getattr(self, name), name))

    @classmethod
    def from_outcomes(cls, outcomes: Iterable[int]) -> "Record":
        """Count game outcomes given as +1 (win), 0 (draw), -1 (loss) from the player's side."""
        counts = {1: 0, 0: 0, -1: 0}
        for i, outcome in enumerate(outcomes):
            if isinstance(outcome, bool) or outcome not in counts:
                raise ValueError(f"game {i}: outcome must be +1 (win), 0 (draw) or -1 (loss), "
                                 f"got {outcome!r}")
            counts[int(outcome)] += 1
        return cls(counts[1], counts[0], counts[-1])

    @property
    def games(self) -> int:
        """All games played."""
        return self.wins + self.draws + self.losses

    @property
    def decisive(self) -> int:
        """Games that were won or lost."""
        return self.wins + self.losses

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    @property
    def win_rate(self) -> float:
        """The paper's win rate ``wins / (wins + losses)`` (draws left out); NaN without a
        decisive game."""
        return self.wins / self.decisive if self.decisive else math.nan

    @property
    def score(self) -> float:
        """``(wins + draws / 2) / games``; NaN without a game."""
        return self.points / self.games if self.games else math.nan

    def rate(self, kind: str) -> float:
        """``self.win_rate`` (``kind="win_rate"``) or ``self.score`` (``kind="score"``)."""
        if kind not in RATES:
            raise ValueError(f"unknown rate {kind!r}; valid: {', '.join(RATES)}")
        return getattr(self, kind)

    def reversed(self) -> "Record":
        """The same games from the opponent's side."""
        return Record(self.losses, self.draws, self.wins)

    def __add__(self, other: "Record") -> "Record":
        if not isinstance(other, Record):
            return NotImplemented
        return Record(self.wins + other.wins, self.draws + other.draws,
                      self.losses + other.losses)


def as_record(value) -> Record:
    """A :class:`Record` from a record or a ``(wins, draws, losses)`` triple."""
    if isinstance(value, Record):
        return value
    try:
        wins, draws, losses = value
    except (TypeError, ValueError):
        raise ValueError(f"expected a Record or a (wins, draws, losses) triple, got {value!r}") \
            from None
    return Record(wins, draws, losses)


# ---------------------------------------------------------------------------------------------
# Binomial distribution, without scipy


def _log_binom_pmf(i: int, n: int, p: float) -> float:
    return (math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
            + i * math.log(p) + (n - i) * math.log1p(-p))


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz's method)."""
    tiny = 1e-300
    max_iter = 10_000 + int(20 * math.sqrt(max(a, b)))
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, max_iter + 1):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            return h
    raise RuntimeError(f"incomplete beta continued fraction did not converge (a={a}, b={b}, "
                       f"x={x})")


def _betainc(a: float, b: float, x: float, y: float) -> float:
    """Regularized incomplete beta :math:`I_x(a, b)`; ``y = 1 - x`` is passed exactly."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_front = (a * math.log(x) + b * math.log(y)
                 + math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, y) / b


def _binom_sf(k: int, n: int, p: float, q: float) -> float:
    """:math:`P(X \\ge k)` for :math:`X \\sim B(n, p)`, ``q = 1 - p``."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return _betainc(k, n - k + 1, p, q)


def _binom_cdf(k: int, n: int, p: float, q: float) -> float:
    """:math:`P(X \\le k)` for :math:`X \\sim B(n, p)`, ``q = 1 - p``."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return _betainc(n - k, k + 1, q, p)


def binomial_test(successes: int, n: int, p: float = 0.5,
                  alternative: str = "two-sided") -> float:
    """Exact binomial test of H0: success probability ``p``; returns the p-value.

    Parameters
    ----------
    successes : int
        Observed successes ``k`` (0 <= k <= n), e.g. wins among the decisive games.
    n : int
        Trials, e.g. decisive games (wins + losses: a sign test leaves draws out).
    p : float
        Success probability under H0, strictly between 0 and 1.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: :math:`P(X \\ge k)`; ``"less"``: :math:`P(X \\le k)`; ``"two-sided"``: the
        total probability of the outcomes no more likely than ``k``
        (:math:`\\sum_{i: f(i) \\le f(k)} f(i)`, with a relative tolerance of 1e-7 on the
        comparison as in R's ``binom.test``); for ``p = 1/2`` this is
        ``min(1, 2 min(P(X <= k), P(X >= k)))``.

    Returns
    -------
    float
        The p-value (1.0 when ``n == 0``).
    """
    n = _count(n, "n")
    k = _count(successes, "successes")
    if k > n:
        raise ValueError(f"successes ({k}) cannot exceed trials ({n})")
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, got {p!r}")
    _check_alternative(alternative)
    q = 1.0 - p
    if alternative == "greater":
        return _binom_sf(k, n, p, q)
    if alternative == "less":
        return _binom_cdf(k, n, p, q)
    if n == 0:
        return 1.0
    mode = int(math.floor((n + 1) * p))
    mode = min(mode, n)
    threshold = _log_binom_pmf(k, n, p) + math.log1p(1e-7)
    if k == mode or _log_binom_pmf(mode, n, p) <= threshold:
        return 1.0
    if k < mode:
        # first j in (mode, n] with f(j) <= f(k); f decreases there
        lo, hi = mode + 1, n + 1
        while lo < hi:
            mid = (lo + hi) // 2
            if _log_binom_pmf(mid, n, p) <= threshold:
                hi = mid
            else:
                lo = mid + 1
        return min(1.0, _binom_cdf(k, n, p, q) + _binom_sf(lo, n, p, q))
    # last j in [0, mode) with f(j) <= f(k); f increases there
    lo, hi = -1, mode - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _log_binom_pmf(mid, n, p) <= threshold:
            lo = mid
        else:
            hi = mid - 1
    return min(1.0, _binom_cdf(lo, n, p, q) + _binom_sf(k, n, p, q))


# ---------------------------------------------------------------------------------------------
# Confidence intervals


def wilson_interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion.

    .. math:: \\frac{\\hat p + z^2/2n \\pm z\\sqrt{\\hat p(1-\\hat p)/n + z^2/4n^2}}{1 + z^2/n}

    with :math:`\\hat p = k/n` and :math:`z` the :math:`1 - (1-c)/2` normal quantile.

    Parameters
    ----------
    successes : float
        ``k``, 0 <= k <= n. May be a half-integer (points, with draws as half wins): the interval
        is then the usual approximation, conservative because draws lower the variance.
    n : int
        Trials. With ``n == 0`` nothing is known and the interval is (0, 1).
    confidence : float
        Coverage, e.g. 0.95.
    """
    n = _count(n, "n")
    if not 0.0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, n={n}], got {successes!r}")
    z = NormalDist().inv_cdf(0.5 + _check_confidence(confidence) / 2.0)
    if n == 0:
        return 0.0, 1.0
    phat = successes / n
    denom = 1.0 + z * z / n
    centre = (phat + z * z / (2.0 * n)) / denom
    half = z / denom * math.sqrt(phat * (1.0 - phat) / n + z * z / (4.0 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _bisect_probability(f, target: float, increasing: bool) -> float:
    """The ``x`` in [0, 1] where the monotone ``f`` crosses ``target``, to full precision."""
    lo, hi = 0.0, 1.0
    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if (f(mid) < target) == increasing:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def clopper_pearson_interval(successes: int, n: int,
                             confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval for a binomial proportion.

    The lower limit is the ``p`` with :math:`P(X \\ge k \\mid p) = \\alpha/2` (0 when
    ``k = 0``), the upper limit the ``p`` with :math:`P(X \\le k \\mid p) = \\alpha/2` (1 when
    ``k = n``), :math:`\\alpha = 1 - c`; equivalently beta quantiles
    :math:`B(\\alpha/2; k, n-k+1)` and :math:`B(1-\\alpha/2; k+1, n-k)`.

    Parameters
    ----------
    successes : int
        ``k``, 0 <= k <= n.
    n : int
        Trials. With ``n == 0`` the interval is (0, 1).
    confidence : float
        Coverage, e.g. 0.95.
    """
    n = _count(n, "n")
    k = _count(successes, "successes")
    if k > n:
        raise ValueError(f"successes ({k}) cannot exceed trials ({n})")
    alpha = 1.0 - _check_confidence(confidence)
    lower = 0.0 if k == 0 else _bisect_probability(
        lambda x: _binom_sf(k, n, x, 1.0 - x), alpha / 2.0, increasing=True)
    upper = 1.0 if k == n else _bisect_probability(
        lambda x: _binom_cdf(k, n, x, 1.0 - x), alpha / 2.0, increasing=False)
    return lower, upper


# ---------------------------------------------------------------------------------------------
# One pairing


def elo_difference(score: float) -> float:
    """Elo difference that makes ``score`` the expected score: ``-400 log10(1/score - 1)``."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score must lie in [0, 1], got {score!r}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def expected_score(elo_diff: float) -> float:
    """Expected score at an Elo advantage ``elo_diff``: ``1 / (1 + 10^(-elo_diff/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo_diff / 400.0))


def _significant(rec: Record, alpha: float, alternative: str) -> bool:
    p_value = binomial_test(rec.wins, rec.decisive, 0.5, alternative)
    return bool(p_value < alpha and rec.wins > rec.losses)


def summarize(record, confidence: float = 0.95, alpha: float = 0.01,
              alternative: str = "greater") -> dict:
    """Everything about one pairing, from the row player's side.

    Parameters
    ----------
    record : Record or (wins, draws, losses)
    confidence : float
        Coverage of the intervals.
    alpha : float
        Significance level of the ``significant`` flag.
    alternative : {"greater", "two-sided", "less"}
        Alternative of the sign test behind ``significant``.

    Returns
    -------
    dict
        ``wins, draws, losses, games, win_rate`` (paper convention), ``score`` (draws half),
        ``wilson_low, wilson_high, cp_low, cp_high`` (intervals for ``win_rate``),
        ``p_two_sided, p_greater`` (exact sign tests on the decisive games) and ``significant``:
        the p-value of ``alternative`` is below ``alpha`` and the row won more than it lost
        (so a significant cell always means the row is the stronger side).
    """
    rec = as_record(record)
    _check_alternative(alternative)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {alpha!r}")
    w_lo, w_hi = wilson_interval(rec.wins, rec.decisive, confidence)
    c_lo, c_hi = clopper_pearson_interval(rec.wins, rec.decisive, confidence)
    return {
        "wins": rec.wins, "draws": rec.draws, "losses": rec.losses, "games": rec.games,
        "win_rate": rec.win_rate, "score": rec.score,
        "wilson_low": w_lo, "wilson_high": w_hi, "cp_low": c_lo, "cp_high": c_hi,
        "p_two_sided": binomial_test(rec.wins, rec.decisive, 0.5, "two-sided"),
        "p_greater": binomial_test(rec.wins, rec.decisive, 0.5, "greater"),
        "significant": _significant(rec, alpha, alternative),
    }


# ---------------------------------------------------------------------------------------------
# Many players


def format_percent(value: float, decimals: int = 1) -> str:
    """``value`` rounded half up to ``decimals`` digits, as in the paper's tables
    (``24.25 -> "24.3"``, where Python's own formatting would give ``"24.2"``)."""
    decimals = _count(decimals, "decimals")
    quantum = Decimal(1).scaleb(-decimals)
    return str(Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_UP))


def _pairings(results: Mapping, players: Sequence[str] | None):
    """Validate ``{(a, b): record}`` and merge both directions into ``{(a, b): record}``
    for every ordered pair that played, plus the player order."""
    if not isinstance(results, Mapping):
        raise ValueError("results must be a mapping {(player, opponent): Record or "
                         "(wins, draws, losses)}")
    merged: dict[tuple[str, str], Record] = {}
    seen: list[str] = []
    for key, value in results.items():
        try:
            a, b = key
        except (TypeError, ValueError):
            raise ValueError(f"results key {key!r} is not a (player, opponent) pair") from None
        if a == b:
            raise ValueError(f"results key {key!r} pairs a player with itself")
        rec = as_record(value)
        for x in (a, b):
            if x not in seen:
                seen.append(x)
        merged[(a, b)] = merged.get((a, b), Record(0)) + rec
        merged[(b, a)] = merged.get((b, a), Record(0)) + rec.reversed()
    if players is None:
        order = tuple(seen)
    else:
        order = tuple(players)
        if len(set(order)) != len(order):
            raise ValueError(f"players {list(order)} contains duplicates")
        missing = [x for x in seen if x not in order]
        if missing:
            raise ValueError(f"results name players {missing} that are not in players "
                             f"{list(order)}")
    if not order:
        raise ValueError("no players: results is empty")
    return order, {k: v for k, v in merged.items() if v.games > 0}


@dataclass(frozen=True)
class RoundRobinTable:
    """A cross table "row's win rate (%) against column", like the paper's Tables 2-4.

    Build it with :func:`round_robin_table`. Each ordered pair's :class:`Record` is from the row
    player's side; mirrored cells hold the same games.

    Attributes
    ----------
    players : tuple of str
        Row and column order.
    records : dict
        ``{(row, column): Record}`` for every ordered pair that played.
    rate : {"win_rate", "score"}
        What the cells show (see :attr:`Record.win_rate`, :attr:`Record.score`).
    alpha : float
        Significance level of the bold cells.
    alternative : {"greater", "two-sided", "less"}
        Alternative of the sign test (see :func:`summarize`).
    confidence : float
        Coverage of the intervals in :meth:`to_frame`.
    """

    players: tuple
    records: dict
    rate: str = "win_rate"
    alpha: float = 0.01
    alternative: str = "greater"
    confidence: float = 0.95

    def _matrix(self, value) -> pd.DataFrame:
        data = [[value(self.records[(r, c)]) if (r, c) in self.records else np.nan
                 for c in self.players] for r in self.players]
        return pd.DataFrame(data, index=pd.Index(self.players, name="player"),
                            columns=pd.Index(self.players, name="opponent"), dtype=float)

    @property
    def rates(self) -> pd.DataFrame:
        """Row's rate against column in percent; NaN on the diagonal and for unplayed pairs."""
        return self._matrix(lambda rec: 100.0 * rec.rate(self.rate))

    @property
    def p_values(self) -> pd.DataFrame:
        """p-values of the sign test (``alternative``) on each pairing's decisive games."""
        return self._matrix(lambda rec: binomial_test(rec.wins, rec.decisive, 0.5,
                                                      self.alternative))

    @property
    def significant(self) -> pd.DataFrame:
        """True where the row is significantly stronger than the column (the bold cells)."""
        flags = self._matrix(lambda rec: float(_significant(rec, self.alpha, self.alternative)))
        return flags.fillna(0.0).astype(bool)

    def to_frame(self) -> pd.DataFrame:
        """One line per ordered pair that played, in table order, with every statistic of
        :func:`summarize` (rates as fractions, not percent) -- the plain form for CSV files."""
        rows = [{"player": r, "opponent": c,
                 **summarize(self.records[(r, c)], self.confidence, self.alpha, self.alternative)}
                for r in self.players for c in self.players if (r, c) in self.records]
        columns = ["player", "opponent", "wins", "draws", "losses", "games", "win_rate",
                   "score", "wilson_low", "wilson_high", "cp_low", "cp_high", "p_two_sided",
                   "p_greater", "significant"]
        return pd.DataFrame(rows, columns=columns)

    def _labels(self, column_labels) -> list[str]:
        if column_labels is None:
            return list(self.players)
        if isinstance(column_labels, Mapping):
            return [str(column_labels.get(p, p)) for p in self.players]
        labels = [str(x) for x in column_labels]
        if len(labels) != len(self.players):
            raise ValueError(f"{len(labels)} column labels for {len(self.players)} players")
        return labels

    def to_markdown(self, decimals: int = 1, column_labels=None) -> str:
        """A Markdown table: ``-`` on the diagonal, empty for unplayed pairs, significant cells
        in **bold**, values rounded half up (:func:`format_percent`).

        Parameters
        ----------
        decimals : int
            Digits after the decimal point.
        column_labels : sequence or mapping, optional
            Column headers instead of the player names (the paper abbreviates them: PL, RE,
            TL, TD).
        """
        rates, bold = self.rates, self.significant
        labels = self._labels(column_labels)
        lines = ["| | " + " | ".join(labels) + " |",
                 "|---|" + "---:|" * len(labels)]
        for r in self.players:
            cells = []
            for c in self.players:
                value = rates.loc[r, c]
                if r == c:
                    cells.append("-")
                elif math.isnan(value):
                    cells.append("")
                else:
                    text = format_percent(value, decimals)
                    cells.append(f"**{text}**" if bold.loc[r, c] else text)
            lines.append(f"| {r} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"

    def style(self, decimals: int = 1, column_labels=None):
        """A :class:`pandas.io.formats.style.Styler` of :attr:`rates` with significant cells
        in bold (for notebooks; needs jinja2)."""
        rates = self.rates.copy()
        rates.columns = pd.Index(self._labels(column_labels), name="opponent")
        bold = self.significant.to_numpy()
        css = np.where(bold, "font-weight: bold", "")
        return (rates.style.format(precision=decimals, na_rep="-")
                .apply(lambda df: pd.DataFrame(css, index=df.index, columns=df.columns),
                       axis=None))


def round_robin_table(results: Mapping, players: Sequence[str] | None = None, *,
                      rate: str = "win_rate", alpha: float = 0.01,
                      alternative: str = "greater",
                      confidence: float = 0.95) -> RoundRobinTable:
    """Build a :class:`RoundRobinTable` from per-pairing results.

    Parameters
    ----------
    results : mapping
        ``{(player, opponent): Record or (wins, draws, losses)}`` from ``player``'s side. A
        pairing may be given in one direction or both (e.g. one entry per colour); both
        directions are merged.
    players : sequence of str, optional
        Row/column order (default: order of first appearance). Must contain every player named
        in ``results``; players without games get empty rows.
    rate : {"win_rate", "score"}
        ``"win_rate"``: the paper's ``wins / (wins + losses)``; ``"score"``: draws as half.
    alpha : float
        Significance level for bold cells (the paper: 0.01).
    alternative : {"greater", "two-sided", "less"}
        Sign test behind the bold cells (the paper's cells match ``"greater"``: see the module
        docstring).
    confidence : float
        Coverage of the intervals in :meth:`RoundRobinTable.to_frame`.
    """
    if rate not in RATES:
        raise ValueError(f"unknown rate {rate!r}; valid: {', '.join(RATES)}")
    _check_alternative(alternative)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {alpha!r}")
    _check_confidence(confidence)
    order, records = _pairings(results, players)
    return RoundRobinTable(order, records, rate, alpha, alternative, confidence)


# ---------------------------------------------------------------------------------------------
# Bradley-Terry / Elo


@dataclass(frozen=True)
class Ratings:
    """Elo ratings of several players.

    Attributes
    ----------
    players : tuple of str
    elo : numpy.ndarray
        Ratings; the anchor has ``anchor_elo`` (or, without an anchor, the mean is
        ``anchor_elo``).
    se : numpy.ndarray
        Standard errors (0 for the anchor): from the observed Fisher information
        (``method="wald"``) or the bootstrap standard deviation (``method="bootstrap"``).
    lower, upper : numpy.ndarray
        Confidence limits: ``elo -/+ z se`` (wald) or bootstrap percentiles.
    confidence : float
    method : {"wald", "bootstrap"}
    anchor : str or None
    """

    players: tuple
    elo: np.ndarray
    se: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    confidence: float
    method: str
    anchor: str | None

    def to_frame(self) -> pd.DataFrame:
        """One line per player: ``player, elo, se, lower, upper``."""
        return pd.DataFrame({"player": list(self.players), "elo": self.elo, "se": self.se,
                             "lower": self.lower, "upper": self.upper})


def _bt_arrays(order, records, prior_draws: float):
    """Games ``n[i, j]`` and points ``s[i, j]`` of i against j (plus virtual draws); ``records``
    may hold a pairing in one direction or in both (consistent) directions."""
    index = {p: i for i, p in enumerate(order)}
    m = len(order)
    n = np.zeros((m, m))
    s = np.zeros((m, m))
    for (a, b), rec in records.items():
        i, j = index[a], index[b]
        n[i, j] = n[j, i] = rec.games + prior_draws
        s[i, j] = rec.points + prior_draws / 2.0
        s[j, i] = rec.games - rec.points + prior_draws / 2.0
    return n, s


def _reachable(adjacency: np.ndarray) -> np.ndarray:
    """Reflexive-transitive closure of a boolean adjacency matrix (repeated squaring)."""
    reach = adjacency | np.eye(len(adjacency), dtype=bool)
    while True:
        step = reach.astype(np.int64)
        nxt = (step @ step) > 0
        if np.array_equal(nxt, reach):
            return reach
        reach = nxt


def _check_identifiable(order, n, s) -> None:
    """The likelihood has a finite maximum iff the "scored against" graph is strongly
    connected (Ford 1957; Hunter 2004)."""
    m = len(order)
    reach = _reachable(s > 0)
    if reach.all():
        return
    linked = _reachable(n > 0)
    if not linked.all():
        group = [order[j] for j in np.flatnonzero(linked[0])]
        raise ValueError(f"ratings are not identifiable: the players {group} have no games "
                         f"(direct or indirect) against the others")
    same = reach & reach.T
    # a component no outsider scored against exists: the condensation of a graph is acyclic
    group = next(np.flatnonzero(same[i]) for i in range(m)
                 if not (s[np.ix_(~same[i], same[i])] > 0).any())
    names = [order[j] for j in group]
    raise ValueError(f"ratings are not identifiable: the players {names} won every game "
                     f"against the other players, so their maximum-likelihood ratings "
                     f"are unbounded; play more games or pass prior_draws > 0")


def _log_likelihood(theta, s) -> float:
    diff = theta[:, None] - theta[None, :]
    return float(-(s * np.logaddexp(0.0, -diff)).sum())


def _fit_theta(n, s, fixed: int):
    """Newton's method with backtracking on the concave log-likelihood, ``theta[fixed] = 0``.

    Stops when the Newton decrement :math:`g^T H^{-1} g` (twice the predicted gain) is below
    1e-14 of the log-likelihood: the step is then at the level of rounding noise. Returns the
    MLE ``theta`` and the observed information (minus the Hessian) at it.
    """
    m = len(n)
    free = np.array([i for i in range(m) if i != fixed], dtype=np.int64)
    theta = np.zeros(m)
    current = _log_likelihood(theta, s)
    for _ in range(500):
        info, grad = _information(theta, n, s)
        step = np.zeros(m)
        step[free] = np.linalg.solve(info[np.ix_(free, free)], grad[free])
        if grad[free] @ step[free] <= 1e-14 * max(1.0, abs(current)):
            theta = theta + step            # a last, tiny, full Newton step
            return theta, _information(theta, n, s)[0]
        t = 1.0
        while True:
            candidate = theta + t * step
            value = _log_likelihood(candidate, s)
            if value >= current or t < 1e-12:
                break
            t *= 0.5
        theta, current = candidate, value
    raise RuntimeError("Bradley-Terry Newton iterations did not converge")


def _information(theta, n, s):
    """Observed information (minus the Hessian) and gradient of the log-likelihood."""
    prob = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))    # P(i beats j)
    weight = n * prob * prob.T
    return np.diag(weight.sum(axis=1)) - weight, (s - n * prob).sum(axis=1)


def _fit_elo(order, records, anchor, anchor_elo, prior_draws):
    n, s = _bt_arrays(order, records, prior_draws)
    _check_identifiable(order, n, s)
    fixed = order.index(anchor) if anchor is not None else 0
    theta, info = _fit_theta(n, s, fixed)
    if anchor is None:
        theta = theta - theta.mean()
    return anchor_elo + ELO_PER_NAT * theta, info, n, s


def _check_rating_args(order, anchor, prior_draws, confidence):
    if anchor is not None and anchor not in order:
        raise ValueError(f"anchor {anchor!r} is not one of the players {list(order)}")
    if not (prior_draws >= 0.0 and math.isfinite(prior_draws)):
        raise ValueError(f"prior_draws must be a finite number >= 0, got {prior_draws!r}")
    if len(order) < 2:
        raise ValueError(f"ratings need at least two players, got {list(order)}")
    _check_confidence(confidence)


def bradley_terry(results: Mapping, players: Sequence[str] | None = None, *,
                  anchor: str | None = None, anchor_elo: float = 0.0,
                  prior_draws: float = 0.0, confidence: float = 0.95) -> Ratings:
    """Elo ratings by Bradley-Terry maximum likelihood.

    Maximizes :math:`\\sum_{i \\ne j} s_{ij} \\log \\sigma(\\theta_i - \\theta_j)` where
    :math:`s_{ij}` are i's points against j (draws half), :math:`\\sigma` the logistic function
    and :math:`R_i = 400 \\theta_i / \\ln 10`, by Newton's method with backtracking. Standard
    errors come from the observed Fisher information (the negative Hessian): with an anchor, the
    inverse of its other players' block; without, its pseudo-inverse (the covariance of ratings
    constrained to a fixed mean).

    Parameters
    ----------
    results : mapping
        ``{(player, opponent): Record or (wins, draws, losses)}`` as for
        :func:`round_robin_table`.
    players : sequence of str, optional
        Order of the output (default: first appearance).
    anchor : str, optional
        Player whose rating is fixed at ``anchor_elo`` (e.g. the reference engine). Default:
        the mean rating is ``anchor_elo``.
    anchor_elo : float
    prior_draws : float
        Virtual draws added to every pairing that played (a regularizer that keeps ratings
        finite when a player won or lost every game; 0 = plain maximum likelihood).
    confidence : float
        Coverage of ``lower``/``upper`` (``elo -/+ z se``).

    Raises
    ------
    ValueError
        If the ratings are not identifiable (a group of players won every game against the
        rest, or the players split into groups that never met).
    """
    order, records = _pairings(results, players)
    _check_rating_args(order, anchor, prior_draws, confidence)
    elo, info, _, _ = _fit_elo(order, records, anchor, anchor_elo, prior_draws)
    if anchor is None:
        cov = np.linalg.pinv(info)
    else:
        fixed = order.index(anchor)
        free = [i for i in range(len(order)) if i != fixed]
        cov = np.zeros_like(info)
        cov[np.ix_(free, free)] = np.linalg.inv(info[np.ix_(free, free)])
    se = ELO_PER_NAT * np.sqrt(np.clip(np.diag(cov), 0.0, None))
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    return Ratings(order, elo, se, elo - z * se, elo + z * se, confidence, "wald", anchor)


def bootstrap_ratings(results: Mapping, players: Sequence[str] | None = None, *,
                      n_boot: int = 1000, seed: int = 0, anchor: str | None = None,
                      anchor_elo: float = 0.0, prior_draws: float = 0.0,
                      confidence: float = 0.95) -> Ratings:
    """Elo ratings with bootstrap percentile intervals.

    Each replicate redraws every pairing's games from its observed win/draw/loss frequencies
    (multinomial, same number of games) and refits :func:`bradley_terry`. ``elo`` is the fit to
    the data, ``se`` the replicates' standard deviation, ``lower``/``upper`` their percentiles.

    Parameters
    ----------
    results, players, anchor, anchor_elo, prior_draws, confidence
        As for :func:`bradley_terry`.
    n_boot : int
        Replicates (>= 2).
    seed : int
        Seed of the resampling (same seed, same intervals).

    Raises
    ------
    ValueError
        As :func:`bradley_terry`, also when a replicate's ratings are unbounded (the message
        names the replicate; pass ``prior_draws > 0``).
    """
    order, records = _pairings(results, players)
    _check_rating_args(order, anchor, prior_draws, confidence)
    n_boot = _count(n_boot, "n_boot")
    if n_boot < 2:
        raise ValueError(f"n_boot must be at least 2, got {n_boot}")
    elo, _, _, _ = _fit_elo(order, records, anchor, anchor_elo, prior_draws)
    rng = np.random.default_rng(_count(seed, "seed"))
    pairs = [(a, b) for (a, b) in records if order.index(a) < order.index(b)]
    samples = np.empty((n_boot, len(order)))
    for r in range(n_boot):
        resampled = {}
        for a, b in pairs:
            rec = records[(a, b)]
            counts = rng.multinomial(rec.games, np.array([rec.wins, rec.draws, rec.losses])
                                     / rec.games)
            resampled[(a, b)] = Record(*counts)
        try:
            samples[r], _, _, _ = _fit_elo(order, resampled, anchor, anchor_elo, prior_draws)
        except ValueError as err:
            raise ValueError(f"bootstrap replicate {r}: {err}") from None
    tail = (1.0 - confidence) / 2.0 * 100.0
    lower, upper = np.percentile(samples, [tail, 100.0 - tail], axis=0)
    return Ratings(order, elo, samples.std(axis=0, ddof=1), lower, upper, confidence,
                   "bootstrap", anchor)

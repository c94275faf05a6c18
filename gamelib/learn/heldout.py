"""Intervals on held-out metrics by resampling whole games (a game bootstrap).

A held-out metric of a learned evaluation is a ratio of sums over the held-out positions,

.. math::

    m = \\frac{\\sum_g a_g}{\\sum_g n_g},

with :math:`a_g` the metric summed over the positions of held-out game :math:`g` (agreements,
J, a cross-entropy) and :math:`n_g` its positions. The positions of one game are not
independent (one opening, one plan, neighbouring positions), so the unit that is resampled is
the **game**: a bootstrap replicate draws :math:`G` games with replacement from the
:math:`G` held-out games and recomputes the ratio with them; the 95 % interval is the 2.5 and
97.5 percentiles of ``n_boot`` replicates (percentile bootstrap, "inverted CDF" order
statistics: no interpolation). Several evaluations measured on the same games share the same
replicates, so the interval of a **difference** between two of them is paired: what varies is
which games were held out, and each evaluation sees the same ones.

What the interval covers: the sampling of the held-out games, for the learned weights as they
are. It says nothing about how much another training run (other records, another order of the
mini-batches) would change the weights; with one run per learner, that variation is not
measured at all.

Deterministic on every CPU: the draws come from ``numpy.random.default_rng(seed)`` (PCG64
integers), and every sum is :func:`math.fsum` (correctly rounded, so independent of the order
and of the CPU's vector units); no BLAS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["GameBootstrap", "game_bootstrap", "per_game_sums"]


@dataclass(frozen=True)
class GameBootstrap:
    """Replicates of one or more ratio metrics over the same resampled games.

    Attributes
    ----------
    names : tuple of str
        One per metric (column).
    estimate : ndarray, shape (k,)
        :math:`\\sum_g a_g / \\sum_g n_g` on the games as they are.
    replicates : ndarray, shape (n_boot, k)
        The metric on each resample of games.
    confidence : float
    n_games : int
    seed : int
    """

    names: tuple
    estimate: np.ndarray
    replicates: np.ndarray
    confidence: float
    n_games: int
    seed: int

    def _index(self, name) -> int:
        if name not in self.names:
            raise ValueError(f"unknown metric {name!r}; known: {', '.join(self.names)}")
        return self.names.index(name)

    def _percentiles(self, values) -> tuple[float, float]:
        tail = (1 - self.confidence) / 2
        low, high = np.quantile(values, [tail, 1 - tail], method="inverted_cdf")
        return float(low), float(high)

    def interval(self, name) -> dict:
        """``{"estimate", "low", "high"}`` of one metric."""
        k = self._index(name)
        low, high = self._percentiles(self.replicates[:, k])
        return {"estimate": float(self.estimate[k]), "low": low, "high": high}

    def difference(self, first, second) -> dict:
        """The paired difference ``first - second``: estimate, percentile interval, and the
        share of replicates in which it is <= 0 (``share_not_above``) and >= 0
        (``share_not_below``), a bootstrap measure of how clearly it has a sign."""
        i, j = self._index(first), self._index(second)
        d = self.replicates[:, i] - self.replicates[:, j]
        low, high = self._percentiles(d)
        return {"estimate": float(self.estimate[i] - self.estimate[j]), "low": low,
                "high": high, "share_not_above": float(np.mean(d <= 0)),
                "share_not_below": float(np.mean(d >= 0))}


def _ratio(a: np.ndarray, n: np.ndarray) -> float:
    return math.fsum(a) / math.fsum(n)


def game_bootstrap(sums, counts, names=None, *, n_boot: int = 10_000, seed: int = 0,
                   confidence: float = 0.95) -> GameBootstrap:
    """Resample whole games and recompute ratio metrics (see the module docstring).

    Parameters
    ----------
    sums : array_like, shape (n_games,) or (n_games, k)
        :math:`a_g`: per game, the metric summed over its positions, one column per metric.
    counts : array_like, shape (n_games,) or (n_games, k)
        :math:`n_g`: per game, the positions it contributes (one column for all metrics, or
        one per metric); every resample must have a positive total.
    names : sequence of str, optional
        Metric names (default ``"0", "1", ...``).
    n_boot : int
        Replicates.
    seed : int
        Seed of the resampling; the same seed gives the same replicates.
    confidence : float in (0, 1)

    Returns
    -------
    GameBootstrap
    """
    a = np.asarray(sums, dtype=np.float64)
    a = a[:, None] if a.ndim == 1 else a
    n = np.asarray(counts, dtype=np.float64)
    n = n[:, None] if n.ndim == 1 else n
    if a.ndim != 2 or a.shape[0] < 1:
        raise ValueError(f"sums must have shape (n_games,) or (n_games, k), got {a.shape}")
    if n.shape[0] != a.shape[0] or n.shape[1] not in (1, a.shape[1]):
        raise ValueError(f"counts have shape {n.shape}, sums {a.shape}: need one count per game "
                         "(or per game and metric)")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(n))) or np.any(n < 0):
        raise ValueError("sums must be finite and counts finite and >= 0")
    if np.any(n.sum(axis=0) <= 0):
        raise ValueError("a metric has no positions: its counts sum to 0")
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    k = a.shape[1]
    names = tuple(str(i) for i in range(k)) if names is None else tuple(names)
    if len(names) != k or len(set(names)) != k:
        raise ValueError(f"need {k} distinct names, got {names!r}")
    n = np.broadcast_to(n, a.shape)
    g = a.shape[0]
    draws = np.random.default_rng(seed).integers(0, g, size=(n_boot, g))
    reps = np.empty((n_boot, k))
    for b in range(n_boot):
        idx = draws[b]
        for j in range(k):
            total = math.fsum(n[idx, j])
            if total <= 0:
                raise ValueError(f"a resample of the games has no positions for metric "
                                 f"{names[j]!r}; use more games")
            reps[b, j] = math.fsum(a[idx, j]) / total
    estimate = np.array([_ratio(a[:, j], n[:, j]) for j in range(k)])
    return GameBootstrap(names, estimate, reps, float(confidence), g, int(seed))


def per_game_sums(values, games) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-position values summed by game: ``(game ids sorted, sums, positions per game)``
    (each sum by :func:`math.fsum`), the :math:`a_g` and :math:`n_g` of :func:`game_bootstrap`."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    games = np.asarray(games).reshape(-1)
    if values.shape != games.shape:
        raise ValueError(f"{values.size} values for {games.size} game ids")
    ids, inverse, counts = np.unique(games, return_inverse=True, return_counts=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(counts)])
    sums = np.array([math.fsum(values[order[bounds[i]:bounds[i + 1]]]) for i in range(ids.size)])
    return ids, sums, counts

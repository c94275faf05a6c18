"""Matches between two gamelib Othello players, in pairs of games from one random opening.

:func:`play_match` plays ``n_pairs`` random openings (``opening_plies`` uniformly random legal
moves from the start position), each once with the first player as Black and once as White,
with the players of :mod:`gamelib.othello.players` (or any object with their ``choose``), and
reports wins, draws and losses from the first player's view with 95 % intervals
(:class:`MatchResult`, :mod:`gamelib.play.stats`). Every random choice (openings, random moves,
tie-breaks between equal moves) is drawn from a generator derived from the seed:
``derive_rng(seed, "opening", pair)`` for the opening and ``derive_rng(seed, "game", pair,
colour)`` for the players' choices in each of its games, so a match is reproducible game by
game, however many workers play it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gamelib.othello.players import play_game, random_opening
from gamelib.play.stats import Record, summarize, wilson_interval
from gamelib.runtime import derive_rng, map_ordered

__all__ = ["MatchResult", "play_match"]


@dataclass
class MatchResult:
    """Results of player ``a`` against player ``b`` (from ``a``'s view).

    ``nodes`` and ``seconds`` add up the search effort of ``a``'s moves (0 for a random
    player); ``table_probes`` and ``table_hits`` are the value-table look-ups and hits of ``a``
    and of ``b``; ``games`` lists the games in the order played (pair ``i``: games ``2i`` with
    ``a`` as Black and ``2i + 1`` with ``a`` as White).
    """

    a: str
    b: str
    record: Record
    nodes: int = 0
    seconds: float = 0.0
    games: list = field(repr=False, default_factory=list)
    table_probes: tuple = (0, 0)
    table_hits: tuple = (0, 0)

    def summary(self, confidence: float = 0.95) -> dict:
        """Counts, the win rate ``wins / (wins + losses)`` with Wilson and Clopper-Pearson
        intervals, exact sign-test p-values (see :func:`gamelib.play.stats.summarize`), and the
        score ``(wins + draws / 2) / games`` with its Wilson interval."""
        rec = self.record
        lo, hi = wilson_interval(rec.points, rec.games, confidence)
        return {"player": self.a, "opponent": self.b, **summarize(rec, confidence),
                "score_low": lo, "score_high": hi}


def _play_one(job):
    """One game of a match (a module-level function, so that it can run in a worker)."""
    a, b, opening, colour, seed, pair = job
    black, white = (a, b) if colour == 0 else (b, a)
    return play_game(black, white, opening, derive_rng(seed, "game", pair, colour))


def play_match(a, b, n_pairs: int, opening_plies: int = 4, seed: int = 0,
               workers: int | None = 1, progress: bool = False) -> MatchResult:
    """``2 * n_pairs`` games of ``a`` against ``b``: each random opening is played twice, with
    ``a`` as Black and then as White.

    Parameters
    ----------
    a, b : players
    n_pairs : int
        Number of openings.
    opening_plies : int
        Random plies played before the players take over (0 = every game from the start).
    seed : int
        Opening ``i`` is drawn from ``derive_rng(seed, "opening", i)``, the players' random
        choices in its games from ``derive_rng(seed, "game", i, colour)``: the games do not
        depend on ``workers``.
    workers : int or None
        Passed to :func:`gamelib.runtime.map_ordered` (1 = in this process; None = all
        local cores).
    progress : bool
        Show a tqdm bar over the games.
    """
    if isinstance(n_pairs, bool) or not isinstance(n_pairs, (int, np.integer)) or n_pairs < 1:
        raise ValueError(f"n_pairs must be a positive integer, got {n_pairs!r}")
    if opening_plies < 0:
        raise ValueError(f"opening_plies must be >= 0, got {opening_plies}")
    jobs = []
    for i in range(n_pairs):
        opening = random_opening(opening_plies, derive_rng(seed, "opening", i))
        jobs += [(a, b, opening, colour, seed, i) for colour in (0, 1)]
    games = map_ordered(_play_one, jobs, workers, progress=progress,
                        desc=f"{a.name} vs {b.name}")
    outcomes, nodes, seconds = [], 0, 0.0
    probes, hits = [0, 0], [0, 0]
    for (_, _, _, colour, _, _), game in zip(jobs, games):
        diff = game.black_discs - game.white_discs
        outcomes.append(int(np.sign(diff if colour == 0 else -diff)))
        nodes += game.nodes[colour]
        seconds += game.seconds[colour]
        for k, side in enumerate((colour, 1 - colour)):  # a's side, then b's
            probes[k] += game.table_probes[side]
            hits[k] += game.table_hits[side]
    return MatchResult(a.name, b.name, Record.from_outcomes(outcomes), nodes, seconds, games,
                       tuple(probes), tuple(hits))

"""What every Elo ladder anchored to an engine shares: the report frames of its match records and
its figure, whatever the game.

A ladder is a set of matches between named players: an engine at several strengths (its
*rungs*, e.g. Fairy-Stockfish at several node budgets, :mod:`gamelib.experiments.fsf_ladder`,
or GRhino at several levels, :mod:`gamelib.experiments.othello_ladder`), each rung against the
next, and our players each against every rung. :func:`ladder_frames` turns the match records
into

* the ratings: one Bradley-Terry fit (:func:`gamelib.play.stats.bradley_terry`, 95 % Wald
  intervals) with one rung fixed at 0 Elo and ``prior_draws`` virtual draws per pairing (so that
  a player who lost every game still has a finite rating), sorted from the strongest, with the
  games each player played;
* the ladder: one line per pairing with a rung -- the first player's ``games, wins, draws,
  losses, score`` and its performance rating in that pairing (the rung's rating plus the Elo
  difference of the score, with the score's 95 % interval,
  :func:`gamelib.play.match_stats.elo_interval`);

and :func:`plot_ladder` draws the ratings, the rungs in another colour. :class:`LadderReport` is
what a ladder's run returns, and :func:`write_report` writes its files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from gamelib.play.match_stats import elo_interval
from gamelib.play.stats import bradley_terry

__all__ = ["LADDER_COLUMNS", "RATING_COLUMNS", "LadderReport", "ladder_frames", "plot_ladder",
           "write_report", "read_report", "play_pairings"]

#: The columns of a ladder frame, ``rung`` standing for the rung's column (e.g. ``fsf_nodes``).
LADDER_COLUMNS = ("player", "rung", "games", "wins", "draws", "losses", "score", "elo", "elo_low",
                  "elo_high")
#: The columns of a ratings frame.
RATING_COLUMNS = ("player", "elo", "se", "lower", "upper", "games")


def ladder_frames(records: Mapping[tuple[str, str], Any], players: Sequence[str],
                  rungs: Mapping[str, Any], anchor: str, prior_draws: float,
                  rung_column: str = "rung") -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ladder and the ratings frames of a ladder's match records.

    Parameters
    ----------
    records : mapping
        ``{(first, second): Record}`` (:class:`gamelib.play.stats.Record`, the first player's
        wins, draws and losses), in the order the ladder lists its pairings.
    players : sequence of str
        Every player, in the order of the fit (players of equal rating keep this order).
    rungs : mapping
        ``{rung player's name: its label}`` (e.g. ``{"fsf-1000": 1000}``): the ladder has a
        line for every pairing whose second player is a rung, with the label in ``rung_column``.
    anchor : str
        The player fixed at 0 Elo (one of ``rungs``).
    prior_draws : float
        Virtual draws added to every pairing.
    rung_column : str
        The name of the ladder's column of rung labels.

    Returns
    -------
    ladder : DataFrame
        ``player, <rung_column>, games, wins, draws, losses, score, elo, elo_low, elo_high``.
    ratings : DataFrame
        ``player, elo, se, lower, upper, games``, the strongest first.

    Raises
    ------
    ValueError
        When ``anchor`` is not a rung (and from the fit, when the ratings are not identifiable).
    """
    if anchor not in rungs:
        raise ValueError(f"the anchor {anchor!r} is not one of the rungs {list(rungs)}")
    ratings = bradley_terry(records, list(players), anchor=anchor, prior_draws=float(prior_draws))
    rating = dict(zip(ratings.players, ratings.elo))
    games = {p: sum(r.games for (a, b), r in records.items() if p in (a, b)) for p in players}
    rows = []
    for (a, b), rec in records.items():
        if b not in rungs:
            continue
        elo, lo, hi = elo_interval(rec)
        rows.append({"player": a, rung_column: rungs[b], "games": rec.games, "wins": rec.wins,
                     "draws": rec.draws, "losses": rec.losses, "score": rec.score,
                     "elo": rating[b] + elo, "elo_low": rating[b] + lo, "elo_high": rating[b] + hi})
    columns = [rung_column if c == "rung" else c for c in LADDER_COLUMNS]
    ladder = pd.DataFrame(rows, columns=columns)
    frame = ratings.to_frame()
    frame["games"] = [games[p] for p in frame["player"]]
    # players of equal strength (the same results) get ratings equal up to the last bits, which
    # the fit's linear algebra (LAPACK, chosen by the CPU) sets: sorted on the rating to 1e-6,
    # ties stay in the order the players are listed, on every machine
    order = frame["elo"].round(6).sort_values(ascending=False, kind="stable").index
    frame = frame.loc[order].reset_index(drop=True)
    return ladder, frame


def plot_ladder(ratings: pd.DataFrame, anchor: str, rungs, *, engine: str, title: str,
                subtitle: str | None = None, ours: str = "gamelib players"):
    """The ratings (a frame of :func:`ladder_frames`) with their 95 % intervals, the rungs in
    another colour (0.32 inch a player, for 10 players at least).

    Parameters
    ----------
    ratings : DataFrame
    anchor : str
        The player at 0 Elo (named on the x axis).
    rungs : collection of str
        The rungs' player names.
    engine : str
        The legend's label of the rungs (e.g. ``"Fairy-Stockfish 11.1 (nodes)"``).
    title : str
        The figure's title; ``subtitle`` is a second line (which run it is).
    ours : str
        The legend's label of the other players.
    """
    import matplotlib.pyplot as plt

    frame = ratings.iloc[::-1]
    # the height of 10 players at least: below it the legend would cover the axis's label
    fig, ax = plt.subplots(figsize=(6.5, 0.32 * max(len(frame), 10) + 1.2))
    rung = frame["player"].isin(list(rungs)).to_numpy()
    y = np.arange(len(frame))
    for mask, color, label in ((rung, "tab:red", engine), (~rung, "tab:blue", ours)):
        ax.errorbar(frame["elo"][mask], y[mask], xerr=[(frame["elo"] - frame["lower"])[mask],
                                                       (frame["upper"] - frame["elo"])[mask]],
                    fmt="o", color=color, capsize=3, label=label)
    ax.set_yticks(y, frame["player"])
    ax.axvline(0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel(f"Elo ({anchor} = 0, 95 % interval)")
    ax.set_title(title if subtitle is None else f"{title}\n{subtitle}", fontsize=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize=8, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


@dataclass(frozen=True)
class LadderReport:
    """What a ladder's run produced: ``ladder`` and ``ratings`` (the frames of ``ladder.csv`` and
    ``ratings.csv``) and ``timings`` (seconds per stage)."""

    ladder: Any
    ratings: Any
    timings: dict


def write_report(out, ladder: pd.DataFrame, ratings: pd.DataFrame, figure) -> None:
    """``ladder.csv``, ``ratings.csv`` and ``ladder.png`` (the figure) in the run folder ``out``,
    each written atomically."""
    from pathlib import Path

    from gamelib.runtime.report import write_csv, write_figure

    write_csv(out, "ladder.csv", ladder)
    write_csv(out, "ratings.csv", ratings)
    write_figure(figure, Path(out) / "ladder.png")


def read_report(folder, experiment: str, check_sizes, expect: Mapping[str, Any] | None = None):
    """``(LadderReport, sizes)`` of a ladder's finished run in ``folder`` from its ``ladder.csv``
    and ``ratings.csv`` (:func:`gamelib.experiments.run_folder.read_run`, which names what it
    refuses: another experiment's run, other sizes than ``expect``, missing files)."""
    from gamelib.experiments.run_folder import read_run

    frames, sizes, timings, _ = read_run(folder, experiment, ("ladder.csv", "ratings.csv"),
                                         check_sizes, expect)
    return LadderReport(frames["ladder"], frames["ratings"], timings), sizes


def play_pairings(out, todo: Sequence[tuple[str, str]], play: Callable, games_in: Callable,
                  n_games: int, rung_prefix: str, progress: bool = False):
    """Every pairing ``(a, b)`` of ``todo``, resumed from ``out/matches/<a>__<b>``:
    ``play(a, b, folder)`` plays (or finishes) it and returns a result with its ``record``;
    ``games_in(folder)`` counts the games already there. Returns ``(records, seconds)``: the
    records by pairing, and for each outside engine's rung (a name starting ``rung_prefix``) the
    wall seconds per game of our players against it, over the pairings that played games in
    this call."""
    import time
    from pathlib import Path

    records, seconds = {}, {}
    for k, (a, b) in enumerate(todo):
        folder = Path(out) / "matches" / f"{a}__{b}"
        before = games_in(folder)
        t = time.perf_counter()
        if progress:
            print(f"[{k + 1}/{len(todo)}] {a} vs {b}", flush=True)
        result = play(a, b, folder)
        played = n_games - before
        if played and b.startswith(rung_prefix) and not a.startswith(rung_prefix):
            seconds.setdefault(b, []).append((time.perf_counter() - t) / played)
        records[(a, b)] = result.record
    return records, seconds

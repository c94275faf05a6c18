"""Summaries of a run: round-robin tables beside the paper's, win-rate curves against the
reference with Wilson intervals, an Elo rating of every checkpoint, and the health of the
self-play games."""

from __future__ import annotations

import numpy as np

from gamelib.experiments.pgleaf.config import (ALGORITHM_LABELS, ALGORITHMS, COLUMN_LABELS,
                                               PGLeafConfig, nearest_point)
from gamelib.experiments.pgleaf.paper import PAPER_TABLES, paper_table_markdown


def pair_records(frame, **where) -> dict:
    """``{(player, opponent): Record}`` of the round-robin rows of ``frame`` where every column
    of ``where`` has its value (e.g. ``games=1000``), the replicates' games summed."""
    from gamelib.play.stats import Record

    sel = frame
    for key, value in where.items():
        sel = sel[sel[key] == value]
    out = {}
    for row in sel.itertuples(index=False):
        key = (row.player, row.opponent)
        out[key] = out.get(key, Record(0)) + Record(int(row.wins), int(row.draws), int(row.losses))
    return out


#: Self-play health is measured over this many games before the point.
HEALTH_WINDOW = 1000


def selfplay_health(training, games: int, window: int = HEALTH_WINDOW):
    """The health of every run's self-play over its ``window`` games up to ``games``: a row per
    (``algorithm``, ``reward``, ``replicate``) with ``sente_share`` (sente's wins among the
    games), ``mean_plies`` and ``mirror_rate`` (the share of gote's moves that copied sente's
    last move mirrored), from the ``training`` frame of a report."""
    import pandas as pd

    last = training[(training.games > games - window) & (training.games <= games)]
    sums = last.groupby(["algorithm", "reward", "replicate"])[
        ["sente_wins", "gote_wins", "draws", "plies", "mirror_replies", "gote_moves"]].sum()
    n = (sums.sente_wins + sums.gote_wins + sums.draws).clip(lower=1)
    return pd.DataFrame({"sente_share": sums.sente_wins / n, "mean_plies": sums.plies / n,
                         "mirror_rate": sums.mirror_replies / sums.gote_moves.clip(lower=1)}
                        ).reset_index()


def round_robin_table(frame, games: int, replicate: int | None = None):
    """The :class:`~gamelib.play.stats.RoundRobinTable` after ``games`` games: one replicate's,
    or all replicates' games pooled (``replicate=None``). Player names are the paper's."""
    from gamelib.play.stats import round_robin_table as rr_table

    where = {"games": games} if replicate is None else {"games": games, "replicate": replicate}
    # each game is listed from both sides: keep one direction per pair
    records = {k: v for k, v in pair_records(frame, **where).items()
               if ALGORITHMS.index(k[0]) < ALGORITHMS.index(k[1])}
    named = {(ALGORITHM_LABELS[a], ALGORITHM_LABELS[b]): rec for (a, b), rec in records.items()}
    order = [ALGORITHM_LABELS[a] for a in ALGORITHMS if ALGORITHM_LABELS[a] in
             {x for pair in named for x in pair}]
    return rr_table(named, order)


def round_robin_markdown(frame, config: PGLeafConfig, games: int) -> str:
    """Our round-robin after ``games`` games (replicates pooled, :func:`round_robin_table`) in
    Markdown, above the paper's table after the nearest number of games (Tables 2-4)."""
    paper_point = nearest_point(PAPER_TABLES, games)
    return (f"**Ours after {games:,} games** ({config.replicates} replicate(s) pooled, "
            f"{config.round_robin_games} games per pairing and replicate)\n\n"
            + round_robin_table(frame, games).to_markdown(column_labels=COLUMN_LABELS)
            + f"\n**The paper after {paper_point:,} games** (400 games per pairing)\n\n"
            + paper_table_markdown(paper_point))


def curves(frame, confidence: float = 0.95):
    """Win rates against the reference per (games, algorithm, reward): each replicate and the
    replicates pooled (``replicate = -1``), with Wilson intervals on the decisive games (the
    paper's rate leaves draws out) and the score (draws as half)."""
    import pandas as pd
    from gamelib.play.stats import Record, wilson_interval

    rows = []
    pooled = frame.groupby(["games", "algorithm", "reward"], sort=False)[
        ["wins", "draws", "losses"]].sum().reset_index()
    pooled["replicate"] = -1
    for row in pd.concat([frame, pooled], ignore_index=True).itertuples(index=False):
        rec = Record(int(row.wins), int(row.draws), int(row.losses))
        lo, hi = wilson_interval(rec.wins, rec.decisive, confidence)
        rows.append({"games": int(row.games), "algorithm": row.algorithm, "reward": row.reward,
                     "replicate": int(row.replicate), "wins": rec.wins, "draws": rec.draws,
                     "losses": rec.losses, "win_rate": rec.win_rate, "low": lo, "high": hi,
                     "score": rec.score})
    return pd.DataFrame(rows)


def plot_curves(curve_frame, reward: str, ax=None, replicate: int = -1):
    """Win rate (%) against the reference over training for every algorithm (Fig. 1: MDP,
    Fig. 2: non-MDP), with the intervals of :func:`curves` as error bars."""
    import matplotlib
    import matplotlib.pyplot as plt

    if ax is None:
        ax = plt.subplots()[1]
    sel = curve_frame[(curve_frame.reward == reward) & (curve_frame.replicate == replicate)]
    for k, algo in enumerate(ALGORITHMS):
        c = sel[sel.algorithm == algo].sort_values("games")
        if c.empty:
            continue
        x = c.games.to_numpy(float)
        y = 100 * c.win_rate.to_numpy(float)
        err = 100 * np.vstack([c.win_rate - c.low, c.high - c.win_rate])
        ax.errorbar(x * (1 + 0.03 * (k - 1.5)), y, yerr=err, marker="o", ms=4,
                    capsize=3, label=ALGORITHM_LABELS[algo], color=f"C{k}")
    ax.set_xscale("symlog", linthresh=max(1.0, float(sel.games[sel.games > 0].min()
                                                     if (sel.games > 0).any() else 1)))
    points = sorted(set(int(g) for g in sel.games))
    ax.set_xticks(points, [f"{g:,}" for g in points])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlabel("self-play games")
    ax.set_ylabel("win rate against the reference (%)")
    ax.set_ylim(-2, 102)
    ax.set_title(f"{'MDP' if reward == 'mdp' else 'non-MDP'} rewards")
    ax.legend(fontsize=8)
    return ax


def elo(round_robin_frame, gauntlet_frame, prior_draws: float = 1.0):
    """Elo ratings of every checkpoint that played (``"<run key>@<games>"``; the initial
    parameters ``"initial/<replicate>@0"``), the reference fixed at 0, from all round-robin and
    gauntlet games (Bradley-Terry, with ``prior_draws`` virtual draws per pairing)."""
    from gamelib.play.stats import Record, bradley_terry

    results = {}
    for row in gauntlet_frame.itertuples(index=False):
        name = f"initial/{row.replicate}@0" if row.games == 0 else f"{row.run}@{row.games}"
        results[(name, "reference")] = Record(int(row.wins), int(row.draws), int(row.losses))
    for row in round_robin_frame.itertuples(index=False):
        if ALGORITHMS.index(row.player) < ALGORITHMS.index(row.opponent):
            a = f"{row.player}/mdp/{row.replicate}@{row.games}"
            b = f"{row.opponent}/mdp/{row.replicate}@{row.games}"
            results[(a, b)] = results.get((a, b), Record(0)) + \
                Record(int(row.wins), int(row.draws), int(row.losses))
    return bradley_terry(results, anchor="reference", prior_draws=prior_draws).to_frame()

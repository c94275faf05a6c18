"""The page *Results at a glance*: every number of the sources' tables beside ours, read from the
committed paper-scale runs when the book is built.

* :func:`pgleaf_tables_beside_paper` -- Morioka & Igarashi's Tables 2-4 (the round-robins after
  1,000, 10,000 and 100,000 self-play games, MDP reward), each of the paper's cells beside the
  win rate of each committed configuration (replicates pooled, draws left out as the paper
  counts; :func:`gamelib.book.pgleaf_pages.pairings_beside_paper`);
* :func:`othello_table2_beside_paper` -- the Othello value-network paper's Table 2 (n, wins and
  v(s) of its seven states) beside the value table we build from the WTHOR records
  (``data/results/paper/othello_value/table2.csv``).

The verdicts of the PGLeaf paper's claims are :func:`gamelib.book.claims.verdict_grid`.
"""

from __future__ import annotations

import re
from pathlib import Path

from gamelib.runtime.paths import repo_root

__all__ = ["OTHELLO_TABLE2", "short_label", "pgleaf_tables_beside_paper",
           "othello_table2_beside_paper"]

#: The Othello chapter's Table 2 file, relative to the repository root.
OTHELLO_TABLE2 = Path("data", "results", "paper", "othello_value", "table2.csv")


def short_label(label: str) -> str:
    """A configuration's label short enough for a table's header:
    ``"antisymmetric layout, TD β=12.8 (T_eff 0.384), 4-ply random openings"`` ->
    ``"antisymmetric, β=12.8, 4-ply openings"`` (the page gives the full labels)."""
    label = re.sub(r" \(T_eff [^)]*\)", "", label)
    return label.replace(" layout", "").replace("TD β", "β").replace(" random openings", " openings")


def pgleaf_tables_beside_paper(configs=None):
    """One row per cell of the paper's Tables 2-4: ``after_games``, ``pairing`` (row player vs
    column player), ``paper`` (the row player's win rate, a fraction), then one column per
    configuration (its label) with our pooled win rate of the same pairing; ``configs`` as
    :func:`gamelib.book.pgleaf_pages.configurations` returns them (default: the committed ones)."""
    from gamelib.book.pgleaf_pages import configurations, pairings_beside_paper

    configs = configurations() if configs is None else configs
    table = None
    for c in configs.values():
        ours = pairings_beside_paper(c.report.round_robin)[["after_games", "pairing", "paper",
                                                            "ours_pooled"]]
        ours = ours.rename(columns={"ours_pooled": c.label})
        table = ours if table is None else table.merge(ours, on=["after_games", "pairing", "paper"],
                                                       how="outer")
    if table is None:
        raise ValueError("pgleaf_tables_beside_paper: no committed configuration")
    return table.sort_values(["after_games", "pairing"], kind="stable").reset_index(drop=True)


def othello_table2_beside_paper(path: str | Path | None = None):
    """The paper's Table 2 beside ours, a row per state (named by its moves from the start):
    the paper's ``n``, ``wins`` and ``v``; ours counting every game with a draw as a non-win
    (``n``, ``wins``, ``v``, the paper's convention as its first row's numbers show) and, for
    comparison, ``v`` with the drawn games left out."""
    import pandas as pd

    t = pd.read_csv(repo_root() / OTHELLO_TABLE2 if path is None else Path(path))
    return pd.DataFrame({"moves": t.moves, "paper_n": t.paper_n, "paper_wins": t.paper_wins,
                         "paper_v": t.paper_v, "our_n": t.n_draws_as_0,
                         "our_wins": t.wins_draws_as_0, "our_v": t.v_draws_as_0,
                         "our_v_without_draws": t.v})

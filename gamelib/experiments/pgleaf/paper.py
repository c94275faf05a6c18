"""The paper's published numbers: Tables 2-4 (round-robins after 1,000, 10,000 and 100,000
games) with the cells printed in bold."""

from __future__ import annotations

import numpy as np

from gamelib.experiments.pgleaf.config import ALGORITHM_ABBREVIATIONS, ALGORITHM_LABELS, ALGORITHMS

#: The paper's Tables 2-4 (MDP, row's win rate % against the column; bold: significant at 1%).
PAPER_TABLES = {
    1000: {("pgleaf", "reinforce"): 77.0, ("pgleaf", "tdleaf"): 24.3, ("pgleaf", "td"): 42.0,
           ("reinforce", "tdleaf"): 10.5, ("reinforce", "td"): 16.8, ("tdleaf", "td"): 67.8},
    10_000: {("pgleaf", "reinforce"): 88.3, ("pgleaf", "tdleaf"): 44.1, ("pgleaf", "td"): 88.8,
             ("reinforce", "tdleaf"): 12.3, ("reinforce", "td"): 52.6, ("tdleaf", "td"): 89.3},
    100_000: {("pgleaf", "reinforce"): 76.2, ("pgleaf", "tdleaf"): 56.2, ("pgleaf", "td"): 87.9,
              ("reinforce", "tdleaf"): 16.0, ("reinforce", "td"): 31.3, ("tdleaf", "td"): 87.0},
}
#: Mirror cells the paper prints that are not 100 minus the cell above (Table 2, TD vs TDLeaf).
PAPER_MIRROR_EXCEPTIONS = {(1000, "td", "tdleaf"): 31.2}
#: Cells the paper prints in bold (row significantly stronger at the 1% level).
PAPER_BOLD = {
    1000: {("pgleaf", "reinforce"), ("tdleaf", "pgleaf"), ("tdleaf", "reinforce"),
           ("tdleaf", "td"), ("td", "pgleaf"), ("td", "reinforce")},
    10_000: {("pgleaf", "reinforce"), ("pgleaf", "td"), ("tdleaf", "reinforce"), ("tdleaf", "td")},
    100_000: {("pgleaf", "reinforce"), ("pgleaf", "tdleaf"), ("pgleaf", "td"),
              ("tdleaf", "reinforce"), ("tdleaf", "td"), ("td", "reinforce")},
}


def paper_table(games: int):
    """The paper's table after ``games`` games as a DataFrame (row's win % against column)."""
    import pandas as pd

    cells = PAPER_TABLES[games]
    algos = list(ALGORITHMS)
    data = np.full((4, 4), np.nan)
    for (a, b), v in cells.items():
        i, j = algos.index(a), algos.index(b)
        data[i, j] = v
        data[j, i] = PAPER_MIRROR_EXCEPTIONS.get((games, b, a), round(100.0 - v, 1))
    labels = [ALGORITHM_LABELS[a] for a in algos]
    return pd.DataFrame(data, index=pd.Index(labels, name="player"),
                        columns=pd.Index([ALGORITHM_ABBREVIATIONS[a] for a in algos],
                                         name="opponent"))


def paper_table_markdown(games: int) -> str:
    """The paper's table after ``games`` games in Markdown, bold cells as printed."""
    table = paper_table(games)
    algos = list(ALGORITHMS)
    lines = ["| | " + " | ".join(table.columns) + " |", "|---|" + "---:|" * len(algos)]
    for i, a in enumerate(algos):
        cells = []
        for j, b in enumerate(algos):
            if i == j:
                cells.append("-")
                continue
            text = f"{table.iloc[i, j]:.1f}"
            cells.append(f"**{text}**" if (a, b) in PAPER_BOLD[games] else text)
        lines.append(f"| {table.index[i]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"

"""The landing figure: the verdict of each of the paper's claims under each configuration.

It draws ``data/results/paper/pgleaf/claims_by_configuration.csv``, the family of tests of
:mod:`gamelib.experiments.pgleaf.verdicts` (the training run as the unit) applied to every
committed full-size configuration: one row per claim, one column per configuration, so a reader
sees at a glance which verdicts survive which of our choices.
"""

from __future__ import annotations

import re
from pathlib import Path

from gamelib.diagrams import Diagram, _fmt, attrs, escape, svg_document
from gamelib.experiments.pgleaf.verdicts import RATE_TESTS
from gamelib.runtime.paths import repo_root

__all__ = ["CLAIMS_TABLE", "VERDICT_STYLE", "claims_table", "claims_figure"]

#: The verdict table, relative to the repository root.
CLAIMS_TABLE = Path("data", "results", "paper", "pgleaf", "claims_by_configuration.csv")
#: verdict -> (badge symbol, colour).
VERDICT_STYLE = {
    "reproduced": ("✔", "#2e7d32"),
    "undecided": ("?", "#757575"),
    "contradicted": ("✘", "#c62828"),
}


def claims_table(path: str | Path | None = None):
    """The committed verdict table (columns of :data:`~gamelib.experiments.pgleaf.verdicts.COLUMNS`)."""
    import pandas as pd

    return pd.read_csv(repo_root() / CLAIMS_TABLE if path is None else Path(path))


def _statistic(test: str, value: float) -> str:
    """A win rate (the tests of ``RATE_TESTS``) as a percentage, a difference of win rates in
    points."""
    if test in RATE_TESTS:
        return f"{100 * value:.1f} %"
    return f"{100 * value:+.1f} pts".replace("-", "−")


def _header(name: str) -> list[str]:
    """A configuration's name on several lines: cut at each comma and before each parenthesis."""
    return re.split(r", | (?=\()", name)


def claims_figure(table=None, *, claim_width: float = 440, column: float = 150,
                  line: float = 30) -> Diagram:
    """A grid of verdict badges: a row per claim, a column per configuration, each badge with
    the claim's statistic (a win rate, or a difference of win rates in points, averaged over the
    replicates) and "k/n", the replicates on the claimed side; ``—`` where a configuration did
    not test the claim.

    ``table`` has the columns ``configuration, claim, test, verdict, statistic, replicates,
    replicates_for`` (default: :func:`claims_table`).
    """
    table = claims_table() if table is None else table
    if len(table) == 0:
        raise ValueError("claims_figure: the claims table is empty")
    unknown = sorted(set(table.verdict) - set(VERDICT_STYLE))
    if unknown:
        raise ValueError(f"claims_figure: unknown verdict(s) {unknown}; known: {sorted(VERDICT_STYLE)}")
    configurations = list(dict.fromkeys(table.configuration))
    claims = list(dict.fromkeys(table.claim))
    cells = {(r.configuration, r.claim): r for r in table.itertuples()}
    headers = {name: _header(name) for name in configurations}
    pad = 10.0
    top = 64.0 + 14 * max(len(h) for h in headers.values())
    width = 2 * pad + claim_width + column * len(configurations)
    parts = [f'<text{attrs(x=_fmt(pad), y="20")} font-size="15" font-weight="bold">'
             "The PGLeaf paper's claims under each configuration</text>",
             f'<text{attrs(x=_fmt(pad), y="38")} font-size="11.5" fill="#555">'
             "t-tests with the training run as the unit (mean over replicates shown), "
             "Holm's correction at 1 % over each configuration's claims</text>"]
    for j, name in enumerate(configurations):
        x = pad + claim_width + (j + 0.5) * column
        for k, text in enumerate(headers[name]):
            parts.append(f'<text{attrs(x=_fmt(x), y=_fmt(56 + 14 * k))} font-size="12" '
                         f'text-anchor="middle" font-weight="bold">{escape(text)}</text>')
    for i, claim in enumerate(claims):
        y = top + i * line
        if i % 2 == 0:
            parts.append(f'<rect{attrs(x=_fmt(pad), y=_fmt(y), width=_fmt(width - 2 * pad), height=_fmt(line), fill="#f4f4f4")}/>')
        parts.append(f'<text{attrs(x=_fmt(pad + 4), y=_fmt(y + line / 2 + 5))} font-size="13">'
                     f'{escape(claim)}</text>')
        for j, name in enumerate(configurations):
            x = pad + claim_width + j * column
            row = cells.get((name, claim))
            if row is None:
                parts.append(f'<text{attrs(x=_fmt(x + column / 2), y=_fmt(y + line / 2 + 5))} '
                             f'font-size="13" text-anchor="middle" fill="#999">—</text>')
                continue
            symbol, color = VERDICT_STYLE[row.verdict]
            parts.append(f'<g{attrs(class_="claim", data_verdict=row.verdict, data_configuration=name, data_claim=claim)}>'
                         f'<rect{attrs(x=_fmt(x + 8), y=_fmt(y + 4), width=_fmt(column - 16), height=_fmt(line - 8), rx="11", fill=color)}/>'
                         f'<text{attrs(x=_fmt(x + column / 2), y=_fmt(y + line / 2 + 5))} '
                         f'text-anchor="middle" font-size="12.5" fill="#fff">'
                         f'{escape(f"{symbol} {_statistic(row.test, row.statistic)} · {row.replicates_for}/{row.replicates}")}</text></g>')
    height = top + len(claims) * line + 8
    svg = svg_document(width, height, "".join(parts),
                       title="The PGLeaf paper's claims and their verdicts under each configuration")
    return Diagram(svg, width, height)

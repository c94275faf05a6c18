"""The landing figure: the verdict of each of the paper's claims under each configuration.

It draws ``data/results/paper/pgleaf/claims_by_configuration.csv``, the family of tests of
:mod:`gamelib.experiments.pgleaf.verdicts` (the training run as the unit) applied to every
committed full-size configuration: one row per claim, one column per configuration, so a reader
sees at a glance which verdicts survive which of our choices.
"""

from __future__ import annotations

import re
from pathlib import Path

from gamelib.diagrams import Diagram, _fmt, _wrap, attrs, escape, svg_document
from gamelib.experiments.pgleaf.verdicts import RATE_TESTS
from gamelib.runtime.paths import repo_root

__all__ = ["CLAIMS_TABLE", "VERDICT_STYLE", "claims_table", "claims_figure", "verdict_grid"]

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


def _header(name: str, width: float, size: float) -> list[str]:
    """A configuration's name on several lines: cut at each comma and before each parenthesis,
    and each part cut at spaces to fit ``width`` pixels at font size ``size``."""
    return [line for part in re.split(r", | (?=\()", name) for line in _wrap(part, width, size)]


#: Font sizes (CSS px at the figure's own width, which the book shows unscaled): none below 12.
TITLE_SIZE, TEXT_SIZE, HEADER_SIZE, BADGE_SIZE = 15, 13, 12, 12


def claims_figure(table=None, *, width: float = 700, column: float = 120,
                  line: float = 17) -> Diagram:
    """A grid of verdict badges: a row per claim, a column per configuration, each badge with
    the claim's statistic (a win rate, or a difference of win rates in points, averaged over the
    replicates) and "k/n", the replicates on the claimed side; ``—`` where a configuration did
    not test the claim.

    The figure is ``width`` pixels wide (the book's text column, so that it is shown at its own
    size and its text stays at least 12 px): the claims take what the ``column``-wide
    configuration columns leave (at least 180 px), wrapped onto lines of height ``line``.

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
    pad = 10.0
    claim_width = max(180.0, width - 2 * pad - column * len(configurations))
    width = 2 * pad + claim_width + column * len(configurations)
    headers = {name: _header(name, column - 6, HEADER_SIZE) for name in configurations}
    subtitle = _wrap("t-tests with the training run as the unit (mean over replicates shown), "
                     "Holm's correction at 1 % over each configuration's claims",
                     width - 2 * pad, HEADER_SIZE)
    parts = [f'<text{attrs(x=_fmt(pad), y="20")} font-size="{TITLE_SIZE}" font-weight="bold">'
             "The PGLeaf paper's claims under each configuration</text>"]
    for k, text in enumerate(subtitle):
        parts.append(f'<text{attrs(x=_fmt(pad), y=_fmt(38 + 15 * k))} font-size="{HEADER_SIZE}" '
                     f'fill="#555">{escape(text)}</text>')
    head = 38 + 15 * len(subtitle) + 8
    for j, name in enumerate(configurations):
        x = pad + claim_width + (j + 0.5) * column
        for k, text in enumerate(headers[name]):
            parts.append(f'<text{attrs(x=_fmt(x), y=_fmt(head + 10 + 14 * k))} font-size="{HEADER_SIZE}" '
                         f'text-anchor="middle" font-weight="bold">{escape(text)}</text>')
    y = head + 14 * max(len(h) for h in headers.values()) + 6
    for i, claim in enumerate(claims):
        lines = _wrap(claim, claim_width - 8, TEXT_SIZE)
        height = max(2 * line, len(lines) * line + 8)
        middle = y + height / 2
        if i % 2 == 0:
            parts.append(f'<rect{attrs(x=_fmt(pad), y=_fmt(y), width=_fmt(width - 2 * pad), height=_fmt(height), fill="#f4f4f4")}/>')
        first = middle - (len(lines) - 1) * line / 2 + 4.5
        for k, text in enumerate(lines):
            parts.append(f'<text{attrs(x=_fmt(pad + 4), y=_fmt(first + k * line))} '
                         f'font-size="{TEXT_SIZE}">{escape(text)}</text>')
        for j, name in enumerate(configurations):
            x = pad + claim_width + j * column
            row = cells.get((name, claim))
            if row is None:
                parts.append(f'<text{attrs(x=_fmt(x + column / 2), y=_fmt(middle + 4.5))} '
                             f'font-size="{TEXT_SIZE}" text-anchor="middle" fill="#999">—</text>')
                continue
            symbol, color = VERDICT_STYLE[row.verdict]
            parts.append(f'<g{attrs(class_="claim", data_verdict=row.verdict, data_configuration=name, data_claim=claim)}>'
                         f'<rect{attrs(x=_fmt(x + 4), y=_fmt(middle - 11), width=_fmt(column - 8), height="22", rx="11", fill=color)}/>'
                         f'<text{attrs(x=_fmt(x + column / 2), y=_fmt(middle + 4))} '
                         f'text-anchor="middle" font-size="{BADGE_SIZE}" fill="#fff">'
                         f'{escape(f"{symbol} {_statistic(row.test, row.statistic)} · {row.replicates_for}/{row.replicates}")}</text></g>')
        y += height
    height = y + 8
    svg = svg_document(width, height, "".join(parts),
                       title="The PGLeaf paper's claims and their verdicts under each configuration")
    return Diagram(svg, width, height)


def verdict_grid(table=None):
    """The figure's grid as a table (the page *Results at a glance*): a row per claim, a column
    per configuration, each cell the verdict, the claim's statistic and how many training runs
    fall on the claimed side (``"✔ reproduced, 73.6 %, 5 of 5"``); empty where a configuration
    did not test the claim."""
    import pandas as pd

    table = claims_table() if table is None else table
    cells = {}
    for r in table.itertuples():
        symbol = VERDICT_STYLE[r.verdict][0]
        cells.setdefault(r.claim, {})[r.configuration] = (
            f"{symbol} {r.verdict}, {_statistic(r.test, r.statistic)}, "
            f"{r.replicates_for} of {r.replicates}")
    configurations = list(dict.fromkeys(table.configuration))
    grid = pd.DataFrame.from_dict(cells, orient="index").reindex(columns=configurations)
    grid.index.name = "claim"
    return grid.fillna("")


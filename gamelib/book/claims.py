"""The landing figure: the paper's claims and their verdicts on the committed paper run."""

from __future__ import annotations

from pathlib import Path

from gamelib.diagrams import Diagram, _fmt, attrs, escape, svg_document
from gamelib.runtime.paths import repo_root

__all__ = ["PAPER_RUN", "VERDICT_STYLE", "claims_table", "claims_figure"]

#: The committed paper-profile run of the PGLeaf experiment, relative to the repository root.
PAPER_RUN = Path("data", "results", "paper", "pgleaf", "seed-0")
#: verdict -> (badge text, colour).
VERDICT_STYLE = {
    "reproduced": ("✔ reproduced", "#2e7d32"),
    "consistent": ("≈ consistent", "#558b2f"),
    "not significant": ("? not significant", "#757575"),
    "contradicted": ("✘ contradicted", "#c62828"),
}


def claims_table(run_dir: str | Path | None = None):
    """The claims of :func:`gamelib.experiments.pgleaf.claims` on a finished run's report files."""
    from gamelib.experiments import pgleaf

    folder = repo_root() / PAPER_RUN if run_dir is None else Path(run_dir)
    report, sizes = pgleaf.load_report(folder)
    return pgleaf.claims(report, sizes)


def claims_figure(table=None, *, width: float = 720, line: float = 58) -> Diagram:
    """One block per claim: a coloured verdict badge, the claim, the paper's and our numbers.

    ``table`` is a DataFrame with the columns ``claim``, ``paper``, ``ours``, ``verdict`` (default:
    :func:`claims_table` of the committed run).
    """
    table = claims_table() if table is None else table
    if len(table) == 0:
        raise ValueError("claims_figure: the claims table is empty")
    unknown = sorted(set(table.verdict) - set(VERDICT_STYLE))
    if unknown:
        raise ValueError(f"claims_figure: unknown verdict(s) {unknown}; known: {sorted(VERDICT_STYLE)}")
    badge_w, pad = 150.0, 10.0
    parts = [f'<text{attrs(x=_fmt(pad), y="20")} font-size="15" font-weight="bold">'
             "The PGLeaf paper's claims on our paper-profile run</text>"]
    for i, row in enumerate(table.itertuples()):
        y = 34 + i * line
        text, color = VERDICT_STYLE[row.verdict]
        parts.append(f'<g{attrs(class_="claim", data_verdict=row.verdict)}>'
                     f'<rect{attrs(x=_fmt(pad), y=_fmt(y + 6), width=_fmt(badge_w), height="24", rx="12", fill=color)}/>'
                     f'<text{attrs(x=_fmt(pad + badge_w / 2), y=_fmt(y + 22))} text-anchor="middle" '
                     f'font-size="13" fill="#fff">{escape(text)}</text>'
                     f'<text{attrs(x=_fmt(2 * pad + badge_w), y=_fmt(y + 17))} font-size="14">'
                     f'{escape(row.claim)}</text>'
                     f'<text{attrs(x=_fmt(2 * pad + badge_w), y=_fmt(y + 33))} font-size="11.5" fill="#555">'
                     f'{escape(f"paper: {row.paper}")}</text>'
                     f'<text{attrs(x=_fmt(2 * pad + badge_w), y=_fmt(y + 47))} font-size="11.5" fill="#555">'
                     f'{escape(f"ours: {row.ours}")}</text></g>')
    height = 34 + len(table) * line + 8
    svg = svg_document(width, height, "".join(parts),
                       title="The PGLeaf paper's claims and their verdicts")
    return Diagram(svg, width, height)

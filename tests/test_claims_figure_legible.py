"""The landing page's verdict grid is legible where the book shows it.

The book's text column is about 700 CSS pixels wide at the default window (1280 px); a wider
SVG is scaled down to it (``Diagram._repr_html_``), and the old 1,060-pixel grid showed its
12-pixel text at about 8 pixels. :func:`gamelib.book.claims.claims_figure` now lays the grid out
at the column's width, wrapping the claims and the configuration names, so that no text is
drawn below 12 px.
"""

import re
import xml.etree.ElementTree as ET

import pandas as pd

from gamelib.book import claims

SVG = "{http://www.w3.org/2000/svg}"
COLUMN = 700      # the book's text column at the default width, in CSS px


def _texts(svg):
    return [t for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_committed_grid_fits_the_column_with_text_of_12px_or_more():
    figure = claims.claims_figure()
    assert figure.width <= COLUMN, figure.width          # shown unscaled
    sizes = [float(t.get("font-size")) for t in _texts(figure.svg)]
    assert sizes and min(sizes) >= 12, sorted(set(sizes))


def test_long_claims_and_names_wrap_instead_of_running_into_the_badges():
    claim = "9 a claim long enough to need three lines in a narrow claim column of the grid"
    table = pd.DataFrame({"configuration": ["antisymmetric layout, TD β=12.8 (T_eff 0.384)"],
                          "claim": [claim], "test": ["one-sample t"], "verdict": ["reproduced"],
                          "statistic": [0.736], "replicates": [5], "replicates_for": [5]})
    figure = claims.claims_figure(table, width=400, column=120)
    texts = [t.text for t in _texts(figure.svg)]
    lines = [t for t in texts if t and t in claim]
    assert len(lines) >= 2 and " ".join(lines) == claim
    # every line of the claim fits its column (0.55 em per character at 13 px)
    claim_width = figure.width - 20 - 120
    assert all(len(line) * 0.55 * claims.TEXT_SIZE <= claim_width for line in lines)
    assert "antisymmetric" in texts and "layout" in texts     # the name wrapped to its column
    assert "✔ 73.6 % · 5/5" in texts
    assert re.search(r'width="\d+(\.\d+)?"', figure.svg)

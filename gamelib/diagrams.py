"""SVG diagrams for notebooks: a small SVG writer and :func:`row`, several diagrams side by side.

The board diagrams themselves are drawn by :mod:`gamelib.games.minishogi.svg` and
:mod:`gamelib.games.othello.svg`; ``Position`` and ``Board`` show them in Jupyter through
``_repr_svg_``. Everything here writes plain, well-formed SVG 1.1 text (no scripts, no external
resources), with every piece of text escaped, so a diagram can be embedded in HTML, saved to a
``.svg`` file or parsed with :mod:`xml.etree.ElementTree`.

Examples
--------
>>> from gamelib.games.minishogi import Position
>>> pos = Position(); pos.push_usi("2e3d")
>>> strip = row([Position(), pos], captions=["start", "after 2e3d"])
>>> strip.width > 0 and strip._repr_svg_().startswith("<svg")
True
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from xml.sax.saxutils import escape as _escape

__all__ = ["Diagram", "escape", "attrs", "arrow", "row", "svg_document", "FONT"]

SVG_NS = "http://www.w3.org/2000/svg"
#: Font stack of every diagram: CJK fonts first, for the shogi kanji, as the common systems
#: name them (Linux: Noto/Source Han/IPA/WenQuanYi; macOS: Hiragino; Windows: Yu Gothic,
#: Meiryo, MS Gothic), then Latin ones. A browser with none of them draws empty boxes for the
#: kanji: ``position_svg(..., letters=True)`` draws the SFEN letters instead, and
#: :func:`gamelib.games.minishogi.svg.piece_legend` lists kanji, letters and names under a chapter's
#: first board.
FONT = ("'Noto Sans CJK JP', 'Noto Sans JP', 'Source Han Sans JP', 'Hiragino Sans', "
        "'Hiragino Kaku Gothic ProN', 'Yu Gothic', 'Meiryo', 'MS Gothic', 'IPAGothic', "
        "'WenQuanYi Zen Hei', 'Noto Sans CJK SC', 'DejaVu Sans', sans-serif")


def escape(text) -> str:
    """``text`` as SVG/XML character data or attribute value (``& < > " '`` escaped)."""
    return _escape(str(text), {'"': "&quot;", "'": "&apos;"})


def attrs(**kwargs) -> str:
    """`` key="value"`` pairs (escaped; ``_`` in a key becomes ``-``; ``None`` values left out)."""
    return "".join(f' {k.rstrip("_").replace("_", "-")}="{escape(v)}"'
                   for k, v in kwargs.items() if v is not None)


def _fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def svg_document(width: float, height: float, body: str, title: str | None = None) -> str:
    """A complete ``<svg>`` element of the given size around ``body`` (SVG markup)."""
    head = (f'<svg xmlns="{SVG_NS}" width="{_fmt(width)}" height="{_fmt(height)}" '
            f'viewBox="0 0 {_fmt(width)} {_fmt(height)}" font-family="{escape(FONT)}">')
    label = f"<title>{escape(title)}</title>" if title else ""
    return head + label + body + "</svg>"


def arrow(x1: float, y1: float, x2: float, y2: float, color: str = "#1f77b4",
          width: float = 4, head: float = 12, css_class: str = "arrow") -> str:
    """An arrow from (x1, y1) to (x2, y2): a line and a filled triangular head (no ids needed)."""
    dx, dy = x2 - x1, y2 - y1
    length = (dx * dx + dy * dy) ** 0.5 or 1.0
    ux, uy = dx / length, dy / length
    bx, by = x2 - head * ux, y2 - head * uy            # base of the head
    px, py = -uy * head * 0.5, ux * head * 0.5         # half-width of the head, perpendicular
    points = " ".join(f"{_fmt(a)},{_fmt(b)}" for a, b in ((x2, y2), (bx + px, by + py),
                                                          (bx - px, by - py)))
    return (f'<g{attrs(class_=css_class, opacity="0.75")}>'
            f'<line{attrs(x1=_fmt(x1), y1=_fmt(y1), x2=_fmt(bx), y2=_fmt(by), stroke=color)}'
            f' stroke-width="{_fmt(width)}" stroke-linecap="round"/>'
            f'<polygon{attrs(points=points, fill=color)}/></g>')


class Diagram:
    """An SVG picture that Jupyter displays (``_repr_svg_``, ``_repr_html_``).

    Attributes
    ----------
    svg : str
        The ``<svg>`` document.
    width, height : float
        Its size in CSS pixels.
    """

    def __init__(self, svg: str, width: float, height: float):
        self.svg = svg
        self.width = float(width)
        self.height = float(height)

    def _repr_svg_(self) -> str:
        return self.svg

    def _repr_html_(self) -> str:
        # scaled down to the page's width when wider (the viewBox keeps the proportions)
        svg = self.svg.replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)
        return f"<div>{svg}</div>"

    def save(self, path) -> None:
        """Write the SVG to ``path`` (UTF-8)."""
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self.svg)

    def __str__(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return f"<Diagram {self.width:g}x{self.height:g}>"


def _as_svg(item) -> str:
    if isinstance(item, str):
        svg = item
    elif hasattr(item, "_repr_svg_"):
        svg = item._repr_svg_()
    else:
        raise ValueError(f"row: cannot draw {type(item).__name__!r}: expected an SVG string or "
                         "an object with _repr_svg_ (a Position, a Board, a Diagram)")
    return re.sub(r"^\s*<\?xml[^>]*\?>\s*", "", svg)


def _size(svg: str) -> tuple[float, float]:
    try:
        root = ET.fromstring(svg)
        return float(root.attrib["width"]), float(root.attrib["height"])
    except (ET.ParseError, KeyError, ValueError):
        raise ValueError("row: every diagram must be a well-formed <svg> with numeric "
                         "width and height attributes") from None


def _wrap(text: str, width: float, size: float) -> list[str]:
    """``text`` cut at spaces into lines about ``width`` pixels wide (0.55 em per character)."""
    per_line = max(8, int(width / (0.55 * size)))
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= per_line:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def row(items: Sequence, captions: Sequence[str] | None = None, gap: float = 16,
        caption_size: float = 13, columns: int | None = None) -> Diagram:
    """Several diagrams side by side, top-aligned, each with an optional caption below it;
    with ``columns``, at most that many to a line, the lines one under another (so that a page
    shows many boards at a readable size instead of shrinking one long row to its width).

    Parameters
    ----------
    items : sequence
        Diagrams: :class:`Diagram`, ``Position``, ``Board`` or any object with ``_repr_svg_``,
        or SVG strings.
    captions : sequence of str, optional
        One caption per item (``None`` or ``""`` for none), wrapped to the item's width.
    gap : float
        Space between two diagrams (pixels), and between two lines.
    columns : int, optional
        Diagrams per line (default: all on one line).
    """
    items = list(items)
    if not items:
        raise ValueError("row: nothing to draw (items is empty)")
    if captions is not None:
        captions = list(captions)
        if len(captions) != len(items):
            raise ValueError(f"row: {len(items)} items but {len(captions)} captions")
    if columns is not None:
        if isinstance(columns, bool) or not isinstance(columns, int) or columns < 1:
            raise ValueError(f"row: columns must be a positive integer, got {columns!r}")
        if columns < len(items):
            lines = [row(items[k:k + columns],
                         None if captions is None else captions[k:k + columns],
                         gap, caption_size) for k in range(0, len(items), columns)]
            width = max(line.width for line in lines)
            parts, y = [], 0.0
            for line in lines:
                parts.append(f'<g transform="translate(0,{_fmt(y)})">{line._repr_svg_()}</g>')
                y += line.height + gap
            return Diagram(svg_document(width, y - gap, "".join(parts)), width, y - gap)
    svgs = [_as_svg(item) for item in items]
    sizes = [_size(s) for s in svgs]
    height = max(h for _, h in sizes)
    lines = [_wrap(c or "", w, caption_size) for c, (w, _) in
             zip(captions or [""] * len(items), sizes)]
    line_h = 1.25 * caption_size
    caption_h = (max(len(ls) for ls in lines) * line_h + 0.5 * caption_size
                 if any(lines) else 0)
    parts, x = [], 0.0
    for svg, (w, _), caption in zip(svgs, sizes, lines):
        parts.append(f'<g transform="translate({_fmt(x)},0)">{svg}</g>')
        for k, text in enumerate(caption):
            parts.append(f'<text{attrs(x=_fmt(x + w / 2), y=_fmt(height + caption_size + k * line_h))}'
                         f' text-anchor="middle" font-size="{_fmt(caption_size)}">'
                         f'{escape(text)}</text>')
        x += w + gap
    width = x - gap
    total_h = height + caption_h
    return Diagram(svg_document(width, total_h, "".join(parts)), width, total_h)

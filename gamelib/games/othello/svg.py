"""SVG diagrams of Othello boards (``Board._repr_svg_``).

Columns a..h run left to right and rows 1..8 top to bottom (square a1 at the top left, as in
:mod:`gamelib.games.othello.board`). Discs are drawn black and white; the side to move's legal moves
are small dots; the last move's disc carries a red mark. Elements have classes for readers and
tests: ``disc black``/``disc white`` and ``legal`` (with ``data-square``), ``last-move``.
"""

from __future__ import annotations

from ...diagrams import Diagram, _fmt, attrs, svg_document
from .squares import SQUARE_NAMES, parse_square

__all__ = ["board_svg"]

_GREEN = "#2e8b57"


def board_svg(board, *, legal: bool = True, last_move: bool | str = True, size: float = 32,
              coordinates: bool = True, title: str | None = None) -> Diagram:
    """A diagram of the :class:`~gamelib.games.othello.Board` ``board``.

    Parameters
    ----------
    legal : bool
        Mark the legal moves of the side to move.
    last_move : bool or str
        ``True``: mark the last move pushed (a pass marks nothing); a square name: mark it;
        ``False``: none.
    size : float
        Side of a square in pixels.
    coordinates : bool
        Show the column letters and row numbers.
    title : str, optional
        An SVG ``<title>``. Default: the board string and the side to move.
    """
    if not size > 0:
        raise ValueError(f"size must be positive, got {size!r}")
    if last_move is True:
        last_move = board.move_stack[-1] if board.move_stack else None
    elif last_move is False:
        last_move = None
    last = None if last_move in (None, "pass") else parse_square(last_move)

    s = float(size)
    pad = 4.0
    label = 0.5 * s if coordinates else 0.0
    x0, y0 = pad + label, pad + label
    width = x0 + 8 * s + pad
    height = y0 + 8 * s + pad + 0.6 * s
    out = [f'<rect{attrs(x=_fmt(x0), y=_fmt(y0), width=_fmt(8 * s), height=_fmt(8 * s), fill=_GREEN)}/>']
    grid = "".join(f"M{_fmt(x0 + i * s)},{_fmt(y0)}V{_fmt(y0 + 8 * s)}"
                   f"M{_fmt(x0)},{_fmt(y0 + i * s)}H{_fmt(x0 + 8 * s)}" for i in range(9))
    out.append(f'<path{attrs(d=grid, stroke="#103d22", fill="none")} stroke-width="1"/>')
    for cx, cy in ((x0 + 2 * s, y0 + 2 * s), (x0 + 6 * s, y0 + 2 * s),
                   (x0 + 2 * s, y0 + 6 * s), (x0 + 6 * s, y0 + 6 * s)):
        out.append(f'<circle{attrs(cx=_fmt(cx), cy=_fmt(cy), r=_fmt(0.07 * s), fill="#103d22")}/>')
    if coordinates:
        fs = _fmt(0.34 * s)
        for i in range(8):
            out.append(f'<text{attrs(x=_fmt(x0 + (i + 0.5) * s), y=_fmt(y0 - 0.18 * s))} '
                       f'text-anchor="middle" font-size="{fs}" fill="#555">{"abcdefgh"[i]}</text>')
            out.append(f'<text{attrs(x=_fmt(x0 - 0.28 * s), y=_fmt(y0 + (i + 0.5) * s))} '
                       f'text-anchor="middle" dominant-baseline="central" font-size="{fs}" '
                       f'fill="#555">{i + 1}</text>')
    moves = board.move_mask() if legal else 0
    for sq in range(64):
        cx, cy = x0 + (sq % 8 + 0.5) * s, y0 + (sq // 8 + 0.5) * s
        name = SQUARE_NAMES[sq]
        if board.black >> sq & 1 or board.white >> sq & 1:
            black = bool(board.black >> sq & 1)
            out.append(f'<circle{attrs(class_="disc " + ("black" if black else "white"), data_square=name, cx=_fmt(cx), cy=_fmt(cy), r=_fmt(0.42 * s), fill="#111" if black else "#f8f8f8", stroke="#111")}'
                       f' stroke-width="1"/>')
        elif moves >> sq & 1:
            fill = "#111" if board.turn == "X" else "#f8f8f8"
            out.append(f'<circle{attrs(class_="legal", data_square=name, cx=_fmt(cx), cy=_fmt(cy), r=_fmt(0.1 * s), fill=fill, opacity="0.6")}/>')
        if sq == last:
            out.append(f'<circle{attrs(class_="last-move", data_square=name, cx=_fmt(cx), cy=_fmt(cy), r=_fmt(0.1 * s), fill="#e0301e")}/>')
    b, w = board.count()
    to_move = "black" if board.turn == "X" else "white"
    out.append(f'<text{attrs(class_="status", x=_fmt(x0), y=_fmt(y0 + 8 * s + 0.45 * s))} '
               f'font-size="{_fmt(0.36 * s)}" dominant-baseline="central" fill="#222">'
               f'● {b}  ○ {w}  {to_move} to move</text>')
    default_title = f"{board.board_string()} {board.turn} to move"
    return Diagram(svg_document(width, height, "".join(out), default_title if title is None else title),
                   width, height)

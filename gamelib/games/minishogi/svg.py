"""SVG diagrams of 5×5 shogi positions (``Position._repr_svg_``).

The board is drawn as sente sees it: files 5..1 from left to right above it, ranks a..e from
top to bottom at its right (the USI square names the book uses). Pieces are pentagons pointing
towards the opponent, so gote's pieces stand upside down; they carry kanji (or, with
``letters=True``, the SFEN letters), promoted ones in red. Gote's hand is shown above the
board, sente's below it. The last move's squares are shaded; arrows may be added.

Every element a reader or a test may look for has a class: ``piece sente``/``piece gote`` (with
``data-square`` and ``data-piece``, the SFEN letter such as ``+B``), ``hand sente``/``hand gote``
(with ``data-pieces``, e.g. ``"R1 P2"``), ``last-move from``/``last-move to``, ``arrow``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...diagrams import Diagram, _fmt, arrow, attrs, escape, row, svg_document
from . import core
from . import rules as R
from .notation import SQUARE_NAMES, parse_square

__all__ = ["position_svg", "piece_legend", "KANJI", "PIECE_NAMES"]

#: Kanji of each piece type (the king is 玉 for both sides).
KANJI = {R.PAWN: "歩", R.SILVER: "銀", R.GOLD: "金", R.BISHOP: "角", R.ROOK: "飛", R.KING: "玉",
         R.TOKIN: "と", R.PRO_SILVER: "全", R.HORSE: "馬", R.DRAGON: "龍"}
_HAND_ORDER = (R.ROOK, R.BISHOP, R.GOLD, R.SILVER, R.PAWN)
_SIDE_MARK = {R.SENTE: "☗", R.GOTE: "☖"}
_BOARD_FILL = "#f3d9a4"
_LAST_TO, _LAST_FROM = "#f5b85c", "#f8d79a"


def _letter(t: int) -> str:
    return "+" + R.PIECE_LETTERS[R.UNPROMOTED[t]] if t in R.UNPROMOTED else R.PIECE_LETTERS[t]


def _squares_of_move(usi: str) -> tuple[int | None, int]:
    """(from square or ``None`` for a drop, to square) of a USI move string."""
    if not isinstance(usi, str) or len(usi) < 4:
        raise ValueError(f"bad USI move {usi!r}: expected e.g. '2e3d', '2b1a+' or 'P*2c'")
    if usi[1] == "*":
        return None, parse_square(usi[2:4])
    return parse_square(usi[0:2]), parse_square(usi[2:4])


def _arrow_squares(spec) -> tuple[int, int]:
    if isinstance(spec, str):
        frm, to = _squares_of_move(spec)
        if frm is None:
            raise ValueError(f"arrows: the drop {spec!r} has no from-square; give board moves "
                             "('2e3d') or (from, to) square pairs")
        return frm, to
    try:
        a, b = spec
    except (TypeError, ValueError):
        raise ValueError(f"arrows: bad arrow {spec!r}: expected a USI move or a (from, to) "
                         "pair of squares") from None
    return parse_square(a), parse_square(b)


#: English names of the pieces, for the legend.
PIECE_NAMES = {R.KING: "king", R.ROOK: "rook", R.BISHOP: "bishop", R.GOLD: "gold",
               R.SILVER: "silver", R.PAWN: "pawn", R.DRAGON: "dragon", R.HORSE: "horse",
               R.PRO_SILVER: "promoted silver", R.TOKIN: "tokin"}
_LEGEND_ORDER = (R.KING, R.ROOK, R.BISHOP, R.GOLD, R.SILVER, R.PAWN,
                 R.DRAGON, R.HORSE, R.PRO_SILVER, R.TOKIN)


def _piece(cx: float, cy: float, s: float, t: int, side: int, letters: bool, head: str) -> str:
    """One piece: a pentagon pointing towards the opponent (gote's upside down) around its
    kanji or SFEN letter, promoted pieces in red; ``head`` holds the group's attributes."""
    pts = ((0, -0.42), (0.3, -0.3), (0.37, 0.4), (-0.37, 0.4), (-0.3, -0.3))
    poly = " ".join(f"{_fmt(cx + dx * s)},{_fmt(cy + dy * s)}" for dx, dy in pts)
    text = _letter(t) if letters else KANJI[t]
    color = "#c00000" if t in R.UNPROMOTED else "#111"
    rotate = f' transform="rotate(180 {_fmt(cx)} {_fmt(cy)})"' if side == R.GOTE else ""
    fs = 0.32 * s if letters and len(text) > 1 else 0.42 * s
    return (f'<g{head}{rotate}>'
            f'<polygon{attrs(points=poly, fill="#fbeccb", stroke="#6b4f1d")} stroke-width="1"/>'
            f'<text{attrs(x=_fmt(cx), y=_fmt(cy + 0.06 * s), fill=color)} text-anchor="middle" '
            f'dominant-baseline="central" font-size="{_fmt(fs)}">{escape(text)}</text></g>')


def piece_legend(size: float = 34) -> Diagram:
    """The pieces as the diagrams draw them, each with its SFEN letter and English name under
    it: the legend for a reader who does not read the kanji (玉飛角金銀歩; promoted, in red, 龍
    the dragon = promoted rook, 馬 the horse = promoted bishop, 全 and と the promoted silver
    and pawn). Gote's pieces are drawn upside down."""
    if not size > 0:
        raise ValueError(f"size must be positive, got {size!r}")
    s = float(size)
    w = 2.6 * s            # room for a caption under each piece
    items, captions = [], []
    for t in _LEGEND_ORDER:
        items.append(Diagram(svg_document(w, s, _piece(w / 2, s / 2, s, t, R.SENTE, False,
                                                      attrs(class_="piece sente",
                                                            data_piece=_letter(t)))), w, s))
        captions.append(f"{_letter(t)} {PIECE_NAMES[t]}")
    return row(items, captions, gap=0.1 * s, caption_size=0.36 * s, columns=6)


def position_svg(pos, *, letters: bool = False, last_move: bool | str = True,
                 arrows: Iterable = (), size: float = 40, coordinates: bool = True,
                 title: str | None = None) -> Diagram:
    """A board diagram of the :class:`~gamelib.games.minishogi.Position` ``pos``.

    Parameters
    ----------
    letters : bool
        SFEN letters (``K``, ``+B``, ...) instead of kanji.
    last_move : bool or str
        ``True``: shade the squares of the last move pushed (if any); a USI move string: shade
        that move's squares; ``False``: none.
    arrows : iterable
        USI board moves (``"2e3d"``) or ``(from, to)`` square pairs to draw as arrows.
    size : float
        Side of a square in pixels.
    coordinates : bool
        Show the file numbers and rank letters.
    title : str, optional
        An SVG ``<title>`` (a tooltip; read by screen readers). Default: the SFEN.
    """
    if not size > 0:
        raise ValueError(f"size must be positive, got {size!r}")
    state = pos.state
    if last_move is True:
        last_move = pos.move_stack[-1] if pos.move_stack else None
    elif last_move is False:
        last_move = None
    last = _squares_of_move(last_move) if last_move is not None else None
    arrow_pairs = [_arrow_squares(a) for a in arrows]

    s = float(size)
    pad = 8.0
    label = 0.45 * s if coordinates else 0.0
    hand_h = 0.7 * s
    x0, y0 = pad, hand_h + label
    board_w = R.FILES * s
    width = x0 + board_w + label + pad
    height = y0 + R.RANKS * s + hand_h + 4
    out = []

    def cell(sq: int) -> tuple[float, float]:
        return x0 + (sq % R.FILES) * s, y0 + (sq // R.FILES) * s

    # board and last move
    out.append(f'<rect{attrs(x=_fmt(x0), y=_fmt(y0), width=_fmt(board_w), height=_fmt(R.RANKS * s), fill=_BOARD_FILL)}/>')
    if last is not None:
        for sq, kind, fill in ((last[0], "from", _LAST_FROM), (last[1], "to", _LAST_TO)):
            if sq is not None:
                x, y = cell(sq)
                out.append(f'<rect{attrs(class_=f"last-move {kind}", x=_fmt(x), y=_fmt(y), width=_fmt(s), height=_fmt(s), fill=fill)}'
                           f'{attrs(data_square=SQUARE_NAMES[sq])}/>')
    grid = []
    for i in range(R.FILES + 1):
        grid.append(f"M{_fmt(x0 + i * s)},{_fmt(y0)}V{_fmt(y0 + R.RANKS * s)}")
    for i in range(R.RANKS + 1):
        grid.append(f"M{_fmt(x0)},{_fmt(y0 + i * s)}H{_fmt(x0 + board_w)}")
    out.append(f'<path{attrs(d="".join(grid), stroke="#333", fill="none")} stroke-width="1"/>')
    if coordinates:
        fs = _fmt(0.3 * s)
        for c in range(R.FILES):
            out.append(f'<text{attrs(x=_fmt(x0 + (c + 0.5) * s), y=_fmt(y0 - 0.12 * s))} '
                       f'text-anchor="middle" font-size="{fs}" fill="#555">{R.FILES - c}</text>')
        for r in range(R.RANKS):
            out.append(f'<text{attrs(x=_fmt(x0 + board_w + 0.22 * s), y=_fmt(y0 + (r + 0.5) * s))} '
                       f'text-anchor="middle" dominant-baseline="central" font-size="{fs}" '
                       f'fill="#555">{"abcde"[r]}</text>')

    # pieces
    for sq in range(R.SQUARES):
        code = int(state[sq])
        if code == 0:
            continue
        t, side = code & 15, code >> 4
        x, y = cell(sq)
        cx, cy = x + s / 2, y + s / 2
        letter = _letter(t)
        out.append(_piece(cx, cy, s, t, side, letters,
                          attrs(class_=f"piece {R.SIDE_NAMES[side]}", data_square=SQUARE_NAMES[sq],
                                data_piece=letter if side == R.SENTE else letter.lower())))

    # hands: gote's above the board, sente's below
    for side, y in ((R.GOTE, hand_h * 0.6), (R.SENTE, y0 + R.RANKS * s + hand_h * 0.65)):
        counts = [(t, int(state[core.HAND + 5 * side + t - 1])) for t in _HAND_ORDER]
        counts = [(t, n) for t, n in counts if n]
        names = [(R.PIECE_LETTERS[t] if letters else KANJI[t]) + (str(n) if n > 1 else "")
                 for t, n in counts]
        shown = " ".join(names) if names else "—"
        data = " ".join(f"{R.PIECE_LETTERS[t]}{n}" for t, n in counts)
        out.append(f'<text{attrs(class_=f"hand {R.SIDE_NAMES[side]}", data_pieces=data, x=_fmt(x0), y=_fmt(y))}'
                   f' font-size="{_fmt(0.34 * s)}" dominant-baseline="central" fill="#222">'
                   f'{escape(f"{_SIDE_MARK[side]} {R.SIDE_NAMES[side]} in hand: {shown}")}</text>')

    for frm, to in arrow_pairs:
        (ax, ay), (bx, by) = cell(frm), cell(to)
        out.append(arrow(ax + s / 2, ay + s / 2, bx + s / 2, by + s / 2, width=0.1 * s,
                         head=0.32 * s))
    svg = svg_document(width, height, "".join(out), title=pos.sfen() if title is None else title)
    return Diagram(svg, width, height)

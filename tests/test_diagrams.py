"""SVG board diagrams: well-formed XML, the right pieces in the right places, hands, last move,
orientation, escaping, and the row layout."""

import xml.etree.ElementTree as ET

import pytest

from gamelib.diagrams import Diagram, row, svg_document
from gamelib.games.minishogi import Position
from gamelib.games.minishogi.svg import position_svg
from gamelib.games.othello import Board
from gamelib.games.othello.svg import board_svg

NS = {"s": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)          # raises on malformed XML
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def by_class(root, cls):
    return [e for e in root.iter() if cls in e.get("class", "").split()]


def pieces(root):
    return {g.get("data-square"): g.get("data-piece") for g in by_class(root, "piece")}


# ------------------------------------------------------------------ 5x5 shogi
def test_start_position_pieces_and_orientation():
    root = parse(Position()._repr_svg_())
    assert pieces(root) == {"5a": "r", "4a": "b", "3a": "s", "2a": "g", "1a": "k", "1b": "p",
                            "5d": "P", "5e": "K", "4e": "G", "3e": "S", "2e": "B", "1e": "R"}
    for g in by_class(root, "piece"):
        gote = "gote" in g.get("class").split()
        assert g.get("data-piece").islower() == gote
        # gote's pieces stand upside down, sente's upright
        assert (g.get("transform") or "").startswith("rotate(180") == gote
    # sente's king (5e) is drawn at the bottom left, gote's (1a) at the top right
    xy = {}
    for g in by_class(root, "piece"):
        pts = [tuple(map(float, p.split(","))) for p in g.find("s:polygon", NS).get("points").split()]
        xy[g.get("data-square")] = (min(x for x, _ in pts), min(y for _, y in pts))
    assert xy["5e"][0] < xy["1a"][0] and xy["5e"][1] > xy["1a"][1]
    assert not by_class(root, "last-move")


def test_kanji_and_letters():
    pos = Position("4k/5/2+r2/5/KG3 b P 1")
    kanji = {g.get("data-square"): g.find("s:text", NS).text
             for g in by_class(parse(pos._repr_svg_()), "piece")}
    assert kanji == {"1a": "玉", "3c": "龍", "5e": "玉", "4e": "金"}
    letters = {g.get("data-square"): g.find("s:text", NS).text
               for g in by_class(parse(position_svg(pos, letters=True).svg), "piece")}
    assert letters == {"1a": "K", "3c": "+R", "5e": "K", "4e": "G"}
    # promoted pieces are red, the others are not
    red = {g.get("data-square") for g in by_class(parse(pos._repr_svg_()), "piece")
           if g.find("s:text", NS).get("fill") == "#c00000"}
    assert red == {"3c"}


def test_hands_after_captures():
    pos = Position()
    for usi in ["2e3d", "2a3b", "3d1b"]:      # the bishop takes gote's pawn
        pos.push_usi(usi)
    root = parse(pos._repr_svg_())
    hands = {h.get("class").split()[1]: h.get("data-pieces") for h in by_class(root, "hand")}
    assert hands == {"sente": "P1", "gote": ""}
    text = {h.get("class").split()[1]: h.text for h in by_class(root, "hand")}
    assert text["sente"].endswith("歩") and text["gote"].endswith("—")
    root = parse(Position("4k/5/5/5/K4 b R2Pb 1")._repr_svg_())
    hands = {h.get("class").split()[1]: h.get("data-pieces") for h in by_class(root, "hand")}
    assert hands == {"sente": "R1 P2", "gote": "B1"}
    text = {h.get("class").split()[1]: h.text for h in by_class(root, "hand")}
    assert text["sente"].endswith("飛 歩2") and text["gote"].endswith("角")


def test_last_move_board_move_and_drop():
    pos = Position()
    pos.push_usi("2e3d")
    marks = {e.get("class"): e.get("data-square") for e in by_class(parse(pos._repr_svg_()), "last-move")}
    assert marks == {"last-move from": "2e", "last-move to": "3d"}
    drop = Position("4k/5/5/5/K4 b P 1")
    drop.push_usi("P*3c")
    marks = {e.get("class"): e.get("data-square") for e in by_class(parse(drop._repr_svg_()), "last-move")}
    assert marks == {"last-move to": "3c"}
    assert not by_class(parse(position_svg(pos, last_move=False).svg), "last-move")
    marks = {e.get("data-square") for e in by_class(parse(position_svg(Position(), last_move="1e1c").svg), "last-move")}
    assert marks == {"1e", "1c"}


def test_arrows_and_bad_arrows():
    root = parse(position_svg(Position(), arrows=["1e1c", ("2e", "4c")]).svg)
    assert len(by_class(root, "arrow")) == 2
    with pytest.raises(ValueError, match="drop"):
        position_svg(Position(), arrows=["P*3c"])
    with pytest.raises(ValueError, match="square"):
        position_svg(Position(), arrows=[("2e", "9z")])
    with pytest.raises(ValueError, match="size"):
        position_svg(Position(), size=0)


def test_title_is_escaped():
    root = parse(position_svg(Position(), title='a <b> & "c"').svg)
    assert root.find("s:title", NS).text == 'a <b> & "c"'


# ------------------------------------------------------------------ Othello
def test_othello_discs_legal_moves_last_move():
    b = Board()
    root = parse(b._repr_svg_())
    discs = {e.get("data-square"): e.get("class") for e in by_class(root, "disc")}
    assert discs == {"d4": "disc white", "e4": "disc black", "d5": "disc black", "e5": "disc white"}
    assert sorted(e.get("data-square") for e in by_class(root, "legal")) == sorted(b.legal_moves)
    assert not by_class(root, "last-move")
    b.push("f5")
    root = parse(b._repr_svg_())
    assert [e.get("data-square") for e in by_class(root, "last-move")] == ["f5"]
    assert {e.get("data-square") for e in by_class(root, "disc") if "black" in e.get("class")} == {"d5", "e4", "e5", "f5"}
    assert sorted(e.get("data-square") for e in by_class(root, "legal")) == sorted(b.legal_moves)
    assert not by_class(parse(board_svg(b, legal=False).svg), "legal")
    # a1 at the top left, h8 at the bottom right
    a1 = Board("X" + "-" * 62 + "O")
    xy = {e.get("data-square"): (float(e.get("cx")), float(e.get("cy"))) for e in by_class(parse(a1._repr_svg_()), "disc")}
    assert xy["a1"][0] < xy["h8"][0] and xy["a1"][1] < xy["h8"][1]


def test_othello_pass_marks_nothing():
    b = Board("XXXXXXXO" + "XXXXXXXX" * 6 + "OOOOOOO-", "X")   # only white may play h8
    assert b.must_pass()
    b.push("pass")
    assert not by_class(parse(b._repr_svg_()), "last-move")


# ------------------------------------------------------------------ row
def test_row_lays_out_side_by_side_with_escaped_captions():
    a, b = Position(), Position()
    b.push_usi("2e3d")
    strip = row([a, b, Board()], captions=["start", "after <2e3d> & more", ""])
    assert isinstance(strip, Diagram)
    root = parse(strip._repr_svg_())
    inner = root.findall("s:g/s:svg", NS)
    assert len(inner) == 3
    widths = [float(s.get("width")) for s in inner]
    assert strip.width == pytest.approx(sum(widths) + 2 * 16)
    offsets = [float(g.get("transform")[len("translate("):].split(",")[0]) for g in root.findall("s:g", NS)]
    assert offsets == pytest.approx([0, widths[0] + 16, widths[0] + widths[1] + 32])
    captions = [t.text for t in root.findall("s:text", NS)]
    assert captions == ["start", "after <2e3d> & more"]
    assert strip._repr_html_().startswith("<div>") and strip.svg[4:] in strip._repr_html_()


def test_row_bad_input():
    with pytest.raises(ValueError, match="empty"):
        row([])
    with pytest.raises(ValueError, match="captions"):
        row([Position()], captions=["a", "b"])
    with pytest.raises(ValueError, match="cannot draw"):
        row([42])
    with pytest.raises(ValueError, match="well-formed"):
        row(["<svg"])


def test_game_strip_shows_the_positions_after_the_plies():
    from gamelib.games.minishogi.position import game_strip

    moves = ["2e4c", "4a2c", "4e3d", "2a3b", "3d2c", "3b4c", "2c1b"]     # the mirror trap's mate
    root = parse(game_strip(moves, [0, 2, 7]).svg)
    boards = root.findall("s:g/s:svg", NS)
    expected = []
    for k in (0, 2, 7):
        p = Position()
        for m in moves[:k]:
            p.push_usi(m)
        expected.append(p.sfen())
    assert [b.find("s:title", NS).text for b in boards] == expected
    assert expected[1] == "r1sgk/4p/1B1b1/P4/KGS1R b - 3"         # the mirror position
    assert [t.text for t in root.findall("s:text", NS)] == ["start", "ply 2: 4a2c", "ply 7: 2c1b"]
    last = [{e.get("data-square") for e in by_class(b, "last-move")} for b in boards]
    assert last == [set(), {"4a", "2c"}, {"2c", "1b"}]
    p = Position()
    for m in moves:
        p.push_usi(m)
    assert p.is_checkmate()
    with pytest.raises(ValueError, match="non-decreasing"):
        game_strip(moves, [3, 2])
    with pytest.raises(ValueError, match="non-decreasing"):
        game_strip(moves, [8])


def test_row_wraps_long_captions_under_their_diagram():
    small = position_svg(Position(), size=20)
    caption = "gold captured, recaptured, dropped back next to the king"
    strip = row([small, small], captions=[caption, "short"])
    root = parse(strip.svg)
    texts = root.findall("s:text", NS)
    first = [t for t in texts if float(t.get("x")) == pytest.approx(small.width / 2)]
    assert len(first) > 1 and " ".join(t.text for t in first) == caption
    assert strip.height > row([small, small], captions=["a", "b"]).height
    html = strip._repr_html_()
    assert 'style="max-width:100%;height:auto"' in html
    ET.fromstring(html)


def test_row_with_columns_stacks_lines_of_diagrams():
    boxes = [Diagram(svg_document(100, 50, ""), 100, 50) for _ in range(5)]
    flat = row(boxes, gap=10)
    assert (flat.width, flat.height) == (540, 50)
    grid = row(boxes, captions=list("abcde"), gap=10, columns=2)
    one_line = row(boxes[:2], captions=list("ab"), gap=10)
    assert grid.width == one_line.width == 210
    assert grid.height == 3 * one_line.height + 2 * 10
    assert grid.svg.count("<svg") == 1 + 3 + 5      # the grid, its three lines, the boxes
    for k, letter in enumerate("abcde"):
        assert f">{letter}</text>" in grid.svg
    assert row(boxes, gap=10, columns=9).width == flat.width
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="columns must be a positive integer"):
            row(boxes, columns=bad)

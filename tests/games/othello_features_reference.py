"""A slow, plain-Python reference of the Othello evaluation's features (gamelib.games.othello.features).

Written from the module's documentation alone, on the grid of ``tests/games/othello/reference.py``
("X" black, "O" white, "-" empty; index 8 * row + col, a1 = 0): patterns by square names, the
board's symmetries as coordinate maps, a configuration's class as the smallest code among the
readings of its squares, mobility by walking the grid. No numpy and no code of the module.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path


def _load_grid_reference():
    path = Path(__file__).resolve().parent / "othello" / "reference.py"
    spec = importlib.util.spec_from_file_location("othello_grid_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


grid = _load_grid_reference()

PATTERNS = [
    "a1 b1 c1 d1 e1 f1 g1 h1 b2 g2",   # edge + 2 X-squares
    "a1 b1 c1 a2 b2 c2 a3 b3 c3",      # 3x3 corner
    "a2 b2 c2 d2 e2 f2 g2 h2",         # lines 2, 3, 4
    "a3 b3 c3 d3 e3 f3 g3 h3",
    "a4 b4 c4 d4 e4 f4 g4 h4",
    "a1 b2 c3 d4 e5 f6 g7 h8",         # diagonals of length 8 .. 4
    "b1 c2 d3 e4 f5 g6 h7",
    "c1 d2 e3 f4 g5 h6",
    "d1 e2 f3 g4 h5",
    "e1 f2 g3 h4",
]


def symmetry(g: int, sq: int) -> int:
    c, r = sq % 8, sq // 8
    x, y = [(c, r), (7 - c, r), (c, 7 - r), (7 - c, 7 - r),
             (r, c), (7 - r, c), (r, 7 - c), (7 - r, 7 - c)][g]
    return 8 * y + x


def square(name: str) -> int:
    return "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)


def base(family: int) -> list[int]:
    return [square(n) for n in PATTERNS[family].split()]


def instance_readings(family: int) -> list[list[list[int]]]:
    """For each instance (a new square set, in symmetry order): every reading of its squares
    (the images of the base pattern on that set), the first one first."""
    out = {}
    for g in range(8):
        image = [symmetry(g, sq) for sq in base(family)]
        out.setdefault(frozenset(image), []).append(image)
    return list(out.values())


def code(digits) -> int:
    return sum(d * 3 ** i for i, d in enumerate(digits))


@lru_cache(maxsize=None)
def class_numbers(family: int) -> dict[int, int]:
    """Smallest code of a class -> its number (classes in increasing order of that code)."""
    b = base(family)
    own_readings = [[b.index(symmetry(g, sq)) for sq in b] for g in range(8)
                    if {symmetry(g, sq) for sq in b} == set(b)]
    smallest = set()
    for c in range(3 ** len(b)):
        digits = [c // 3 ** i % 3 for i in range(len(b))]
        smallest.add(min(code([digits[j] for j in reading]) for reading in own_readings))
    return {c: k for k, c in enumerate(sorted(smallest))}


def n_weights(family: int) -> int:
    return len(class_numbers(family))


def cell(board: list[str], side: str, sq: int) -> int:
    return 0 if board[sq] == "-" else 1 if board[sq] == side else 2


def features(board: list[str], side: str) -> list[tuple[int, int]]:
    """The sparse φ as ``(index, value)`` pairs in the documented order."""
    out = []
    offset = 0
    for family in range(len(PATTERNS)):
        numbers = class_numbers(family)
        classes = [numbers[min(code([cell(board, side, sq) for sq in reading]) for reading in readings)]
                   for readings in instance_readings(family)]
        for k, c in enumerate(classes):
            if c not in classes[:k]:
                out.append((offset + c, classes.count(c)))
        offset += n_weights(family)
    other = grid.other(side)
    discs = sum(1 for x in board if x != "-")
    stage = min(3, (discs - 4) // 15)
    empties = 64 - discs
    counts = [len(grid.legal(board, side)), len(grid.legal(board, other)),
              _next_to(board, other), _next_to(board, side), 1 if empties % 2 else -1]
    for t, x in enumerate(counts):
        if x != 0:
            out.append((offset + 5 * stage + t, x))
    return out


def _next_to(board: list[str], colour: str) -> int:
    """Empty squares with a disc of ``colour`` on one of the eight squares around them."""
    n = 0
    for sq in range(64):
        r, c = divmod(sq, 8)
        if board[sq] == "-" and any(0 <= r + dr < 8 and 0 <= c + dc < 8 and board[8 * (r + dr) + c + dc] == colour
                                    for dr, dc in grid.DIRECTIONS):
            n += 1
    return n


def evaluate(board: list[str], side: str, theta) -> float:
    """Σ θ_i φ_i added left to right in the order of :func:`features`."""
    v = 0.0
    for i, x in features(board, side):
        v += float(theta[i]) * x
    return v

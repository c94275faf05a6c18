"""A slow, independent Othello reference: an 8x8 grid and direction walks, in plain Python.

Written without the bitboard core (no shared code) so that tests can use it as an oracle.
Squares: index = 8 * row + col, row 0 = rank 1 (top), col 0 = file a.
"""

from __future__ import annotations

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def grid_from_string(board: str) -> list[str]:
    assert len(board) == 64
    return list(board)


def other(side: str) -> str:
    return "O" if side == "X" else "X"


def flipped(grid: list[str], side: str, sq: int) -> list[int]:
    """Squares flipped by ``side`` playing on ``sq`` (empty list: not a legal move)."""
    if grid[sq] != "-":
        return []
    row, col = divmod(sq, 8)
    opp = other(side)
    result = []
    for dr, dc in DIRECTIONS:
        line = []
        r, c = row + dr, col + dc
        while 0 <= r < 8 and 0 <= c < 8 and grid[8 * r + c] == opp:
            line.append(8 * r + c)
            r, c = r + dr, c + dc
        if line and 0 <= r < 8 and 0 <= c < 8 and grid[8 * r + c] == side:
            result.extend(line)
    return sorted(result)


def legal(grid: list[str], side: str) -> list[int]:
    return [sq for sq in range(64) if flipped(grid, side, sq)]


def play(grid: list[str], side: str, sq: int) -> list[str]:
    f = flipped(grid, side, sq)
    assert f, "illegal move"
    g = list(grid)
    g[sq] = side
    for s in f:
        g[s] = side
    return g


def game_over(grid: list[str]) -> bool:
    return not legal(grid, "X") and not legal(grid, "O")


def score(grid: list[str], side: str, empties_to_winner: bool) -> int:
    """Final score for ``side``: disc difference, empties to the winner if asked."""
    mine = grid.count(side)
    theirs = grid.count(other(side))
    empties = grid.count("-")
    diff = mine - theirs
    if empties_to_winner and diff != 0:
        diff += empties if diff > 0 else -empties
    return diff


def perft(grid: list[str], side: str, depth: int) -> int:
    if depth == 0:
        return 1
    moves = legal(grid, side)
    if not moves:
        if not legal(grid, other(side)):
            return 1
        return perft(grid, other(side), depth - 1)
    return sum(perft(play(grid, side, m), other(side), depth - 1) for m in moves)


def minimax(grid: list[str], side: str, empties_to_winner: bool) -> int:
    """Exact game value for ``side`` by plain minimax (small endgames only)."""
    moves = legal(grid, side)
    if not moves:
        if not legal(grid, other(side)):
            return score(grid, side, empties_to_winner)
        return -minimax(grid, other(side), empties_to_winner)
    return max(-minimax(play(grid, side, m), other(side), empties_to_winner) for m in moves)


def random_game_positions(rng, n_games: int):
    """All positions (board string, side) of ``n_games`` random games from the start."""
    start = list("-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27)
    out = []
    for _ in range(n_games):
        grid, side = start, "X"
        while True:
            out.append(("".join(grid), side))
            moves = legal(grid, side)
            if not moves:
                if not legal(grid, other(side)):
                    break
                side = other(side)
                continue
            grid = play(grid, side, moves[rng.integers(len(moves))])
            side = other(side)
    return out

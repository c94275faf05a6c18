"""Shared fixtures of the 5×5 shogi tests: seeded random playouts and positions drawn from them
(the rules' tests), SFENs of random games' positions (the features' tests)."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

import gamelib.games.minishogi as ms
from eval_positions import random_positions


@dataclass(frozen=True)
class Ply:
    sfen: str  # position before the move
    move: str | None  # USI move played from it (None at the end of the game)
    in_check: bool
    n_legal: int
    has_drops: bool
    has_promotions: bool
    pawn_drop_check: str | None  # "legal" / "mate" (pawn-drop mate, not generated) / None


def _pawn_drop_check(pos: ms.Position, legal: list[str]) -> str | None:
    """Whether the side to move could drop a pawn checking the enemy king (for sampling only)."""
    s = pos.state
    side = int(s[ms.core.STM])
    to = int(ms.core.PAWN_CHECK_SQ[side, s[ms.core.KING_SQ + 1 - side]])
    if to < 0 or s[to] != 0 or s[ms.core.HAND + 5 * side] == 0:
        return None
    col = to % 5
    if any(s[r * 5 + col] == (1 | side << 4) for r in range(5)):
        return None  # two-pawn rule
    usi = "P*" + ms.square_name(to)
    return "legal" if usi in legal else "mate"


@dataclass(frozen=True)
class Game:
    start: str
    moves: tuple[str, ...]
    plies: tuple[Ply, ...]
    result: str | None


def random_game(rng: random.Random, max_plies: int = 400) -> Game:
    """A uniformly random legal game from the start position, to its end or ``max_plies``."""
    pos = ms.Position(max_plies=None)
    plies = []
    while True:
        legal = sorted(pos.legal_moves)
        result = pos.outcome()
        move = None if (result is not None or pos.ply >= max_plies) else rng.choice(legal)
        plies.append(
            Ply(
                pos.sfen(),
                move,
                pos.is_check(),
                len(legal),
                any("*" in m for m in legal),
                any(m.endswith("+") for m in legal),
                _pawn_drop_check(pos, legal) if not pos.is_check() else None,
            )
        )
        if move is None:
            return Game(ms.START_SFEN, tuple(pos.move_stack), tuple(plies), result)
        pos.push_usi(move)


@pytest.fixture(scope="session")
def games() -> list[Game]:
    """150 seeded random games (deterministic)."""
    rng = random.Random(20240525)
    return [random_game(rng) for _ in range(150)]


@pytest.fixture(scope="session")
def sample_plies(games) -> list[Ply]:
    """About 500 positions from the games, over-sampling checks, drops, promotions, mates
    and pawn drops that check (legal) or mate (illegal)."""
    rng = random.Random(7)
    everything = [p for g in games for p in g.plies]
    picked = {p.sfen: p for p in rng.sample(everything, 200)}
    for feature in (
        lambda p: p.in_check,
        lambda p: p.has_drops,
        lambda p: p.has_promotions,
        lambda p: p.n_legal == 0,
        lambda p: p.in_check and p.has_drops,
        lambda p: p.pawn_drop_check == "legal",
        lambda p: p.pawn_drop_check == "mate",
    ):
        pool = [p for p in everything if feature(p)]
        for p in rng.sample(pool, min(50, len(pool))):
            picked[p.sfen] = p
    return list(picked.values())


@pytest.fixture(scope="session")
def positions() -> list[str]:
    """SFENs of 400 positions of seeded random games."""
    return random_positions(400, seed=2024)

"""Fixtures of the Bonanza learner tests: random Othello games played over the game protocol."""

import numpy as np
import pytest

from gamelib.games import registry


def _random_games(n, seed, game_name="othello"):
    """``n`` random games played to their end (passes included) from the start position."""
    game = registry.get(game_name)
    rng = np.random.default_rng(seed)
    buf = np.zeros(game.MAX_MOVES, dtype=np.int32)
    games = []
    for _ in range(n):
        s = game.start(200)
        moves = []
        while True:
            k = game.gen_moves(s, buf, 0)
            if k == 0:
                break
            m = int(buf[rng.integers(k)])
            moves.append(m)
            game.make_move(s, np.int64(m))
        games.append(moves)
    return games


@pytest.fixture(scope="session")
def random_games():
    """``random_games(n, seed)``: ``n`` random Othello games (move codes, passes included)."""
    return _random_games

"""Fixtures of the learner tests: an independent central-difference gradient (not gamelib's),
and random Othello games played over the game protocol (the Bonanza learner's tests)."""

import numpy as np
import pytest

from gamelib.games import registry


def _numeric_gradient(f, x, h):
    x = np.array(x, dtype=np.float64)
    out = np.empty_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        out[i] = (f(up) - f(down)) / (up[i] - down[i])
    return out


def _rel_error(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.linalg.norm(a - b) / max(np.linalg.norm(a), np.linalg.norm(b), 1e-300)


@pytest.fixture
def numeric_gradient():
    """``numeric_gradient(f, x, h)``: central differences in every coordinate."""
    return _numeric_gradient


@pytest.fixture
def rel_error():
    """``rel_error(a, b)``: norm-wise relative difference."""
    return _rel_error


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

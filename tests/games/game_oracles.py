"""Independent oracles of the registered games, for the conformance suite.

Each oracle answers from outside the adapter under test: Fairy-Stockfish (pyffish) for 5×5
shogi, the plain-Python grid of ``tests/games/othello/reference.py`` for Othello (and
``othello_features_reference.py`` for its evaluation), and the games' own perft and evaluation
functions. A state is read through the layout its adapter documents, so a
broken adapter is seen, not trusted.

Methods of an oracle (``s`` a state, ``history`` the moves played from the start position):

* ``legal_names(s)``: the names of the legal moves (a set);
* ``name_of(s, m)``: the name of move code ``m`` of ``s``;
* ``outcome(s, history)``: ``ONGOING`` or the result (1, 0, -1) for the side to move;
* ``in_check(s, history)``: whether the side to move is in check;
* ``perft(s, history, depth)``: leaves by the independent rules;
* ``own_perft(s, depth)``: leaves by the game's own perft;
* ``theta(rng)``: random weights for the linear evaluation;
* ``own_evaluate(s, theta)``: the game's own linear evaluation, or None without one apart from
  the adapter's;
* ``published_perft``: depth -> leaves from the start position, published.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from gamelib.games.protocol import ONGOING
from gamelib.games.minishogi import core as mcore
from gamelib.games.minishogi.notation import format_sfen, format_usi
from gamelib.games.othello import core as ocore

_HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class MinishogiOracle:
    """Fairy-Stockfish's minishogi, adapted to our rules by :mod:`gamelib.games.minishogi.ffish`."""

    #: The published minishogi perft of the start position (as tests/games/minishogi uses).
    published_perft = {1: 14, 2: 181, 3: 2_512, 4: 35_401, 5: 533_203, 6: 8_276_188}

    def __init__(self):
        from gamelib.games.minishogi import ffish

        self.ff = ffish
        self.start_fen = ffish.sfen_to_fen("rbsgk/4p/5/P4/KGSBR b - 1")

    def _ffish_moves(self, history):
        return [self.ff.usi_to_ffish(format_usi(m)) for m in history]

    def legal_names(self, s):
        return self.ff.ffish_legal_usi(format_sfen(s))

    def name_of(self, s, m):
        return format_usi(int(m))

    def outcome(self, s, history):
        winner = self.ff.ffish_outcome(self.start_fen, self._ffish_moves(history))
        if winner is None:
            return ONGOING
        if winner == "draw":
            return 0
        to_move = "sente" if format_sfen(s).split()[1] == "b" else "gote"
        return 1 if winner == to_move else -1

    def in_check(self, s, history):
        return bool(self.ff.sf.gives_check(self.ff.VARIANT, self.start_fen, self._ffish_moves(history)))

    def perft(self, s, history, depth):
        return self.ff.ffish_perft(self.ff.sfen_to_fen(format_sfen(s)), depth)

    def own_perft(self, s, depth):
        return int(mcore.perft(s.copy(), depth))

    def theta(self, rng):
        from gamelib.games.minishogi.features import N_FEATURES

        return rng.normal(0.0, 0.05, N_FEATURES)

    def own_evaluate(self, s, theta):
        return None


class OthelloOracle:
    """The grid-and-direction-walk Othello of ``tests/games/othello/reference.py``."""

    published_perft = {1: 4, 2: 12, 3: 56, 4: 244, 5: 1_396, 6: 8_200, 7: 55_092, 8: 390_216,
                       9: 3_005_288, 10: 24_571_284}
    PASS = "pass"

    def __init__(self):
        self.ref = _load("othello_reference_oracle", _HERE / "othello" / "reference.py")
        self.features_ref = _load("othello_features_reference_oracle", _HERE / "othello_features_reference.py")

    @staticmethod
    def colours(s):
        """``(black, white, black_to_move)`` of a state, by the layout of gamelib.games.othello.game."""
        ply = int(s[0])
        p, o = (int(x) for x in s[4 + 2 * ply:6 + 2 * ply].view(np.uint64))
        black_to_move = (int(s[1]) + ply) % 2 == 0
        return (p, o, True) if black_to_move else (o, p, False)

    def _grid(self, s):
        black, white, black_to_move = self.colours(s)
        grid = ["X" if black >> i & 1 else "O" if white >> i & 1 else "-" for i in range(64)]
        return grid, "X" if black_to_move else "O"

    def legal_names(self, s):
        grid, side = self._grid(s)
        moves = self.ref.legal(grid, side)
        if not moves and self.ref.legal(grid, self.ref.other(side)):
            return {self.PASS}
        return set(moves)

    def name_of(self, s, m):
        return self.PASS if int(m) == 64 else int(m)

    def outcome(self, s, history):
        grid, side = self._grid(s)
        if not self.ref.game_over(grid):
            return ONGOING
        return int(np.sign(self.ref.score(grid, side, False)))

    def in_check(self, s, history):
        return False

    def perft(self, s, history, depth):
        grid, side = self._grid(s)
        return self.ref.perft(grid, side, depth)

    def own_perft(self, s, depth):
        black, white, black_to_move = self.colours(s)
        p, o = (black, white) if black_to_move else (white, black)
        return int(ocore.perft(np.uint64(p), np.uint64(o), depth))

    def theta(self, rng):
        from gamelib.games.othello.features import N_FEATURES

        return rng.normal(0.0, 1.0, N_FEATURES)

    def own_evaluate(self, s, theta):
        """The evaluation of the plain-Python feature reference (``othello_features_reference``),
        summed in its order."""
        grid, side = self._grid(s)
        return self.features_ref.evaluate(grid, side, theta)


#: Game name -> its oracle; every registered game needs one.
ORACLES = {"minishogi": MinishogiOracle, "othello": OthelloOracle}

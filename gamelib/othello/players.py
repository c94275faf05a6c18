"""Othello players and the games between them.

Players: :class:`RandomPlayer` (uniform over legal moves), and :class:`SearchPlayer` (αβ search
of :mod:`gamelib.othello.search` with a leaf evaluation); the factories :func:`greedy_player`
(most discs after the move), :func:`positional_player` (classic square weights),
:func:`mlp_player` (the Othello value-network paper's network) and :func:`table_player` (the value table,
with the network where the table has no entry).

**Orientation.** The value table and the network are learned from WTHOR records, every one of
which is stored with the first move f5 (:mod:`gamelib.othello.symmetry`). A game that starts
with c4, d3 or e6 is the image of an f5 game under one of the start position's symmetries ``S``
(:func:`gamelib.othello.symmetry.symmetry_to_f5`), and the records know its positions only as
``S(s)``. A player made with ``orient=True`` (the default of :func:`mlp_player` and
:func:`table_player`) therefore searches ``S(s)`` instead of ``s`` and plays ``S⁻¹ = S`` of the
move it finds there: every leaf is looked up in the data's orientation, and a game from c4 is
played exactly as its mirror image from f5. ``S`` is carried through the game: :func:`play_game`
passes the game's first move to ``choose``. It is not guessed from the position, because the
position alone does not tell the first move once c4, d3, e6 and f5 are all taken, and trying the
four images of a position against the table can find more than one of them, with different
values; averaging the network over the four images would cost four evaluations per leaf and mix
in three orientations it never saw in training.

:func:`play_game` plays one game from the start position after an opening (:func:`random_opening`
draws one), every random choice of the players from the generator it is given, and records the
moves, the final discs and each side's search effort (:class:`OthelloGame`). Matches between two
players, in pairs of games from one opening with the colours swapped, are played by
:func:`gamelib.play.othello_pairs.play_match`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from . import core, symmetry
from .board import Board, square_name
from .mlp import MLP
from .search import Evaluator, search
from .value_table import ValueTable

__all__ = [
    "RandomPlayer",
    "SearchPlayer",
    "greedy_player",
    "positional_player",
    "mlp_player",
    "table_player",
    "OthelloGame",
    "random_opening",
    "play_game",
]


#: Counters of a player's effort that :func:`play_game` records per side.
_EFFORT = ("nodes", "seconds", "table_probes", "table_hits")


def _legal_squares(p, o) -> list[int]:
    mask = int(core.move_mask(np.uint64(p), np.uint64(o)))
    return [sq for sq in range(64) if mask >> sq & 1]


class RandomPlayer:
    """Plays a uniformly random legal move."""

    name = "random"

    def choose(self, black: int, white: int, black_to_move: bool, rng, first_move=None) -> int:
        p, o = (black, white) if black_to_move else (white, black)
        moves = _legal_squares(p, o)
        return moves[int(rng.integers(len(moves)))]


@dataclass
class SearchPlayer:
    """Negamax αβ to ``depth`` plies (or iterative deepening under ``node_budget``).

    Equal-valued root moves are chosen between at random (seeded), so that deterministic
    evaluations still give varied games. With ``orient``, the position is searched in the
    orientation of the WTHOR records (see the module docstring). ``nodes``, ``seconds``,
    ``table_probes`` and ``table_hits`` add up the effort and the value-table look-ups of every
    move chosen.
    """

    evaluator: Evaluator
    depth: int
    node_budget: int | None = None
    name: str = ""
    orient: bool = False
    nodes: int = field(default=0, init=False)
    seconds: float = field(default=0.0, init=False)
    table_probes: int = field(default=0, init=False)
    table_hits: int = field(default=0, init=False)

    def __post_init__(self):
        if isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1:
            raise ValueError(f"search depth must be an integer >= 1, got {self.depth!r}")
        if not self.name:
            self.name = f"{self.evaluator.kind}-d{self.depth}"

    def choose(self, black: int, white: int, black_to_move: bool, rng, first_move=None) -> int:
        """The move to play; ``first_move`` is the game's first move (None before it)."""
        start = time.perf_counter()
        sym = self._symmetry(black, white, first_move)
        black, white = (int(symmetry.transform(sym, np.uint64(x))) for x in (black, white))
        result = search(black, white, black_to_move, self.evaluator, self.depth,
                        self.node_budget, tie_break=float(rng.random()))
        self.seconds += time.perf_counter() - start
        self.nodes += result.nodes
        self.table_probes += result.table_probes
        self.table_hits += result.table_hits
        return result.move if result.move < 0 else symmetry.transform_square(sym, result.move)

    def _symmetry(self, black, white, first_move) -> int:
        """The symmetry that maps this game into the data's orientation (identity without
        ``orient``)."""
        if not self.orient:
            return symmetry.IDENTITY
        if first_move is not None:
            return symmetry.symmetry_to_f5(first_move)
        if (int(black), int(white)) == (int(core.START_BLACK), int(core.START_WHITE)):
            return symmetry.IDENTITY  # every symmetry keeps the start position
        raise ValueError(f"player {self.name} orients positions as in the game records and "
                         "needs the game's first move (first_move) after the start position")


def greedy_player() -> SearchPlayer:
    """Plays the move that leaves it the most discs (ties broken at random)."""
    return SearchPlayer(Evaluator.discs(), 1, name="greedy")


def positional_player(depth: int = 2, weights=None) -> SearchPlayer:
    """αβ with the classic square weights (:data:`gamelib.othello.search.CLASSIC_WEIGHTS`)."""
    return SearchPlayer(Evaluator.positional(weights), depth, name=f"positional-d{depth}")


def mlp_player(mlp: MLP, depth: int = 2, node_budget: int | None = None,
               orient: bool = True) -> SearchPlayer:
    """αβ with the value network as its evaluation, positions in the records' orientation
    unless ``orient=False``."""
    return SearchPlayer(Evaluator.from_mlp(mlp), depth, node_budget, name=f"mlp-d{depth}",
                        orient=orient)


def table_player(table: ValueTable, depth: int = 2, fallback: MLP | None = None,
                 orient: bool = True) -> SearchPlayer:
    """αβ with the value table where it has the position, else ``fallback`` (or an even 0),
    positions in the records' orientation unless ``orient=False``."""
    name = f"table{'+mlp' if fallback is not None else ''}-d{depth}"
    return SearchPlayer(Evaluator.from_table(table, fallback), depth, name=name, orient=orient)


@dataclass(frozen=True)
class OthelloGame:
    """One finished game: the moves (squares, passes left out), the final disc counts, and
    the search nodes, seconds, value-table look-ups and hits of Black and of White."""

    moves: tuple
    black_discs: int
    white_discs: int
    nodes: tuple = (0, 0)
    seconds: tuple = (0.0, 0.0)
    table_probes: tuple = (0, 0)
    table_hits: tuple = (0, 0)

    @property
    def score(self) -> int:
        """Black minus white, empty squares to the winner (World Othello Federation rule)."""
        diff = self.black_discs - self.white_discs
        empties = 64 - self.black_discs - self.white_discs
        return diff + empties if diff > 0 else diff - empties if diff < 0 else 0

    def move_string(self) -> str:
        return "".join(square_name(sq) for sq in self.moves)


def random_opening(n_plies: int, rng) -> tuple:
    """``n_plies`` uniformly random legal moves from the start position (fewer if the game ends)."""
    p, o = core.START_BLACK, core.START_WHITE
    moves = []
    while len(moves) < n_plies:
        legal = _legal_squares(p, o)
        if not legal:
            if core.is_game_over(p, o):
                break
            p, o = o, p
            continue
        sq = legal[int(rng.integers(len(legal)))]
        p, o = core.make_move(p, o, sq)
        p, o = np.uint64(o), np.uint64(p)
        moves.append(sq)
    return tuple(moves)


def play_game(black_player, white_player, opening=(), rng=None) -> OthelloGame:
    """Play one game from the start position after the moves ``opening`` (passes implied).

    Parameters
    ----------
    black_player, white_player
        Objects with ``choose(black, white, black_to_move, rng, first_move) -> square``
        (``first_move``: the game's first square, None before it).
    opening : sequence of int
        Squares played first (must be legal).
    rng : numpy Generator, optional
        Source of the players' random choices (default: seeded with 0).
    """
    rng = np.random.default_rng(0) if rng is None else rng
    effort = {key: [0, 0] for key in _EFFORT}
    black, white = core.START_BLACK, core.START_WHITE
    black_to_move = True
    moves = []
    k = 0
    while True:
        p, o = (black, white) if black_to_move else (white, black)
        mask = int(core.move_mask(p, o))
        if mask == 0:
            if int(core.move_mask(o, p)) == 0:
                break
            black_to_move = not black_to_move
            continue
        if k < len(opening):
            sq = int(opening[k])
            k += 1
        else:
            player = black_player if black_to_move else white_player
            before = [getattr(player, key, 0) for key in _EFFORT]
            sq = int(player.choose(int(black), int(white), black_to_move, rng,
                                   moves[0] if moves else None))
            side = 0 if black_to_move else 1
            for key, b in zip(_EFFORT, before):
                effort[key][side] += getattr(player, key, 0) - b
        if not (0 <= sq < 64 and mask >> sq & 1):
            who = getattr(black_player if black_to_move else white_player, "name", "player")
            raise ValueError(f"illegal move {sq} by {who} after {len(moves)} moves")
        p, o = (np.uint64(x) for x in core.make_move(p, o, sq))
        black, white = (p, o) if black_to_move else (o, p)
        moves.append(sq)
        black_to_move = not black_to_move
    if k < len(opening):
        raise ValueError(f"opening {opening} ends the game after {k} moves")
    return OthelloGame(tuple(moves), int(core.popcount(black)), int(core.popcount(white)),
                       **{key: tuple(v) for key, v in effort.items()})


# --- benchmark ----------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """Benchmark of the value-network pipeline (``python -m gamelib.othello.players``).

    Prints states indexed per second (replay + counting), MLP training samples per second and
    αβ nodes per second with the MLP and with the positional evaluation, after numba
    compilation, in one process. Each number is the best of ``--repeat`` runs.
    """
    from gamelib.runtime import cli

    from .mlp import PAPER_SIZES, train
    from .value_table import build_tables, load_years

    parser = cli.ArgumentParser(prog="python -m gamelib.othello.players",
                                description=main.__doc__)
    parser.add_argument("--years", nargs=2, type=int, default=[2009, 2018],
                        metavar=("FIRST", "LAST"), help="WTHOR years to index")
    parser.add_argument("--train-years", nargs=2, type=int, default=[2017, 2018],
                        metavar=("FIRST", "LAST"), help="years of the training benchmark")
    parser.add_argument("--depth", type=int, default=4, help="search depth")
    parser.add_argument("--positions", type=int, default=30, help="positions searched")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    def best(fn):
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - start)
        return min(times), out

    records = load_years(*args.years)
    build_tables(records[:50])  # compile
    sec, tables = best(lambda: build_tables(records))
    n = tables.full.info["states"]
    print(f"value table {args.years[0]}-{args.years[1]}: {len(records)} games, {n} states "
          f"({len(tables.full)} distinct) replayed and counted in {sec:.2f} s = "
          f"{n / sec / 1e6:.2f} M states/s")

    train_tables = build_tables(load_years(*args.train_years))
    net = MLP.init(PAPER_SIZES, seed=0)
    sec, hist = best(lambda: train(net.copy(), train_tables.full, epochs=1, progress=False))
    print(f"MLP {'-'.join(map(str, PAPER_SIZES))} training, batch 256, float32: "
          f"{hist.samples} samples in {sec:.2f} s = {hist.samples / sec:,.0f} samples/s "
          f"(incl. the end-of-epoch eq. 4 evaluation)")

    rng = np.random.default_rng(0)
    starts = []
    while len(starts) < args.positions:
        board = Board()
        board.play(list(random_opening(20, rng)))
        if board.must_pass():
            board.push("pass")
        if not board.is_game_over():
            starts.append((board.black, board.white, board.turn == "X"))
    for label, ev in (("MLP", Evaluator.from_mlp(net)), ("positional", Evaluator.positional())):
        search(*starts[0], ev, 2)  # compile

        def run():
            return sum(search(*pos, ev, args.depth).nodes for pos in starts)

        sec, nodes = best(run)
        print(f"alpha-beta depth {args.depth}, {label} evaluation: {nodes} nodes in {sec:.2f} s "
              f"= {nodes / sec:,.0f} nodes/s ({args.positions} positions after 20 random moves)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

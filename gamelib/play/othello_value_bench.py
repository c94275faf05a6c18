"""The Othello value chapter's pipeline: ``python -m gamelib.bench othello_value [options]``.

Prints, in one process after numba compilation, each the best of ``--repeat`` runs: states
replayed and counted per second into the value tables (:func:`gamelib.games.othello.value_table.build_tables`),
training samples per second of the paper's network (:func:`gamelib.games.othello.mlp.train`, one
epoch), and root searches per second of the chapter's players at ``--depth``
(:class:`gamelib.play.games.BestMovePlayer` over the network and over the classic square
weights, :mod:`gamelib.play.othello_players`) on positions after 20 random moves.
"""

from __future__ import annotations

import time

import numpy as np

from gamelib.games import registry
from gamelib.games.othello.mlp import MLP, PAPER_SIZES, train
from gamelib.games.othello.value_table import build_tables, load_years
from gamelib.play import othello_players as op
from gamelib.play.games import random_opening
from gamelib.runtime import cli

__all__ = ["main"]


def _best(repeat: int, fn):
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main(argv: list[str] | None = None) -> int:
    parser = cli.ArgumentParser(prog="python -m gamelib.bench othello_value",
                                description=__doc__.split("\n\n")[0])
    parser.add_argument("--years", nargs=2, type=int, default=[2009, 2018],
                        metavar=("FIRST", "LAST"), help="WTHOR years to index")
    parser.add_argument("--train-years", nargs=2, type=int, default=[2017, 2018],
                        metavar=("FIRST", "LAST"), help="years of the training benchmark")
    parser.add_argument("--depth", type=int, default=4, help="search depth of the players")
    parser.add_argument("--positions", type=int, default=30, help="positions searched")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if min(args.depth, args.positions, args.repeat) < 1:
        parser.error("--depth, --positions and --repeat must be >= 1")

    def run() -> int:
        records = load_years(*args.years)
        build_tables(records[:50])  # compile
        sec, tables = _best(args.repeat, lambda: build_tables(records))
        n = tables.full.info["states"]
        print(f"value table {args.years[0]}-{args.years[1]}: {len(records)} games, {n} states "
              f"({len(tables.full)} distinct) replayed and counted in {sec:.2f} s = "
              f"{n / sec / 1e6:.2f} M states/s")

        train_tables = build_tables(load_years(*args.train_years))
        net = MLP.init(PAPER_SIZES, seed=0)
        sec, hist = _best(args.repeat, lambda: train(net.copy(), train_tables.full, epochs=1,
                                                     progress=False))
        print(f"MLP {'-'.join(map(str, PAPER_SIZES))} training, batch 256, float32: "
              f"{hist.samples} samples in {sec:.2f} s = {hist.samples / sec:,.0f} samples/s "
              f"(incl. the end-of-epoch eq. 4 evaluation)")

        game = registry.get("othello")
        rng = np.random.default_rng(0)
        starts = []
        while len(starts) < args.positions:
            s = game.with_room(game.start(), 130)
            for m in random_opening(game, rng, 20, game.start()):
                game.make_move(s, m)
            buf = np.empty(game.MAX_MOVES, dtype=np.int32)
            if int(game.gen_moves(s, buf, 0)) > 0:
                starts.append(s)
        for label, player in (("network", op.mlp_player(net, args.depth, orient=False)),
                              ("positional", op.positional_player(args.depth))):
            player.candidates(game, starts[0], 0)  # compile
            sec, _ = _best(args.repeat, lambda: [player.candidates(game, s, 0) for s in starts])
            print(f"best-move search to depth {args.depth} over the {label} evaluation: "
                  f"{args.positions} positions in {sec:.3f} s = {args.positions / sec:,.1f} "
                  f"positions/s (after 20 random moves)")
        return 0

    return cli.run_guarded(run)


if __name__ == "__main__":
    raise SystemExit(main())

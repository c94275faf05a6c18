"""Benchmark of the Bonanza learner on 5×5 shogi: training positions processed per second.

``python -m gamelib.learn.bonanza_bench [--games N] [--repeat R] [--qdepth Q]`` (or
``main(argv)`` from ``python -m gamelib.bench``) makes ``N`` expert games
(:func:`gamelib.play.expert_games.expert_games`, a small node budget: the expert is not what
is measured), then times, on one core after compilation,

* **search**: every legal move of every position searched (1 ply + ``Q`` quiescence plies) with
  its PV leaf's features (:func:`gamelib.learn.bonanza_shogi.search_positions`);
* **search + gradient**: the same plus J and its gradient (eq. 7), chunk by chunk
  (:func:`~gamelib.learn.bonanza_shogi.chunk_sums`), i.e. one epoch of a learner with k = 1;
* **gradient from cached leaves**: J and the gradient from a :class:`LeafCache` (a step of a
  learner with k > 1 between refreshes).

Each is run ``R`` times and the best is printed (the machines are shared).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gamelib.runtime import cli


def main(argv: list[str] | None = None) -> int:
    from gamelib.games.minishogi import features as E
    from gamelib.learn import bonanza as bz
    from gamelib.learn import bonanza_shogi as bs
    from gamelib.play.expert_games import ExpertSettings, expert_games

    parser = cli.ArgumentParser(prog="bonanza_bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40, help="expert games (default 40)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measure, best kept")
    parser.add_argument("--qdepth", type=int, default=4, help="quiescence plies (default 4)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.repeat < 1 or args.qdepth < 0:
        parser.error("--games and --repeat must be >= 1, --qdepth >= 0")
    games = expert_games(args.games, 0, ExpertSettings(node_budget=1000))
    positions = bs.RecordPositions(games)
    theta = E.initial_theta(0)
    settings = bs.SearchSettings(depth=1, qdepth=args.qdepth)
    ids = np.arange(len(positions))
    n = len(positions)
    bs.chunk_sums(theta, positions, ids[:50], settings)          # compile
    cache = bs.search_positions(theta, positions, ids, settings)

    def best(fn):
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return min(times)

    moves = int(cache.move_ptr[-1])
    print(f"{n} positions from {len(games)} expert games, {moves / n:.1f} legal moves per "
          f"position, {cache.leaf_ptr[-1] / moves:.0f} feature entries per PV leaf "
          f"({cache.nbytes / n / 1024:.1f} KiB per cached position)")
    t = best(lambda: bs.search_positions(theta, positions, ids, settings))
    print(f"search (1 ply + {args.qdepth} qplies, every move): {n} positions in {t:.2f} s = "
          f"{n / t:,.0f} positions/s = {moves / t:,.0f} moves/s (single core, after compile)")
    t = best(lambda: bs.chunk_sums(theta, positions, ids, settings))
    print(f"search + J + gradient: {n} positions in {t:.2f} s = {n / t:,.0f} positions/s "
          f"(single core, after compile)")
    cs = cache.comparison_set()
    t = best(lambda: bz.objective_and_gradient(theta, cache.comparison_set(), slope=bs.SLOPE))
    t_cs = best(lambda: bz.objective_and_gradient(theta, cs, slope=bs.SLOPE))
    print(f"J + gradient from cached leaves: {n / t:,.0f} positions/s including the cache "
          f"conversion, {n / t_cs:,.0f} positions/s without (single core)")
    print("(a shared machine: best of", args.repeat, "runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

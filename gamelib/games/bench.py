"""Benchmark: the generic perft over the protocol against each game's own perft, as a ratio.

``python -m gamelib.games.bench [--games minishogi othello] [--repeat 5]``

For each game, the game's own perft (:func:`gamelib.games.minishogi.core.perft`,
:func:`gamelib.games.othello.core.perft`, what ``python -m gamelib.bench minishogi|othello`` times) and
:func:`gamelib.games.perft.perft` count the leaves from the start position at the same depth,
after compilation, alternately, ``--repeat`` times each; the best leaves/s of each (wall clock
and process CPU time) and their ratio generic / own are printed. Both must count the same
leaves. Single core; on a shared machine run it niced and read the CPU-time ratio.
"""

from __future__ import annotations

import time

import numpy as np

from gamelib.games.minishogi import core as _shogi
from gamelib.games.othello import core as _othello
from gamelib.runtime import cli
from . import registry
from .perft import perft

#: The game's own perft from the start position, and the depth timed.
NATIVE = {
    "minishogi": (lambda game, depth: _shogi.perft(game.start(64), depth), 6),
    "othello": (lambda game, depth: _othello.perft(_othello.START_BLACK, _othello.START_WHITE, depth), 11),
}


def _timed(run, repeat_index, times):
    """Run once; its wall and CPU seconds into ``times[repeat_index]``; returns the leaves."""
    t0, c0 = time.perf_counter(), time.process_time()
    leaves = int(run())
    times[repeat_index] = (time.perf_counter() - t0, time.process_time() - c0)
    return leaves


def compare(name: str, repeat: int, depth: int | None = None) -> dict:
    """Time both perfts of game ``name``; returns leaves, the best wall and CPU seconds of each
    and the ratios of the generic's rate to the game's own."""
    game = registry.get(name)
    native, default_depth = NATIVE[name]
    depth = depth or default_depth
    state = game.start(64)
    runs = {"own": lambda: native(game, depth), "generic": lambda: perft(game, state, depth)}
    native(game, 3), perft(game, state, 3)   # compile, or load from the cache
    times = {k: np.zeros((repeat, 2)) for k in runs}
    leaves = {}
    for i in range(repeat):
        for k, run in runs.items():
            leaves[k] = _timed(run, i, times[k])
    if leaves["own"] != leaves["generic"]:
        raise SystemExit(f"error: {name} perft({depth}): own {leaves['own']}, generic {leaves['generic']}")
    best = {k: t.min(axis=0) for k, t in times.items()}
    return {"game": name, "depth": depth, "leaves": leaves["own"],
            "own_wall": best["own"][0], "generic_wall": best["generic"][0],
            "own_cpu": best["own"][1], "generic_cpu": best["generic"][1],
            "ratio_wall": best["own"][0] / best["generic"][0],
            "ratio_cpu": best["own"][1] / best["generic"][1]}


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print one line per game; returns the exit status."""
    parser = cli.ArgumentParser(prog="python -m gamelib.games.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(NATIVE), choices=list(NATIVE))
    parser.add_argument("--repeat", type=int, default=5, help="runs of each perft; the best counts")
    parser.add_argument("--depth", type=int, default=None, help="perft depth (default: 6 shogi, 11 Othello)")
    args = parser.parse_args(argv)
    if args.repeat < 1 or (args.depth is not None and not 2 <= args.depth <= 14):
        parser.error("need --repeat >= 1 and 2 <= --depth <= 14")
    for name in args.games:
        r = compare(name, args.repeat, args.depth)
        print(f"{name}: perft({r['depth']}) = {r['leaves']:,} leaves; own "
              f"{r['leaves'] / r['own_wall'] / 1e6:.1f} M/s, generic {r['leaves'] / r['generic_wall'] / 1e6:.1f} M/s "
              f"(wall); generic / own = {r['ratio_wall']:.3f} wall, {r['ratio_cpu']:.3f} CPU time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

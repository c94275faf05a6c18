"""Games/s at the PGLeaf experiment's match settings: ``python -m gamelib.bench matches``.

A learner (the paper's Table-1 start, qdepth 4) plays the reference opponent (qdepth 8), both
with iterative deepening under 5,000 nodes per move and evaluation noise of variance 0.001, the
colours alternating -- the games of the round-robins and the gauntlet. CPU time of the process,
single thread, after compilation, best of ``--repeat`` runs.
"""

from __future__ import annotations

import time

from gamelib.runtime import cli
from gamelib.games.minishogi import features as ev
from gamelib.play.shogi import PAPER_NOISE_STD, SearchPlayer, play_game, reference_player

__all__ = ["main"]


def main(argv: list[str]) -> int:
    ap = cli.ArgumentParser(prog="python -m gamelib.bench matches",
                            description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10, help="games per run")
    ap.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    args = ap.parse_args(argv)
    if args.games < 1 or args.repeat < 1:
        ap.error("--games and --repeat must be >= 1")
    learner = SearchPlayer(ev.initial_theta(0), ev.EVAL_LINEAR, node_budget=5000, max_depth=32,
                           qdepth=4, noise_std=PAPER_NOISE_STD)
    reference = reference_player(node_budget=5000, noise_std=PAPER_NOISE_STD)

    def games():
        return sum(play_game(*((learner, reference) if g % 2 == 0 else (reference, learner)),
                             g).plies for g in range(args.games))

    play_game(learner, reference, 0)  # compile
    best, plies = float("inf"), 0
    for _ in range(args.repeat):
        t0 = time.process_time()
        plies = games()
        best = min(best, time.process_time() - t0)
    print(f"learner v reference at the match settings: {args.games} games, {plies} plies in "
          f"{best:.2f} s CPU = {args.games / best:.2f} games/s")
    return 0

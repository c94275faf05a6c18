"""Benchmark of the PGLeaf experiment's self-play: games and moves per second.

``python -m gamelib.bench selfplay [--games N] [--repeat R] [--algorithms A ...]`` (or
``main(argv)``). Single process, after compilation, the best of ``--repeat`` runs in CPU time of
the process (shared machines make wall-clock times noisy). Each algorithm plays ``--games`` self-play games from the paper's initial
parameters (:func:`gamelib.games.minishogi.features.initial_theta`, seed 0) with the paper's settings
(:func:`gamelib.learn.learners.settings`, MDP reward), through each learner's ``play_games``:
PGLeaf and REINFORCE through :func:`~gamelib.learn.pg_selfplay.play_pg_games` (θ fixed, g(m)
recorded), TDLeaf(λ) and TD(λ) through :func:`~gamelib.learn.td_selfplay.play_td_games` (θ
updated after every game).

``--theta PATTERN`` starts each algorithm from a parameter file instead, ``{algorithm}`` in the
pattern standing for its name: learned parameters play longer games with larger quiescence
trees than the initial ones, so a training time estimated from them is closer to a real run's.
The committed first paper run's parameters after 100,000 games, for example::

    python -m gamelib.bench selfplay --theta \
        'data/results/paper/pgleaf/seed-0/theta/{algorithm}_mdp_0_100000.npz'

A *move* is one ply of a game: the side to move scores every legal move (PGLeaf, TDLeaf(λ):
the move, then up to 4 plies of quiescence; REINFORCE, TD(λ): the static evaluation after the
move) and samples one from the softmax. The paper profile of ``gamelib.experiments pgleaf`` plays
2.4 million such games (4 algorithms x 2 rewards x 3 replicates x 100,000), so its training
time on ``w`` cores is about ``2.4e6 / (w * games/s of the mix)``, which the benchmark prints
(for the parameters it was given: the rate falls as the parameters are learned).
"""

from __future__ import annotations

import time

import numpy as np

from gamelib.runtime import cli


def main(argv: list[str] | None = None) -> int:
    from gamelib.games.minishogi import features as E
    from gamelib.learn import learners
    from gamelib.learn.selfplay import SHOGI

    parser = cli.ArgumentParser(prog="python -m gamelib.bench selfplay",
                                description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per run and algorithm")
    parser.add_argument("--repeat", type=int, default=3, help="runs (best reported)")
    parser.add_argument("--algorithms", nargs="+", default=list(learners.names()),
                        choices=list(learners.names()))
    parser.add_argument("--theta", metavar="PATTERN", default=None,
                        help="parameter file of each algorithm, '{algorithm}' standing for its "
                             "name (default: the paper's initial parameters, seed 0)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.repeat < 1:
        parser.error("--games and --repeat must be positive")
    if args.theta is not None and "{algorithm}" not in args.theta:
        parser.error("--theta needs '{algorithm}' in the pattern (one file per algorithm)")
    thetas = {}
    for algorithm in args.algorithms:
        if args.theta is None:
            thetas[algorithm] = E.initial_theta(0)
            continue
        path = args.theta.replace("{algorithm}", algorithm)
        try:
            thetas[algorithm] = E.load_theta(path)
        except (OSError, ValueError) as exc:
            parser.error(f"--theta: cannot load {algorithm}'s parameters from {path}: {exc}")
    seeds = np.arange(args.games, dtype=np.int64) + 12345
    total_time = 0.0
    for algorithm in args.algorithms:
        learner = learners.get(algorithm)
        settings = learner.settings()
        theta = thetas[algorithm]

        def play(game_seeds):
            return learner.play_games(theta, settings, game_seeds, SHOGI)

        play(seeds[:1])                                                   # compile
        best, records = np.inf, []
        for _ in range(args.repeat):
            t = time.process_time()
            records = play(seeds)
            best = min(best, time.process_time() - t)
        plies = sum(r.plies for r in records)
        total_time += best
        print(f"{algorithm:>9}: {args.games} games, {plies / args.games:.1f} plies each, "
              f"{best:.2f} s = {args.games / best:.1f} games/s, {plies / best:,.0f} moves/s "
              f"(single core CPU time, after compile, best of {args.repeat})")
    if len(args.algorithms) > 1:
        mix = len(args.algorithms) * args.games / total_time
        print(f"the mix: {mix:.1f} games/s (single core, equal numbers of games per algorithm)")
        if len(args.algorithms) == len(learners.names()):
            print(f"paper profile's 2.4 million self-play games at this rate: "
                  f"{2.4e6 / (2 * mix) / 60:.0f} min on 2 cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

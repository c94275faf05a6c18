"""Benchmark of elmo's pipeline: teacher positions generated per second, training positions per second.

``python -m gamelib.learn.elmo_bench [--games N] [--node-budget B] [--epochs E] [--repeat R]``
(or ``main(argv)`` from the bench dispatcher). Single process, after compilation; the best of
``--repeat`` runs is reported (shared machines are noisy).

* Teacher: :func:`gamelib.learn.teacher.play_teacher_games` with the reference evaluation, deep
  search at ``--node-budget`` nodes per position: recorded positions / wall second (a position
  costs one deep search and one quiescence search).
* Training: the AdaGrad kernel of :func:`gamelib.learn.elmo_train.train` (elmo's loss, λ = 0.5,
  mini-batches of 64) on those positions: positions processed / wall second, without the
  held-out evaluations.
"""

from __future__ import annotations

import time

import numpy as np

from gamelib.runtime import cli


def main(argv: list[str] | None = None) -> int:
    from gamelib.games.minishogi import features as E
    from gamelib.learn import elmo_train as L
    from gamelib.learn import teacher as T

    parser = cli.ArgumentParser(prog="python -m gamelib.learn.elmo_bench",
                                description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="teacher games per run")
    parser.add_argument("--node-budget", type=int, default=2000, help="deep search nodes")
    parser.add_argument("--epochs", type=int, default=200, help="training epochs per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs (best reported)")
    args = parser.parse_args(argv)
    settings = T.TeacherSettings(node_budget=args.node_budget, opening_plies=4)
    theta = settings.theta()
    T.play_teacher_games((theta, settings.as_dict(), 0, 0, 1))         # compile
    best, data = np.inf, None
    for r in range(args.repeat):
        t = time.perf_counter()
        data = T.play_teacher_games((theta, settings.as_dict(), 0, 1, args.games))
        best = min(best, time.perf_counter() - t)
    print(f"teacher: {data.size} positions of {args.games} games (deep search {args.node_budget} "
          f"nodes) in {best:.2f} s = {data.size / best:.0f} positions/s "
          f"(single core, after compile, best of {args.repeat}; shared machine)")
    batch, _ = T.leaf_batch(data)
    f = batch.features
    w = E.initial_theta(0)
    g2, grad = np.zeros_like(w), np.zeros_like(w)
    mark, touched = np.zeros(w.size, np.int8), np.zeros(w.size, np.int64)
    n = batch.n_positions

    def epochs():
        rng = np.random.default_rng(0)
        for _ in range(args.epochs):
            order = rng.permutation(n).astype(np.int64)
            L._adagrad_epoch(w, g2, f.indptr, f.indices, f.values, batch.shallow_bias,
                             batch.deep_eval, batch.result, order, 0, n, 64, 0.5, 0.15, 0,
                             1e-3, 1e-8, grad, mark, touched)

    epochs()                                                              # compile
    best = np.inf
    for r in range(args.repeat):
        t = time.perf_counter()
        epochs()
        best = min(best, time.perf_counter() - t)
    total = n * args.epochs
    nnz = f.indices.size / max(n, 1)
    print(f"training: {total} positions ({args.epochs} epochs of {n}, {nnz:.0f} non-zero "
          f"features each; AdaGrad, elmo's loss, mini-batches of 64) in {best:.3f} s = "
          f"{total / best / 1e6:.2f} M positions/s (single core, after compile, best of "
          f"{args.repeat})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

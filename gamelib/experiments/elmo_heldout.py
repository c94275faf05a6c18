"""Held-out cross-entropies of a finished elmo run, per game, with game-bootstrap intervals.

The run's ``final.csv`` gives each loss's held-out cross-entropy of the results,

.. math:: \\frac{1}{N} \\sum_i -\\bigl[t_i \\log \\sigma(s_i/K) + (1 - t_i) \\log(1 - \\sigma(s_i/K))\\bigr]

over the held-out positions :math:`i` (:func:`gamelib.learn.elmo_train.metrics`), without an
interval. Summed per held-out game it becomes :math:`\\sum_g a_g / \\sum_g n_g`, which gets the
game bootstrap of :func:`gamelib.learn.heldout.game_bootstrap` (whole games resampled, the same
resamples for every loss, so differences between losses are paired).

It needs the run's teacher positions (``teacher.npz``: :func:`gamelib.learn.teacher.save_teacher`),
from which the split (:func:`gamelib.experiments.elmo_shogi.split_games`, the run's seed) and
the scale K (fitted on the training positions) are made again, and the learned weights
``theta/<loss>.npz``. The per-game sums must give ``final.csv``'s numbers again (to 1e-9),
or nothing is written.

``python -m gamelib.experiments.elmo_heldout FOLDER [--teacher PATH]`` writes
``heldout_by_game.csv``, ``heldout_intervals.csv`` and ``heldout_differences.csv`` into FOLDER.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from gamelib.games.minishogi import features as ev
from gamelib.learn import elmo_train as L
from gamelib.learn import teacher as T
from gamelib.learn.elmo import cross_entropy
from gamelib.learn.heldout import game_bootstrap, per_game_sums
from gamelib.runtime.atomic import read_json

__all__ = ["heldout_by_game", "write_intervals", "main"]

N_BOOT = 10_000
BOOT_SEED = 0


def heldout_by_game(positions, thetas: dict, test_fraction: float, seed: int):
    """Per loss and held-out game: decisive positions and the summed cross-entropy of the
    results (a DataFrame with ``evaluation, game, positions, result_xent_sum``)."""
    import pandas as pd

    from gamelib.experiments.elmo_shogi import split_games

    rows_train, rows_test = split_games(positions, test_fraction, seed)
    train, _ = T.leaf_batch(positions, rows_train, draws="drop")
    test, kept = T.leaf_batch(positions, rows_test, draws="drop")
    scale = L.fit_scale(train.deep_eval, train.result)
    frames = []
    for name, theta in thetas.items():
        xent = cross_entropy(test.result, test.shallow_eval(theta), scale)
        games, sums, counts = per_game_sums(xent, positions["game"][kept])
        frames.append(pd.DataFrame({"evaluation": name, "game": games, "positions": counts,
                                    "result_xent_sum": sums}))
    return pd.concat(frames, ignore_index=True)


def _bootstrap(by_game):
    names = list(dict.fromkeys(by_game.evaluation))
    wide = by_game.pivot(index="game", columns="evaluation", values="result_xent_sum")[names]
    counts = by_game.pivot(index="game", columns="evaluation", values="positions")[names]
    return game_bootstrap(wide.to_numpy(), counts.to_numpy(), names, n_boot=N_BOOT,
                          seed=BOOT_SEED)


def write_intervals(folder, teacher=None):
    """Compute, check against ``final.csv`` and write the three CSVs into ``folder``."""
    import pandas as pd

    from gamelib.runtime.report import write_csv

    folder = Path(folder)
    teacher = folder / "teacher.npz" if teacher is None else Path(teacher)
    if not teacher.is_file():
        raise ValueError(f"no teacher positions at {teacher}: the run folder commits only its "
                         "report; make them with gamelib.learn.teacher.generate (the run's "
                         "teacher settings and seed, in provenance.json) and pass --teacher")
    prov = read_json(folder / "provenance.json")
    final = pd.read_csv(folder / "final.csv").set_index("loss")
    positions, _ = T.load_teacher(teacher)
    thetas = {name: ev.load_theta(folder / "theta" / f"{name}.npz") for name in final.index}
    by_game = heldout_by_game(positions, thetas, float(prov["sizes"]["test_fraction"]),
                              int(prov["seed"]))
    for name, g in by_game.groupby("evaluation"):
        x = g.result_xent_sum.sum() / g.positions.sum()
        if abs(x - final.test_result_xent[name]) > 1e-9:
            raise ValueError(f"{name}: the teacher positions give a held-out cross-entropy of "
                             f"{x:.10f}, the run's final.csv {final.test_result_xent[name]:.10f}"
                             ": they are not this run's")
    boot = _bootstrap(by_game)
    iv = pd.DataFrame([{"evaluation": n, "metric": "test_result_xent", **boot.interval(n),
                        "games": boot.n_games, "n_boot": N_BOOT, "seed": BOOT_SEED}
                       for n in boot.names])
    diff = pd.DataFrame([{"first": a, "second": b, "metric": "test_result_xent",
                          **boot.difference(a, b)} for a, b in combinations(boot.names, 2)])
    write_csv(folder, "heldout_by_game.csv", by_game)
    write_csv(folder, "heldout_intervals.csv", iv)
    write_csv(folder, "heldout_differences.csv", diff)
    return by_game, iv, diff


def main(argv: list[str] | None = None) -> int:
    """``python -m gamelib.experiments.elmo_heldout FOLDER [--teacher PATH]``."""
    from gamelib.runtime import cli

    parser = cli.ArgumentParser(prog="python -m gamelib.experiments.elmo_heldout",
                                description="held-out cross-entropies of a finished elmo run "
                                            "with game-bootstrap intervals")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--teacher", type=Path, default=None)
    args = parser.parse_args(argv)

    def run() -> int:
        _, iv, diff = write_intervals(args.folder, args.teacher)
        print(iv.to_string(index=False))
        print(diff.to_string(index=False))
        return 0

    return cli.run_guarded(run)


if __name__ == "__main__":
    raise SystemExit(main())

"""Held-out agreement and J per position of a finished Bonanza run, per game, with intervals.

The run's ``summary.csv`` gives every evaluation's held-out move agreement and J per position
(:func:`gamelib.learn.bonanza_shogi.evaluate`) without an interval. Both are ratios of sums over
the held-out positions, :math:`\\sum_g a_g / \\sum_g n_g` over the held-out games :math:`g`, so
they get a **game bootstrap** (:func:`gamelib.learn.heldout.game_bootstrap`: whole games
resampled, percentile interval, the same resamples for every evaluation, hence paired
differences).

:func:`heldout_by_game` recomputes :math:`a_g` and :math:`n_g` from what a run folder commits:
``records.txt`` (the split is re-derived from it and the run's seed: :func:`~.data.split`), the
final weights ``theta/<variant>.npz``, the initial evaluation (from the seed) and the teacher's
(the reference weights), each searched as the run searched it (depth 1, the profile's
quiescence depth). Summed over the games, they give the run's ``summary.csv`` numbers again
(the agreement exactly; J to rounding), which :func:`write_intervals` checks before writing.

``python -m gamelib.experiments.bonanza_shogi.heldout FOLDER [--workers N]`` writes, beside the
run's report, ``heldout_by_game.csv`` (per evaluation and held-out game: positions, agreements,
summed J), ``heldout_intervals.csv`` (per evaluation and metric: estimate and 95 % interval) and
``heldout_differences.csv`` (every pair of evaluations: the paired difference, its interval and
the share of resamples on either side of 0).
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from gamelib.games.minishogi.reference import reference_theta
from gamelib.learn import bonanza_shogi as bs
from gamelib.learn.heldout import game_bootstrap
from gamelib.games.minishogi.records import parse_records
from gamelib.runtime.atomic import read_json
from gamelib.experiments.bonanza_shogi.config import variant_settings
from gamelib.experiments.bonanza_shogi.data import initial_theta, split
from gamelib.experiments.bonanza_shogi.report import load_report

__all__ = ["METRICS", "heldout_by_game", "intervals", "differences", "write_intervals", "main"]

#: The metrics: column of per-game sums and the name used in the tables.
METRICS = {"agreements": "agreement_test", "J_sum": "J_test"}
N_BOOT = 10_000
BOOT_SEED = 0


def _per_game_job(job):
    name, theta, settings, positions, ids_by_game = job
    rows = []
    for g, ids in ids_by_game:
        j, _, agree, n = bs.chunk_sums(theta, positions, ids, settings, want_grad=False)
        rows.append({"evaluation": name, "game": int(g), "positions": int(n),
                     "agreements": int(agree), "J_sum": float(j)})
    return rows


def heldout_by_game(folder, *, workers=None):
    """Per evaluation (initial, teacher, every variant) and held-out game: positions,
    agreements and summed J (a DataFrame; see the module docstring)."""
    import pandas as pd

    from gamelib.runtime.executor import Executor

    folder = Path(folder)
    report, sizes = load_report(folder)
    seed = int(read_json(folder / "provenance.json")["seed"])
    data = split(parse_records(report.records_text, "records.txt"), sizes, seed)
    test_game = data.positions.game[data.test]
    ids_by_game = [(g, data.test[test_game == g]) for g in np.unique(test_game)]
    base = bs.SearchSettings(depth=1, qdepth=sizes["qdepth"])
    models = [("initial", initial_theta(seed), base), ("teacher", reference_theta(), base)]
    models += [(v, report.thetas[v], variant_settings(v, sizes).search)
               for v in sizes["variants"]]
    jobs = [(name, theta, settings, data.positions, ids_by_game)
            for name, theta, settings in models]
    with Executor(workers) as ex:
        parts = ex.map(_per_game_job, jobs)
    return pd.DataFrame([row for part in parts for row in part])


def _bootstrap(by_game, metric: str):
    wide = by_game.pivot(index="game", columns="evaluation", values=metric)
    counts = by_game.pivot(index="game", columns="evaluation", values="positions")
    names = list(dict.fromkeys(by_game.evaluation))
    return game_bootstrap(wide[names].to_numpy(), counts[names].to_numpy(), names,
                          n_boot=N_BOOT, seed=BOOT_SEED)


def intervals(by_game):
    """Per evaluation and metric: the held-out estimate and its 95 % game-bootstrap interval."""
    import pandas as pd

    rows = []
    for metric, label in METRICS.items():
        boot = _bootstrap(by_game, metric)
        for name in boot.names:
            rows.append({"evaluation": name, "metric": label, **boot.interval(name),
                         "games": boot.n_games, "n_boot": N_BOOT, "seed": BOOT_SEED})
    return pd.DataFrame(rows)


def differences(by_game):
    """Every pair of evaluations and metric: the paired difference ``first - second``, its 95 %
    interval and the shares of resamples with the difference <= 0 and >= 0."""
    import pandas as pd

    rows = []
    for metric, label in METRICS.items():
        boot = _bootstrap(by_game, metric)
        for first, second in combinations(boot.names, 2):
            rows.append({"first": first, "second": second, "metric": label,
                         **boot.difference(first, second)})
    return pd.DataFrame(rows)


def _check_against_summary(by_game, summary) -> None:
    s = summary.set_index("variant")
    for name, g in by_game.groupby("evaluation"):
        n = g.positions.sum()
        agree = g.agreements.sum() / n
        j = g.J_sum.sum() / n
        if abs(agree - s.agreement_test[name]) > 1e-9 or abs(j - s.J_test[name]) > 1e-6:
            raise ValueError(f"{name}: per-game sums give agreement {agree:.10f}, J {j:.10f}; "
                             f"the run's summary.csv has {s.agreement_test[name]:.10f}, "
                             f"{s.J_test[name]:.10f}")


def write_intervals(folder, *, workers=None):
    """Compute, check against ``summary.csv`` and write the three CSVs into ``folder``;
    returns ``(by_game, intervals, differences)``."""
    import pandas as pd

    from gamelib.runtime.report import write_csv

    folder = Path(folder)
    by_game = heldout_by_game(folder, workers=workers)
    _check_against_summary(by_game, pd.read_csv(folder / "summary.csv"))
    iv, diff = intervals(by_game), differences(by_game)
    write_csv(folder, "heldout_by_game.csv", by_game)
    write_csv(folder, "heldout_intervals.csv", iv)
    write_csv(folder, "heldout_differences.csv", diff)
    return by_game, iv, diff


def main(argv: list[str] | None = None) -> int:
    """``python -m gamelib.experiments.bonanza_shogi.heldout FOLDER [--workers N]``."""
    from gamelib.runtime import cli

    parser = cli.ArgumentParser(prog="python -m gamelib.experiments.bonanza_shogi.heldout",
                                description="held-out metrics of a finished Bonanza run with "
                                            "game-bootstrap intervals")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)

    def run() -> int:
        _, iv, diff = write_intervals(args.folder, workers=args.workers)
        print(iv.to_string(index=False))
        print(diff.to_string(index=False))
        return 0

    return cli.run_guarded(run)


if __name__ == "__main__":
    raise SystemExit(main())

"""Ablations of the PGLeaf study: which of our choices make the results differ from the paper.

Each ablation changes one factor of the committed configuration (the ``paper`` profile) and
reruns the experiment for :data:`ABLATION_GAMES` self-play games per run with the profile's
replicates -- an ordinary ``pgleaf`` run with ``-p`` overrides, so it is resumable, parallel and
deterministic like the main one, in ``data/results/paper/pgleaf/ablations/<factor>=<setting>/
seed-<seed>``::

    python -m gamelib.experiments.pgleaf.ablations run td_scale knightcap   # one ablation
    python -m gamelib.experiments.pgleaf.ablations list                     # their commands
    python -m gamelib.experiments.pgleaf.ablations table                    # ablations.csv

The factors (:data:`FACTORS`; the suspects of the study, where we deviate from the paper or
fill a gap it leaves):

* ``td_scale``: TD values squashed by tanh(β v) with KnightCap's β = 12.8 (a pawn of 0.02 ↦
  0.25) and α scaled by 1/β² (the same step in value space), instead of β = 1, α = 0.001;
* ``layout``: the antisymmetric evaluation (one weight per feature for both sides, with the
  tempo weight), under each TD scale, instead of a weight per side;
* ``baseline``: the single-number baseline of eq. (2) read with ‖g(m)‖² (``"norm"``) instead of
  one per component;
* ``max_plies``: a 500-ply cap instead of 300.

:func:`ablation_table` measures every run of every finished ablation, and the committed
configuration at the same number of games (its first 10,000 games): self-play health over the
last 1,000 games (sente's share of the results, mean plies, the share of gote's moves that
copied sente's) and the win rate against the reference (draws left out, Wilson 95 % interval).
"""

from __future__ import annotations

import math
import shlex
import sys
from pathlib import Path
from typing import Any, Mapping

from gamelib.experiments.pgleaf.config import PROFILES
from gamelib.runtime.paths import results_dir

__all__ = ["ABLATION_GAMES", "FACTORS", "ablation_sizes", "ablation_folder", "ablation_argv",
           "ablation_table", "configuration_label", "plot_ablations", "write_ablation_report"]

ABLATION_GAMES = 10_000
_KNIGHTCAP = {"beta": 12.8, "alpha": 0.001 / 12.8 ** 2}
#: factor -> setting -> (size overrides, algorithms the factor concerns)
FACTORS: dict[str, dict[str, tuple[dict, list]]] = {
    "td_scale": {"knightcap": (_KNIGHTCAP, ["tdleaf", "td"])},
    "layout": {"antisymmetric": ({"tie_sides": True}, ["pgleaf", "reinforce", "tdleaf", "td"]),
               "antisymmetric+knightcap": ({"tie_sides": True, **_KNIGHTCAP}, ["tdleaf", "td"])},
    "baseline": {"norm": ({"baseline": "norm"}, ["pgleaf", "reinforce"])},
    "max_plies": {"500": ({"max_plies": 500}, ["pgleaf", "reinforce", "tdleaf", "td"])},
}
_HEALTH_GAMES = 1000


def _setting(factor: str, setting: str) -> tuple[dict, list]:
    if factor not in FACTORS:
        raise ValueError(f"unknown factor {factor!r}; valid: {', '.join(FACTORS)}")
    if setting not in FACTORS[factor]:
        raise ValueError(f"unknown setting {setting!r} of {factor}; valid: "
                         f"{', '.join(FACTORS[factor])}")
    return FACTORS[factor][setting]


def ablation_sizes(factor: str, setting: str, games: int = ABLATION_GAMES) -> dict:
    """The ``paper`` sizes with the factor changed, ``games`` games per run, the algorithms the
    factor concerns, and the matches of that size (a round-robin and the gauntlet at the end)."""
    overrides, algorithms = _setting(factor, setting)
    paper = PROFILES["paper"]
    keep = [p for p in paper["keep_points"] if p < games] + [games]
    return {**paper, **overrides, "n_games": games, "algorithms": algorithms,
            "keep_points": keep, "table_points": [games], "curve_points": [games]}


def ablation_folder(factor: str, setting: str, seed: int = 0) -> Path:
    """``data/results/paper/pgleaf/ablations/<factor>=<setting>/seed-<seed>``."""
    _setting(factor, setting)
    return results_dir("paper", "pgleaf") / "ablations" / f"{factor}={setting}" / f"seed-{seed}"


def ablation_argv(factor: str, setting: str, seed: int = 0) -> list[str]:
    """The arguments of ``python -m gamelib.experiments`` that run (or resume) the ablation."""
    import json

    sizes = ablation_sizes(factor, setting)
    paper = PROFILES["paper"]
    argv = ["pgleaf", "--profile", "paper", "--seed", str(seed),
            "--out", str(ablation_folder(factor, setting, seed))]
    for key, value in sizes.items():
        if paper.get(key, object()) != value:
            argv += ["-p", key, json.dumps(value)]
    return argv


def _measures(report, sizes: Mapping[str, Any], factor: str, setting: str, games: int):
    from gamelib.play.stats import wilson_interval

    rows = []
    tr = report.training
    g = report.gauntlet
    for (algorithm, reward, replicate), runs in tr.groupby(["algorithm", "reward", "replicate"]):
        last = runs[(runs.games > games - _HEALTH_GAMES) & (runs.games <= games)]
        n = int((last.sente_wins + last.gote_wins + last.draws).sum())
        vs = g[(g.games == games) & (g.algorithm == algorithm) & (g.reward == reward)
               & (g.replicate == replicate)]
        wins, losses = int(vs.wins.sum()), int(vs.losses.sum())
        low, high = wilson_interval(wins, wins + losses, 0.95)
        rows.append({"factor": factor, "setting": setting, "algorithm": algorithm,
                     "reward": reward, "replicate": int(replicate), "games": games,
                     "sente_share": int(last.sente_wins.sum()) / max(n, 1),
                     "mean_plies": int(last.plies.sum()) / max(n, 1),
                     "mirror_rate": int(last.mirror_replies.sum())
                     / max(int(last.gote_moves.sum()), 1),
                     "win_rate_vs_reference": wins / (wins + losses) if wins + losses
                     else math.nan, "low": low, "high": high})
    return rows


def ablation_table(seed: int = 0, games: int = ABLATION_GAMES):
    """One row per run of every finished ablation and of the committed configuration (factor
    ``"none"``, setting ``"committed"``, its gauntlet point nearest ``games``)."""
    import pandas as pd

    from gamelib.experiments.pgleaf.report import load_report

    committed, sizes = load_report(results_dir("paper", "pgleaf") / f"seed-{seed}")
    point = min(sizes["curve_points"], key=lambda p: abs(p - games))
    rows = _measures(committed, sizes, "none", "committed", point)
    for factor, settings in FACTORS.items():
        for setting in settings:
            folder = ablation_folder(factor, setting, seed)
            if (folder / "provenance.json").is_file():
                report, run_sizes = load_report(folder)
                rows += _measures(report, run_sizes, factor, setting, run_sizes["n_games"])
    return pd.DataFrame(rows)


def configuration_label(factor: str, setting: str) -> str:
    """How a row of :func:`ablation_table` names its configuration."""
    return "committed" if factor == "none" else f"{factor}={setting}"


def plot_ablations(table, axes=None):
    """Each run of :func:`ablation_table` as a dot: its win rate against the reference (with
    the Wilson 95 % interval) and sente's share of its last self-play games, one row per
    configuration and learner, the two rewards as two markers."""
    import matplotlib.pyplot as plt

    from gamelib.experiments.pgleaf.config import ALGORITHM_LABELS, ALGORITHMS

    if axes is None:
        _, axes = plt.subplots(1, 2, sharey=True)
    config_of = table.factor.combine(table.setting, configuration_label)
    rows, labels = [], []
    for config in config_of.unique():
        for k, algorithm in enumerate(ALGORITHMS):
            runs = table[(config_of == config) & (table.algorithm == algorithm)]
            if len(runs):
                rows.append((config, algorithm, k, runs))
                labels.append(f"{config}: {ALGORITHM_LABELS[algorithm]}")
    for y, (config, algorithm, k, runs) in enumerate(rows):
        for reward, marker, dy in (("mdp", "o", -0.15), ("non_mdp", "s", 0.15)):
            r = runs[runs.reward == reward]
            axes[0].errorbar(100 * r.win_rate_vs_reference, [y + dy] * len(r),
                             xerr=[100 * (r.win_rate_vs_reference - r.low),
                                   100 * (r.high - r.win_rate_vs_reference)],
                             fmt=marker, ms=3, lw=0.6, color=f"C{k}", mfc="white"
                             if reward == "non_mdp" else f"C{k}")
            axes[1].plot(100 * r.sente_share, [y + dy] * len(r), marker, ms=3, color=f"C{k}",
                         mfc="white" if reward == "non_mdp" else f"C{k}")
    axes[0].set_yticks(range(len(rows)), labels, fontsize=7)
    axes[0].invert_yaxis()
    axes[0].axvline(50, color="grey", lw=0.6, ls="--")
    axes[0].set_xlabel("win rate against the reference (%)")
    axes[1].axvline(50, color="grey", lw=0.6, ls="--")
    axes[1].set_xlabel("sente's share of the last 1,000 self-play games (%)")
    axes[0].set_title("filled: MDP reward, open: non-MDP", fontsize=8)
    return axes


def write_ablation_report(seed: int = 0) -> list[Path]:
    """``ablations.csv`` and ``ablations.png`` in ``data/results/paper/pgleaf``."""
    import matplotlib.pyplot as plt

    from gamelib.runtime.report import write_csv, write_figure

    out = results_dir("paper", "pgleaf")
    table = ablation_table(seed)
    n_rows = len(table.groupby(["factor", "setting", "algorithm"]))
    fig, axes = plt.subplots(1, 2, sharey=True, figsize=(10, 1.2 + 0.28 * n_rows))
    plot_ablations(table, axes)
    fig.tight_layout()
    return [write_csv(out, "ablations.csv", table), write_figure(fig, out / "ablations.png")]


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m gamelib.experiments.pgleaf.ablations",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="run (or resume) one ablation")
    p_run.add_argument("factor", choices=list(FACTORS))
    p_run.add_argument("setting")
    p_run.add_argument("--seed", type=int, default=0)
    p_run.add_argument("--workers", type=int, default=None)
    sub.add_parser("list", help="print the command of every ablation")
    p_table = sub.add_parser("table", help="write data/results/paper/pgleaf/ablations.csv "
                                           "and ablations.png")
    p_table.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "list":
        for factor, settings in FACTORS.items():
            for setting in settings:
                print("python -m gamelib.experiments " + shlex.join(ablation_argv(factor,
                                                                                  setting)))
        return 0
    if args.command == "table":
        for path in write_ablation_report(args.seed):
            print(f"wrote {path}")
        return 0
    from gamelib.experiments.cli import main as cli_main

    try:
        argv = ablation_argv(args.factor, args.setting, args.seed)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.workers is not None:
        argv += ["--workers", str(args.workers)]
    return cli_main(argv)


if __name__ == "__main__":
    raise SystemExit(main())

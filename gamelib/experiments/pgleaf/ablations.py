"""Ablations of the PGLeaf study: which of our choices make the results differ from the paper.

Each ablation changes one factor of the committed configuration (the ``paper`` profile) and
reruns the experiment for :data:`ABLATION_GAMES` self-play games per run with the profile's
replicates -- an ordinary ``pgleaf`` run with ``-p`` overrides, so it is resumable, parallel and
deterministic like the main one, in ``data/results/paper/pgleaf/ablations/<factor>=<setting>/
seed-<seed>``::

    python -m gamelib.experiments.pgleaf.ablations run td_scale knightcap   # one ablation
    python -m gamelib.experiments.pgleaf.ablations head-to-head td_scale knightcap
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

:func:`head_to_head` plays every run of a finished ablation against the committed run of the
same algorithm, reward and replicate after as many games (``theta/<run>_10000.npz`` of both),
:data:`HEAD_TO_HEAD_GAMES` games with colours alternating and the committed configuration's
evaluation protocol (:func:`~gamelib.experiments.pgleaf.matches.match_settings` of the
``paper`` profile); every game's result goes to ``head_to_head.csv`` in the ablation's folder
(its checkpoints to ``head_to_head/``, resumable like every stage).

:func:`ablation_table` measures every run of every finished ablation, and the committed
configuration at the same number of games (its first 10,000 games): self-play health over the
last 1,000 games (sente's share of the results, mean plies, the share of gote's moves that
copied sente's), the win rate against the reference and, where the head-to-head was played, the
win rate against the committed run (draws left out, Wilson 95 % intervals).
"""

from __future__ import annotations

import math
import shlex
import sys
from pathlib import Path
from typing import Mapping

from gamelib.experiments.pgleaf.analysis import selfplay_health
from gamelib.experiments.pgleaf.config import PROFILES, PGLeafConfig, profile_config, runs_of
from gamelib.runtime.paths import results_dir

__all__ = ["ABLATION_GAMES", "HEAD_TO_HEAD_GAMES", "FACTORS", "ablation_sizes", "ablation_folder",
           "ablation_argv", "head_to_head", "ablation_table", "configuration_label",
           "plot_ablations", "ablation_figure", "write_ablation_report"]

ABLATION_GAMES = 10_000
#: Games of every ablation run against the committed run (half of them as sente).
HEAD_TO_HEAD_GAMES = 100
#: The per-game results of :func:`head_to_head` in an ablation's folder.
HEAD_TO_HEAD_FILE = "head_to_head.csv"
_KNIGHTCAP = {"beta": 12.8, "alpha": 0.001 / 12.8 ** 2}
#: factor -> setting -> (size overrides, algorithms the factor concerns)
FACTORS: dict[str, dict[str, tuple[dict, list]]] = {
    "td_scale": {"knightcap": (_KNIGHTCAP, ["tdleaf", "td"])},
    "layout": {"antisymmetric": ({"tie_sides": True}, ["pgleaf", "reinforce", "tdleaf", "td"]),
               "antisymmetric+knightcap": ({"tie_sides": True, **_KNIGHTCAP}, ["tdleaf", "td"])},
    "baseline": {"norm": ({"baseline": "norm"}, ["pgleaf", "reinforce"])},
    "max_plies": {"500": ({"max_plies": 500}, ["pgleaf", "reinforce", "tdleaf", "td"])},
}

def _setting(factor: str, setting: str) -> tuple[dict, list]:
    if factor not in FACTORS:
        raise ValueError(f"unknown factor {factor!r}; valid: {', '.join(FACTORS)}")
    if setting not in FACTORS[factor]:
        raise ValueError(f"unknown setting {setting!r} of {factor}; valid: "
                         f"{', '.join(FACTORS[factor])}")
    return FACTORS[factor][setting]


def ablation_sizes(factor: str, setting: str, games: int = ABLATION_GAMES) -> PGLeafConfig:
    """The ``paper`` configuration with the factor changed, ``games`` games per run, the
    algorithms the factor concerns, and the matches of that size (a round-robin and the
    gauntlet at the end)."""
    overrides, algorithms = _setting(factor, setting)
    keep = [p for p in PROFILES["paper"]["keep_points"] if p < games] + [games]
    return profile_config("paper", **{**overrides, "n_games": games, "algorithms": algorithms,
                                      "keep_points": keep, "table_points": [games],
                                      "curve_points": [games]})


def _root(root) -> Path:
    """The folder of the committed run and the ablations (default
    ``data/results/paper/pgleaf``)."""
    return results_dir("paper", "pgleaf") if root is None else Path(root)


def ablation_folder(factor: str, setting: str, seed: int = 0, root=None) -> Path:
    """``data/results/paper/pgleaf/ablations/<factor>=<setting>/seed-<seed>`` (under ``root``
    instead of ``data/results/paper/pgleaf`` if given)."""
    _setting(factor, setting)
    return _root(root) / "ablations" / f"{factor}={setting}" / f"seed-{seed}"


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


def head_to_head(factor: str, setting: str, seed: int = 0, games: int = HEAD_TO_HEAD_GAMES, *,
                 root=None, match=None, workers: int | None = None, scheduler=None,
                 progress: bool = False):
    """Play (or resume) the finished ablation's runs against the committed runs (see the module
    docstring) and write ``head_to_head.csv`` into the ablation's folder.

    Parameters
    ----------
    factor, setting : str
    seed : int
        The seed of the ablation and of the committed run (``seed-<seed>`` folders).
    games : int
        Games per run, an even number (each run is sente in half of them).
    root : str or Path, optional
        The folder holding ``seed-<seed>`` (the committed run) and ``ablations/``.
    match : MatchSettings, optional
        How the games are played; default the ``paper`` profile's
        (:func:`~gamelib.experiments.pgleaf.matches.match_settings`).
    workers, scheduler, progress
        As for every stage (the results do not depend on them).

    Notes
    -----
    Game ``r`` of a run has the seed ``derive_seed(derive_seed(seed, "head-to-head", factor,
    setting), "game", a, b, r)`` (:func:`gamelib.play.tournament.schedule`) with ``a``, ``b``
    the players ``"<factor>=<setting>:<run key>"`` and ``"committed:<run key>"``; the ablation
    moves first in the even games.

    Returns
    -------
    pandas.DataFrame
        One row per game: ``algorithm, reward, replicate, game, ablation_first`` (1 if the
        ablation's parameters moved first) and ``score`` (+1 the ablation won, 0 a draw, -1 it
        lost).

    Raises
    ------
    FileNotFoundError
        When the ablation or the committed run is not finished or lacks the parameters.
    ValueError
        On a bad number of games.
    """
    import pandas as pd

    from gamelib.experiments.pgleaf.matches import match_settings
    from gamelib.experiments.pgleaf.report import load_report
    from gamelib.experiments.pgleaf.training import saved_theta
    from gamelib.play.shogi import play_games
    from gamelib.runtime.checks import check_integer
    from gamelib.runtime.report import write_csv
    from gamelib.runtime.seeds import derive_seed

    if check_integer("games", games, 2) % 2:
        raise ValueError(f"games must be even (each run is sente in half of them), got {games}")
    folder = ablation_folder(factor, setting, seed, root)
    _, config = load_report(folder)
    match = match_settings(profile_config("paper")) if match is None else match
    mine = saved_theta(folder / "theta", config, seed, config.n_games)
    theirs = saved_theta(_root(root) / f"seed-{seed}" / "theta", config, seed, config.n_games)
    players, pairings = {}, []
    for run in runs_of(config):
        a, b = f"{factor}={setting}:{run.key}", f"committed:{run.key}"
        players[a], players[b] = match.player(mine[run.key]), match.player(theirs[run.key])
        pairings.append((a, b))
    result = play_games(players, pairings, games, derive_seed(seed, "head-to-head", factor,
                                                              setting),
                        max_plies=match.max_plies, opening_plies=match.opening_plies,
                        paired_openings=True, folder=folder / "head_to_head", workers=workers,
                        scheduler=scheduler, progress=progress)
    rows = []
    for spec, outcome in zip(result.games, result.outcomes):
        algorithm, reward, replicate = spec.pairing[0].split(":")[1].split("/")
        first = spec.first == spec.pairing[0]
        rows.append({"algorithm": algorithm, "reward": reward, "replicate": int(replicate),
                     "game": spec.round, "ablation_first": int(first),
                     "score": int(outcome) if first else -int(outcome)})
    frame = pd.DataFrame(rows, columns=["algorithm", "reward", "replicate", "game",
                                        "ablation_first", "score"])
    write_csv(folder, HEAD_TO_HEAD_FILE, frame)
    return frame


def _head_to_head_measures(folder: Path) -> dict:
    """``{(algorithm, reward, replicate): columns}`` of the win rate against the committed run,
    tallied from the ablation's ``head_to_head.csv`` (empty without one)."""
    import pandas as pd

    from gamelib.play.stats import wilson_interval

    path = folder / HEAD_TO_HEAD_FILE
    if not path.is_file():
        return {}
    out = {}
    for (algorithm, reward, replicate), g in pd.read_csv(path).groupby(
            ["algorithm", "reward", "replicate"]):
        wins, losses = int((g.score == 1).sum()), int((g.score == -1).sum())
        low, high = wilson_interval(wins, wins + losses, 0.95)
        out[(algorithm, reward, int(replicate))] = {
            "games_vs_committed": len(g),
            "win_rate_vs_committed": wins / (wins + losses) if wins + losses else math.nan,
            "low_vs_committed": low, "high_vs_committed": high}
    return out


#: The columns of :func:`ablation_table` for a run without a head-to-head.
_NO_HEAD_TO_HEAD = {"games_vs_committed": 0, "win_rate_vs_committed": math.nan,
                    "low_vs_committed": math.nan, "high_vs_committed": math.nan}


def _measures(report, factor: str, setting: str, games: int,
              versus: Mapping[tuple, dict] | None = None):
    from gamelib.play.stats import wilson_interval

    rows = []
    g = report.gauntlet
    for h in selfplay_health(report.training, games).itertuples(index=False):
        algorithm, reward, replicate = h.algorithm, h.reward, h.replicate
        vs = g[(g.games == games) & (g.algorithm == algorithm) & (g.reward == reward)
               & (g.replicate == replicate)]
        wins, losses = int(vs.wins.sum()), int(vs.losses.sum())
        low, high = wilson_interval(wins, wins + losses, 0.95)
        rows.append({"factor": factor, "setting": setting, "algorithm": algorithm,
                     "reward": reward, "replicate": int(replicate), "games": games,
                     "sente_share": h.sente_share, "mean_plies": h.mean_plies,
                     "mirror_rate": h.mirror_rate,
                     "win_rate_vs_reference": wins / (wins + losses) if wins + losses
                     else math.nan, "low": low, "high": high,
                     **(versus or {}).get((algorithm, reward, int(replicate)),
                                          _NO_HEAD_TO_HEAD)})
    return rows


def ablation_table(seed: int = 0, games: int = ABLATION_GAMES, root=None):
    """One row per run of every finished ablation and of the committed configuration (factor
    ``"none"``, setting ``"committed"``, its gauntlet point nearest ``games``; ``root``: the
    folder holding them, default ``data/results/paper/pgleaf``). The head-to-head columns
    (``games_vs_committed`` and the win rate with its interval) are tallied from the
    ablation's ``head_to_head.csv``; 0 games and NaN where none was played."""
    import pandas as pd

    from gamelib.experiments.pgleaf.report import load_report

    committed, config = load_report(_root(root) / f"seed-{seed}")
    point = min(config.curve_points, key=lambda p: abs(p - games))
    rows = _measures(committed, "none", "committed", point)
    for factor, settings in FACTORS.items():
        for setting in settings:
            folder = ablation_folder(factor, setting, seed, root)
            if (folder / "provenance.json").is_file():
                report, run_config = load_report(folder)
                rows += _measures(report, factor, setting, run_config.n_games,
                                  _head_to_head_measures(folder))
    return pd.DataFrame(rows)


def configuration_label(factor: str, setting: str) -> str:
    """How a row of :func:`ablation_table` names its configuration."""
    return "committed" if factor == "none" else f"{factor}={setting}"


def plot_ablations(table, axes=None):
    """Each run of :func:`ablation_table` as a dot: its win rate against the reference (with
    the Wilson 95 % interval), sente's share of its last self-play games and its win rate
    against the committed run of its algorithm, reward and replicate (with the interval; none
    for the committed configuration), one row per configuration and learner, the two rewards
    as two markers. ``axes``: three axes sharing y."""
    import matplotlib.pyplot as plt

    from gamelib.experiments.pgleaf.config import ALGORITHM_LABELS, ALGORITHMS

    if axes is None:
        _, axes = plt.subplots(1, 3, sharey=True)
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
            r = r[r.games_vs_committed > 0]
            if len(r):
                axes[2].errorbar(100 * r.win_rate_vs_committed, [y + dy] * len(r),
                                 xerr=[100 * (r.win_rate_vs_committed - r.low_vs_committed),
                                       100 * (r.high_vs_committed - r.win_rate_vs_committed)],
                                 fmt=marker, ms=3, lw=0.6, color=f"C{k}", mfc="white"
                                 if reward == "non_mdp" else f"C{k}")
    axes[0].set_yticks(range(len(rows)), labels, fontsize=7)
    axes[0].invert_yaxis()
    axes[0].axvline(50, color="grey", lw=0.6, ls="--")
    axes[0].set_xlabel("win rate against the reference (%)")
    axes[1].axvline(50, color="grey", lw=0.6, ls="--")
    axes[1].set_xlabel("sente's share, last 1,000 self-play games (%)")
    axes[2].axvline(50, color="grey", lw=0.6, ls="--")
    axes[2].set_xlabel("win rate vs the committed run (%)")
    axes[0].set_title("filled: MDP reward, open: non-MDP", fontsize=8)
    return axes


def ablation_figure(table):
    """A figure of :func:`plot_ablations`, its height grown with the rows of ``table``."""
    import matplotlib.pyplot as plt

    n_rows = len(table.groupby(["factor", "setting", "algorithm"]))
    fig, axes = plt.subplots(1, 3, sharey=True, figsize=(12, 1.2 + 0.28 * n_rows))
    plot_ablations(table, axes)
    fig.tight_layout()
    return fig


def write_ablation_report(seed: int = 0) -> list[Path]:
    """``ablations.csv`` and ``ablations.png`` in ``data/results/paper/pgleaf``."""
    from gamelib.runtime.report import write_csv, write_figure

    out = results_dir("paper", "pgleaf")
    table = ablation_table(seed)
    fig = ablation_figure(table)
    return [write_csv(out, "ablations.csv", table), write_figure(fig, out / "ablations.png")]


def main(argv: list[str] | None = None) -> int:
    from gamelib.runtime import cli

    parser = cli.ArgumentParser(prog="python -m gamelib.experiments.pgleaf.ablations",
                                description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="run (or resume) one ablation")
    p_run.add_argument("factor", choices=list(FACTORS))
    p_run.add_argument("setting")
    p_run.add_argument("--seed", type=int, default=0)
    p_run.add_argument("--workers", type=int, default=None)
    p_h2h = sub.add_parser("head-to-head", help="play (or resume) a finished ablation's runs "
                                                "against the committed runs")
    p_h2h.add_argument("factor", choices=list(FACTORS))
    p_h2h.add_argument("setting")
    p_h2h.add_argument("--games", type=int, default=HEAD_TO_HEAD_GAMES)
    p_h2h.add_argument("--seed", type=int, default=0)
    p_h2h.add_argument("--workers", type=int, default=None)
    p_h2h.add_argument("--no-progress", action="store_true")
    sub.add_parser("list", help="print the commands of every ablation and its head-to-head")
    p_table = sub.add_parser("table", help="write data/results/paper/pgleaf/ablations.csv "
                                           "and ablations.png")
    p_table.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "list":
        for factor, settings in FACTORS.items():
            for setting in settings:
                print("python -m gamelib.experiments " + shlex.join(ablation_argv(factor,
                                                                                  setting)))
                print("python -m gamelib.experiments.pgleaf.ablations head-to-head "
                      + shlex.join([factor, setting]))
        return 0
    if args.command == "head-to-head":
        from gamelib.experiments.cli import run_guarded

        def command() -> int:
            frame = head_to_head(args.factor, args.setting, args.seed, args.games,
                                 workers=args.workers, progress=not args.no_progress)
            folder = ablation_folder(args.factor, args.setting, args.seed)
            print(f"{len(frame)} games in {folder / HEAD_TO_HEAD_FILE}")
            return 0

        return run_guarded(command)
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

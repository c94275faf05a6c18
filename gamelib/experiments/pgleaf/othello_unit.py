"""The Othello evaluation's unit ``c`` for the PGLeaf study on Othello, by its pre-registered rule.

The paper's temperatures, steps and noise are numbers in its 5×5 shogi evaluation's units (a
pawn = 0.02); Othello's evaluation has its own. The study on Othello
(``data/results/paper/pgleaf/othello/PREREGISTRATION.md``, commit
:data:`PREREGISTRATION_COMMIT`) converts every one of them with one constant ``c``, Othello's
unit relative to the paper's, by its dimension (the ``eval_unit`` of
:class:`~gamelib.experiments.pgleaf.config.PGLeafConfig`), and fixes ``c`` by this rule, before
any training: PGLeaf's
policy at its starting parameters is as sharp on both games. The sharpness is the mean
probability of the move played (:func:`gamelib.learn.selfplay.policy_sharpness`,
``chosen_prob``) over :data:`GAMES` self-play games with θ held fixed (game ``i``'s seed
``derive_seed(0, "othello-calibration", i, bits=32)``):

* 5×5 shogi: ``initial_theta(0, 1e-4)`` at the paper's T = 0.05 -- the target;
* Othello: ``initial_theta(0, c·1e-4)`` at T = 0.05·c, a decreasing function of ``c``.

``c`` is found by bisection on ``log c`` over :data:`BRACKET` until the bracket's ends differ by
less than :data:`TOLERANCE` (relative); the result is the smaller end of the last bracket. If the
target is not between Othello's values at the bracket's ends, there is no ``c`` and the study
stops (``ValueError``). No win rate enters. The same command measures what the study's time cut
needs -- self-play games per second of each learner on Othello at the converted settings, and
seconds per evaluation game at the study's node budget -- and applies the cut::

    python -m gamelib.experiments.pgleaf.othello_unit calibrate [--games N] [--out FILE]

writes ``calibration.json`` (default ``data/results/paper/pgleaf/othello/``) atomically: the
target, every bisection step, ``c``, the rates and the cut's decision. From it, the registered
runs' configurations (:func:`run_sizes`: the lead 5×5 shogi configuration's changes that exist
on Othello, the unit, the cut; the alternatives c/4 and 4c at 10,000 games) and their command
lines::

    python -m gamelib.experiments.pgleaf.othello_unit argv [--unit c|c-over-4|4c] [--seed S]
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import numpy as np

from gamelib.games import registry
from gamelib.experiments.pgleaf.closest import KNIGHTCAP_BETA
from gamelib.experiments.pgleaf.config import (ALGORITHMS, PROFILES, PGLeafConfig, RunSpec,
                                               init_scale, profile_config, settings_of)
from gamelib.learn import learners
from gamelib.learn.selfplay import policy_sharpness
from gamelib.runtime.seeds import derive_seed

__all__ = ["PREREGISTRATION_COMMIT", "GAMES", "BRACKET", "TOLERANCE", "PAPER_TEMPERATURE",
           "HOURS_CUT", "OTHELLO", "UNITS", "calibration_seeds", "run_sizes", "run_folder", "run_argv", "unit_config", "sharpness", "bisect_unit", "measure_rates",
           "time_cut", "calibrate", "main"]

#: The commit that holds the study's ``PREREGISTRATION.md`` (before any calibration or run).
PREREGISTRATION_COMMIT = "bef54481e39ceea1962bed4fcf6a5170e7f9e255"
#: Self-play games of each sharpness measurement.
GAMES = 200
#: The range of ``c`` searched.
BRACKET = (1e-3, 1e3)
#: The bisection stops when the bracket's ends differ by less than this (relative).
TOLERANCE = 0.01
#: The paper's temperature of PGLeaf (the policy calibrated).
PAPER_TEMPERATURE = 0.05
#: The time cut: above this many hours on two cores, the runs stop at 20,000 games.
HOURS_CUT = 8.0
#: The lead 5×5 shogi configuration's changes to the paper profile that exist on Othello (its
#: antisymmetric layout has no Othello counterpart), with Othello's game and reward.
OTHELLO = {"game": "othello", "rewards": ["mdp"], "replicates": 5, "beta": KNIGHTCAP_BETA,
           "td_alpha": 0.001 / KNIGHTCAP_BETA ** 2}
#: The registered units: the calibrated c and the two alternatives, as multiples of c, with the
#: games each run plays (the alternatives at 10,000 games).
UNITS = {"c": (1.0, None), "c-over-4": (0.25, 10_000), "4c": (4.0, 10_000)}


def calibration_seeds(n: int = GAMES) -> np.ndarray:
    """The calibration games' seeds: ``derive_seed(0, "othello-calibration", i, bits=32)``."""
    return np.array([derive_seed(0, "othello-calibration", i, bits=32) for i in range(n)],
                    dtype=np.int64)


def unit_config(game: str, unit: float):
    """The paper profile on ``game`` (MDP reward) in the evaluation unit ``unit``: the
    configuration whose PGLeaf policy is calibrated and whose runs are timed."""
    return profile_config("paper", game=game, rewards=["mdp"], eval_unit=unit)


def sharpness(game: str, unit: float, seeds) -> float:
    """PGLeaf's ``chosen_prob`` on ``game`` at its starting parameters ``initial_theta(0,
    unit·1e-4)`` and temperature ``0.05·unit``, over the games of ``seeds``: the learner's
    settings and starting noise exactly as the runs of :func:`unit_config` make them
    (:func:`~gamelib.experiments.pgleaf.config.settings_of`,
    :func:`~gamelib.experiments.pgleaf.config.init_scale`)."""
    g = registry.get(game)
    config = unit_config(game, unit)
    settings = settings_of(RunSpec("pgleaf", "mdp", 0), config)
    theta = g.initial_theta(0, init_scale(config))
    return float(policy_sharpness(theta, settings, seeds, g)["chosen_prob"])


def bisect_unit(measure: Callable[[float], float], target: float,
                bracket: tuple[float, float] = BRACKET, tolerance: float = TOLERANCE):
    """``(c, steps)``: bisection on ``log c`` for ``measure(c) = target`` with ``measure``
    decreasing, keeping ``measure(low) >= target >= measure(high)``, until ``high / low < 1 +
    tolerance``; ``c`` is the last ``low``. ``steps`` lists ``(c, measure(c))`` in the order
    measured (the bracket's ends first).

    Raises
    ------
    ValueError
        If ``target`` is not between the measures at the bracket's ends (no ``c`` in it).
    """
    low, high = (float(x) for x in bracket)
    if not 0 < low < high or not math.isfinite(high) or not 0 < tolerance:
        raise ValueError(f"bisect_unit: need 0 < low < high and tolerance > 0, got "
                         f"{bracket!r}, {tolerance!r}")
    steps = [(low, float(measure(low))), (high, float(measure(high)))]
    if not steps[0][1] >= target >= steps[1][1]:
        raise ValueError(f"no unit in [{low:g}, {high:g}]: the target {target:.6g} is not "
                         f"between {steps[0][1]:.6g} and {steps[1][1]:.6g}, the measures at "
                         f"the ends")
    while high / low >= 1 + tolerance:
        mid = math.sqrt(low * high)
        value = float(measure(mid))
        steps.append((mid, value))
        if value >= target:
            low = mid
        else:
            high = mid
    return low, steps


def measure_rates(unit: float, games: int = 100, eval_games: int = 4,
                  node_budget: int = 5000) -> dict:
    """On Othello at the converted settings, in this process (one core): self-play games per
    second of each learner (``games`` games after a warm-up game that compiles) and seconds per
    evaluation game of two search players at ``node_budget`` nodes a move (``eval_games``)."""
    from gamelib.experiments.pgleaf.matches import match_settings
    from gamelib.play.games import play_game

    config = replace(unit_config("othello", unit), node_budget=node_budget)
    game = registry.get("othello")
    theta = game.initial_theta(0, init_scale(config))
    rates = {}
    for algorithm in ALGORITHMS:
        settings = settings_of(RunSpec(algorithm, "mdp", 0), config)
        play = learners.get(algorithm).play_games
        play(theta, settings, [1], game)                          # compile
        seeds = [derive_seed(0, "othello-rate", i, bits=32) for i in range(games)]
        t0 = time.perf_counter()
        play(theta, settings, seeds, game)
        rates[algorithm] = games / (time.perf_counter() - t0)
    match = match_settings(config)
    player = match.player(theta)
    play_game(game, player, match.reference(), 0, max_plies=config.max_plies)   # compile
    t0 = time.perf_counter()
    for i in range(eval_games):
        play_game(game, player, match.reference(), i + 1, max_plies=config.max_plies)
    return {"selfplay_games_per_s": rates,
            "seconds_per_evaluation_game": (time.perf_counter() - t0) / eval_games}


def time_cut(rates: dict, replicates: int = 5, cores: int = 2) -> dict:
    """The pre-registered cut: the hours on ``cores`` cores of 100,000 self-play games per
    learner and replicate and of the evaluation games (round-robins of 400 games per pairing at
    3 table points, the gauntlet of 400 games per learner at 4 curve points); above
    :data:`HOURS_CUT`, 20,000 games with table points 1,000, 10,000 and 20,000."""
    paper = PROFILES["paper"]
    n = len(ALGORITHMS)
    selfplay_s = sum(replicates * paper["n_games"] / r
                     for r in rates["selfplay_games_per_s"].values())
    eval_games = replicates * (n * (n - 1) // 2 * paper["round_robin_games"]
                               * len(paper["table_points"])
                               + n * paper["gauntlet_games"] * len(paper["curve_points"]))
    hours = (selfplay_s + eval_games * rates["seconds_per_evaluation_game"]) / cores / 3600
    cut = hours > HOURS_CUT
    return {"hours_estimated": hours, "evaluation_games": eval_games, "cut": cut,
            "n_games": 20_000 if cut else paper["n_games"],
            "table_points": [1000, 10_000, 20_000] if cut else list(paper["table_points"])}


def calibrate(games: int = GAMES, measure_speed: bool = True, progress: bool = True) -> dict:
    """The rule of the module docstring: the target, the bisection, ``c`` and (with
    ``measure_speed``) the rates and the time cut."""
    seeds = calibration_seeds(games)
    t0 = time.perf_counter()
    target = sharpness("minishogi", 1.0, seeds)

    def measure(unit: float) -> float:
        value = sharpness("othello", unit, seeds)
        if progress:
            print(f"c = {unit:.6g}: Othello chosen_prob {value:.6f} (target {target:.6f})",
                  file=sys.stderr)
        return value

    unit, steps = bisect_unit(measure, target)
    out = {"preregistration": PREREGISTRATION_COMMIT, "games": int(games),
           "target_minishogi_chosen_prob": target, "c": unit,
           "steps": [{"c": c, "othello_chosen_prob": v} for c, v in steps],
           "calibration_seconds": time.perf_counter() - t0}
    if measure_speed:
        rates = measure_rates(unit)
        out["rates"] = rates
        out["time_cut"] = time_cut(rates)
    return out


def _points(n_games: int) -> dict:
    """The paper profile's kept, table and curve points, cut at ``n_games`` (which is kept)."""
    paper = PROFILES["paper"]
    keep = [p for p in paper["keep_points"] if p < n_games] + [n_games]
    return {"n_games": n_games, "keep_points": keep,
            "table_points": [p for p in paper["table_points"] if p < n_games] + [n_games],
            "curve_points": [p for p in paper["curve_points"] if p < n_games] + [n_games]}


def run_sizes(calibration: dict, unit: str = "c") -> PGLeafConfig:
    """The configuration of a registered run from ``calibration.json``'s content: the paper
    profile with :data:`OTHELLO`, ``eval_unit`` = the unit's multiple of c, and its games (the
    time cut's for ``"c"``, 10,000 for the alternatives)."""
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}: use {', '.join(UNITS)}")
    factor, games = UNITS[unit]
    if games is None:
        games = int(calibration["time_cut"]["n_games"])
    return profile_config("paper", **OTHELLO, eval_unit=factor * float(calibration["c"]),
                          **_points(games))


def run_folder(unit: str = "c", seed: int = 0, root=None) -> Path:
    """``othello/seed-<seed>`` (the unit c) or ``othello/unit=<unit>/seed-<seed>`` under
    ``data/results/paper/pgleaf`` (or ``root``)."""
    from gamelib.runtime.paths import results_dir

    base = (results_dir("paper", "pgleaf") if root is None else Path(root)) / "othello"
    return (base if unit == "c" else base / f"unit={unit}") / f"seed-{seed}"


def run_argv(calibration: dict, unit: str = "c", seed: int = 0, root=None) -> list[str]:
    """The arguments of ``python -m gamelib.experiments`` that run (or resume) a registered run."""
    import json

    config = run_sizes(calibration, unit)
    paper = PROFILES["paper"]
    argv = ["pgleaf", "--profile", "paper", "--seed", str(seed),
            "--out", str(run_folder(unit, seed, root))]
    for key, value in config.as_dict().items():
        if paper.get(key, object()) != value:
            argv += ["-p", key, json.dumps(value)]
    return argv


def main(argv: list[str] | None = None) -> int:
    """``python -m gamelib.experiments.pgleaf.othello_unit calibrate [--games N] [--out FILE]
    [--no-speed]``."""
    from gamelib.runtime import cli
    from gamelib.runtime.atomic import atomic_write_json
    from gamelib.runtime.paths import results_dir

    parser = cli.ArgumentParser(prog="python -m gamelib.experiments.pgleaf.othello_unit",
                                description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_cal = sub.add_parser("calibrate", help="compute c by the pre-registered rule and the "
                                             "time cut; write calibration.json")
    p_cal.add_argument("--games", type=int, default=GAMES)
    p_cal.add_argument("--out", type=Path, default=None)
    p_cal.add_argument("--no-speed", action="store_true",
                       help="leave out the rates and the time cut")
    p_argv = sub.add_parser("argv", help="print the command line of a registered run")
    p_argv.add_argument("--unit", default="c", choices=list(UNITS))
    p_argv.add_argument("--seed", type=int, default=0)
    p_argv.add_argument("--calibration", type=Path, default=None,
                        help="calibration.json (default: the committed one)")
    args = parser.parse_args(argv)
    if args.command == "argv":
        import shlex

        from gamelib.runtime.atomic import read_json

        path = args.calibration or results_dir("paper", "pgleaf") / "othello" / "calibration.json"
        try:
            if not path.is_file():
                raise ValueError(f"no calibration at {path}: run 'calibrate' first")
            print("python -m gamelib.experiments "
                  + shlex.join(run_argv(read_json(path), args.unit, args.seed,
                                        Path("data/results/paper/pgleaf"))))
        except (ValueError, KeyError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    if args.games < 1:
        print(f"error: --games must be a positive integer, got {args.games}", file=sys.stderr)
        return 2
    out = args.out or results_dir("paper", "pgleaf") / "othello" / "calibration.json"
    try:
        result = calibrate(args.games, measure_speed=not args.no_speed)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    atomic_write_json(out, result)
    print(f"c = {result['c']:.6g}; wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The PGLeaf study's antisymmetric layout with the TD scale β = 12.8 (TD learners' effective
temperature 0.384), and its five-replicate runs.

Named in the tables by what it is (:func:`~gamelib.experiments.pgleaf.verdicts.configuration_label`:
"antisymmetric layout, TD β=12.8 (T_eff 0.384)"); the folder and module keep the name "closest".
The committed per-side run (``data/results/paper/pgleaf/seed-0``, the ``paper`` profile) fills the
paper's gaps with choices of ours; the ablations (:mod:`~gamelib.experiments.pgleaf.ablations`)
change one of them at a time. This configuration takes, factor by factor, the paper's choice
where the paper states one and the ablations' evidence where it leaves a gap. It was fixed
before its run started, on 2026-11-24 10:05 UTC, but after the ablations' results at 10,000
games it draws on (the TD scale's, the layout's head-to-head) had been seen, and before the
``layout=antisymmetric`` and ``baseline=norm`` ablations finished.

It departs from the paper for the TD learners. For θ' = βθ, TD(λ) and TDLeaf(λ) at scale β with
the step α/β² are exactly the β = 1 learners with the step α (the paper's α = 0.001), but with
the softmax temperature β·T (0.03 → 0.384), the match noise's standard deviation ×β and the
initial weights ×β: in the paper's units, their self-play is much closer to uniform.

* **layout** -- antisymmetric (``tie_sides``): the paper's evaluation has one block of weights
  for both sides (~8,000 parameters), not a weight per side (our 15,773). The tempo weight (the
  side to move) stays: the paper does not say, and without it an antisymmetric evaluation values
  every self-mirrored position at exactly 0.
* **TD scale** -- KnightCap's β = 12.8 (a pawn of 0.02 ↦ tanh 0.25) with the TD learners' step
  α/β² = 0.001/12.8² (``td_alpha``: the same step in value space as α at β = 1); PGLeaf and
  REINFORCE keep α = 0.001. The paper does not give β; at β = 1 the ablations measured TD(λ)
  self-play that sente wins 82-89 % of the last 1,000 games with gote copying sente's move 18-36 %
  of the time, and at β = 12.8 a sente share of 0.50 and copies under 1 % (``td_scale``).
* **baseline** -- the per-component b* of eq. (2) as committed: it is the reading of ``g(m)²``
  elementwise that the division by ``Σ g(m)²`` needs (:mod:`gamelib.learn.policy_gradient`);
  the scalar ``norm`` reading is an ablation, not a choice made from its result.
* **ply cap** -- 300 as committed: no game of the per-side run reached it (0 draws in 2.4 million
  self-play games and 51,600 evaluation games), and the first 1,000 games of replicate 0 of
  every learner and reward, replayed with a 500-ply cap, gave the same parameters bit for bit.
* **evaluation protocol, noise, double step** -- as committed.

Five replicates of every learner and reward at the ``paper`` sizes otherwise::

    python -m gamelib.experiments.pgleaf.closest run [--workers N]   # or resume it
    python -m gamelib.experiments.pgleaf.closest argv                # the runner's arguments

into ``data/results/paper/pgleaf/closest/seed-<seed>``; then its matches from random openings
with ``python -m gamelib.experiments.pgleaf.openings run --plies 4 --source
data/results/paper/pgleaf/closest/seed-0``.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from gamelib.experiments.pgleaf.config import PROFILES, PGLeafConfig, profile_config
from gamelib.runtime.paths import results_dir

__all__ = ["KNIGHTCAP_BETA", "CLOSEST", "closest_sizes", "closest_folder", "closest_argv", "main"]

#: KnightCap's squashing slope: a pawn (0.02 in the paper's units) maps to tanh(0.256).
KNIGHTCAP_BETA = 12.8
#: The configuration's changes to the ``paper`` profile (see the module docstring).
CLOSEST = {"tie_sides": True, "beta": KNIGHTCAP_BETA, "td_alpha": 0.001 / KNIGHTCAP_BETA ** 2,
           "replicates": 5}


def closest_sizes() -> PGLeafConfig:
    """The ``paper`` profile's configuration with :data:`CLOSEST`."""
    return profile_config("paper", **CLOSEST)


def closest_folder(seed: int = 0, root=None) -> Path:
    """``data/results/paper/pgleaf/closest/seed-<seed>`` (under ``root`` instead of
    ``data/results/paper/pgleaf`` if given)."""
    base = results_dir("paper", "pgleaf") if root is None else Path(root)
    return base / "closest" / f"seed-{seed}"


def closest_argv(seed: int = 0, root=None) -> list[str]:
    """The arguments of ``python -m gamelib.experiments`` that run (or resume) the run."""
    paper = PROFILES["paper"]
    argv = ["pgleaf", "--profile", "paper", "--seed", str(seed),
            "--out", str(closest_folder(seed, root))]
    for key, value in closest_sizes().items():
        if paper.get(key, object()) != value:
            argv += ["-p", key, json.dumps(value)]
    return argv


def main(argv: list[str] | None = None) -> int:
    from gamelib.runtime import cli

    parser = cli.ArgumentParser(prog="python -m gamelib.experiments.pgleaf.closest",
                                description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="run (or resume) the five replicates of a seed")
    p_argv = sub.add_parser("argv", help="print the runner's command")
    for p in (p_run, p_argv):
        p.add_argument("--seed", type=int, default=0)
    p_run.add_argument("--workers", type=int, default=None)
    p_run.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    runner = closest_argv(args.seed)
    if args.command == "argv":
        print("python -m gamelib.experiments " + shlex.join(runner))
        return 0
    from gamelib.experiments.cli import main as run

    extra = [] if args.workers is None else ["--workers", str(args.workers)]
    return run(runner + extra + (["--no-progress"] if args.no_progress else []))


if __name__ == "__main__":
    sys.exit(main())

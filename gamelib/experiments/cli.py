"""Command line: ``python -m gamelib.experiments EXPERIMENT [options]``.

Runs a registered experiment (see :mod:`gamelib.experiments.registry`) at a profile, with a
seed, into an output folder, on local cores or a Dask cluster. Rerunning the same command after
an interruption resumes the run; another seed or size in the same folder is refused.
"""

from __future__ import annotations

import argparse
import json
import sys

from gamelib.runtime.executor import SCHEDULER_ENV, Executor
from gamelib.experiments.registry import Registry, discover


def _parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _listing(registry: Registry) -> str:
    if not registry.names():
        return ("No experiments are registered yet. A module in gamelib/experiments/ adds one "
                "with gamelib.experiments.registry.register (see that module's docstring).")
    lines = ["experiments:"]
    for name in registry.names():
        experiment = registry.get(name)
        lines.append(f"  {name:<12} {experiment.description}")
        for profile, sizes in sorted(experiment.profiles.items()):
            text = ", ".join(f"{k}={v!r}" for k, v in sorted(sizes.items())) or "no sizes"
            lines.append(f"  {'':<12}   --profile {profile}: {text}")
    return "\n".join(lines)


def build_parser(registry: Registry) -> argparse.ArgumentParser:
    """The argument parser; its help lists the experiments of ``registry``."""
    parser = argparse.ArgumentParser(
        prog="python -m gamelib.experiments",
        description="Run (or resume) an experiment of the book: checkpointed, on local cores\n"
                    "or a Dask cluster, deterministic for a given seed whatever the executor.",
        epilog=_listing(registry), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("experiment", help="experiment name (listed below)")
    parser.add_argument("--profile", default="quick",
                        help="sizes to use: 'quick' (minutes) or 'paper' (the paper's sizes)")
    parser.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    parser.add_argument("--out", default=None,
                        help="run folder (default data/results/<profile>/<experiment>/seed-<seed>)")
    parser.add_argument("--workers", type=int, default=None,
                        help="local worker processes (default: all cores; 1: serial)")
    parser.add_argument("--scheduler", default=None,
                        help=f"Dask scheduler address (default: ${SCHEDULER_ENV} if set)")
    parser.add_argument("-p", "--param", nargs=2, action="append", default=[],
                        metavar=("KEY", "VALUE"),
                        help="override one of the profile's sizes (VALUE read as JSON)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    return parser


def main(argv: list[str] | None = None, registry: Registry | None = None) -> int:
    """Entry point; returns the exit status (2 on bad input, 130 when interrupted)."""
    registry = discover() if registry is None else registry
    parser = build_parser(registry)
    args = parser.parse_args(argv)
    try:
        opts = registry.options(args.experiment, profile=args.profile, seed=args.seed,
                                out=args.out, workers=args.workers, scheduler=args.scheduler,
                                overrides={k: _parse_value(v) for k, v in args.param},
                                progress=not args.no_progress)
        sizes = ", ".join(f"{k}={v!r}" for k, v in sorted(opts.sizes.items()))
        where = Executor(opts.workers, opts.scheduler).description
        print(f"{opts.experiment}: profile {opts.profile}, seed {opts.seed}, {sizes}; "
              f"run folder {opts.out}; executor: {where}", flush=True)
        registry.get(opts.experiment).run(opts)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: rerun the same command to resume from the last checkpoint",
              file=sys.stderr)
        return 130
    print(f"{opts.experiment}: done, results in {opts.out}")
    return 0

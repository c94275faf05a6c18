"""Command line: ``python -m gamelib.experiments EXPERIMENT [options]``.

Runs a registered experiment (see :mod:`gamelib.experiments.registry`) at a profile, with a
seed, into an output folder, on local cores or a Dask cluster. Rerunning the same command after
an interruption resumes the run; another seed or size in the same folder is refused.

Before anything is written, the run folder is checked (:mod:`gamelib.experiments.run_folder`:
not a file, writable, not another experiment's run) and so is the Dask scheduler, if one is
given. Every expected failure -- bad options, such a folder, a folder in use by another run, an
unreachable scheduler, a full disk or another error of the file system -- ends with one line
``error: ...`` on stderr and exit status 2 (set ``GAMELIB_DEBUG=1`` for the traceback).
Ctrl-C, SIGTERM and SIGHUP stop the run and its worker processes cleanly (exit status 130, 143,
129); the same command resumes it.
"""

from __future__ import annotations

import argparse
import json
from typing import Callable

from gamelib.runtime import cli as runtime_cli
from gamelib.runtime.checkpoint import RunFolderBusy
from gamelib.runtime.executor import SCHEDULER_ENV, Executor
from gamelib.experiments.registry import Registry, discover
from gamelib.experiments.run_folder import check_run_folder

#: Failures reported as ``error: ...`` with exit status 2 (bad input, the file system, another
#: run in the folder, an unreachable scheduler); anything else is a bug and shows a traceback.
EXPECTED_ERRORS = (*runtime_cli.EXPECTED_ERRORS, RunFolderBusy)


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
    parser = runtime_cli.ArgumentParser(
        prog="python -m gamelib.experiments",
        description="Run (or resume) an experiment of the book: checkpointed, on local cores\n"
                    "or a Dask cluster, deterministic for a given seed whatever the executor.",
        epilog=_listing(registry), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("experiment", help="experiment name (listed below)")
    parser.add_argument("--profile", default="quick",
                        help="sizes to use: 'quick' (minutes) or 'paper' (the paper's sizes)")
    parser.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    parser.add_argument("--game", default=None,
                        help="the game, for an experiment of any game (pgleaf): minishogi "
                             "(the default) or othello")
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


def _run(args, registry: Registry) -> int:
    opts = registry.options(args.experiment, profile=args.profile, seed=args.seed,
                            out=args.out, workers=args.workers, scheduler=args.scheduler,
                            overrides={k: _parse_value(v) for k, v in args.param},
                            progress=not args.no_progress, game=args.game)
    check_run_folder(opts.out, opts.experiment, registry)
    executor = Executor(opts.workers, opts.scheduler)
    executor.check()
    sizes = ", ".join(f"{k}={v!r}" for k, v in sorted(opts.sizes.items()))
    print(f"{opts.experiment}: profile {opts.profile}, seed {opts.seed}, {sizes}; "
          f"run folder {opts.out}; executor: {executor.description}", flush=True)
    registry.get(opts.experiment).run(opts)
    print(f"{opts.experiment}: done, results in {opts.out}")
    return 0


def main(argv: list[str] | None = None, registry: Registry | None = None) -> int:
    """Entry point; returns the exit status (2 on an expected failure, 128 + the signal number
    when interrupted)."""
    registry = discover() if registry is None else registry
    parser = build_parser(registry)
    args = parser.parse_args(argv)
    return run_guarded(lambda: _run(args, registry))


def run_guarded(command: Callable[[], int]) -> int:
    """``command()``'s exit status, run as the command line runs an experiment
    (:func:`gamelib.runtime.cli.run_guarded`): a signal stops it with its process tree (status
    128 + the signal number, after saying how to resume), an expected failure prints one
    ``error:`` line (status 2)."""
    return runtime_cli.run_guarded(command, EXPECTED_ERRORS)

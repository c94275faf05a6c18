"""The evaluation games of a finished PGLeaf run replayed from random openings.

Every evaluation game of the experiment starts from the standard position, varied only by the
evaluation noise, so a verdict might rest on a few opening lines. This module replays the
matches of a finished run -- its round-robins (Tables 2-4) and its gauntlet against the
reference (Figs 1-2) -- with ``match_opening_plies`` k: the games of every pairing come in
pairs that share an opening of k uniformly random legal plies, played once with each colour
(:func:`gamelib.experiments.pgleaf.matches.play_matches`). Nothing is retrained: the players
are the run's parameters as its report saved them (``theta/``: the table points and the last
one; the initial parameters follow from the seed), or its training checkpoints when a point was
not saved and ``train/`` is still there::

    python -m gamelib.experiments.pgleaf.openings run --plies 4      # the committed run
    python -m gamelib.experiments.pgleaf.openings run --plies 4 --source DIR

The replay is a finished pgleaf run folder of its own -- the report files (``training.csv`` is
the source's), and ``provenance.json`` with the source's sizes, ``match_opening_plies`` k, the
source folder and a digest of the parameters played -- by default ``<source's parent>/openings/
plies=<k>/<source's name>`` (for the committed run ``data/results/paper/pgleaf/openings/
plies=4/seed-0``). :func:`~gamelib.experiments.pgleaf.report.load_report` reads it and the
claims (:func:`~gamelib.experiments.pgleaf.claims.claims`,
:func:`~gamelib.experiments.pgleaf.verdicts.claim_verdicts`) judge it like any run. Its games
have the source's seeds (only the openings differ), so ``--plies 0`` replays the source's
matches exactly; it resumes after an interruption and does not depend on the number of workers.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

from gamelib.experiments.pgleaf.analysis import curves, elo
from gamelib.experiments.pgleaf.config import PGLeafConfig, pgleaf_config
from gamelib.experiments.pgleaf.matches import play_matches
from gamelib.experiments.pgleaf.report import PGLeafReport, load_report, write_report
from gamelib.experiments.pgleaf.training import saved_theta, trained_theta
from gamelib.runtime.atomic import read_json
from gamelib.runtime.checks import check_integer
from gamelib.runtime.paths import repo_root, results_dir

__all__ = ["openings_folder", "replay_thetas", "replay_matches", "main"]


def openings_folder(source, plies: int) -> Path:
    """``<source's parent>/openings/plies=<plies>/<source's name>``."""
    source = Path(source)
    return source.parent / "openings" / f"plies={plies}" / source.name


def replay_thetas(source, config: PGLeafConfig, seed: int) -> dict[int, dict]:
    """``{games: {run key: θ}}`` at every table and curve point of a finished run ``source``:
    from its ``theta/`` files, else its training checkpoints (``FileNotFoundError`` naming the
    missing files when neither has a point)."""
    source = Path(source)
    out = {}
    for point in sorted(set(config.table_points) | set(config.curve_points)):
        try:
            out[point] = saved_theta(source / "theta", config, seed, point)
        except FileNotFoundError:
            if not (source / "train").is_dir():
                raise
            out[point] = trained_theta(source / "train", config, seed, point)
    return out


def _digest(thetas: Mapping[int, Mapping[str, Any]]) -> str:
    h = hashlib.sha256()
    for point in sorted(thetas):
        for key in sorted(thetas[point]):
            h.update(f"{point}:{key}".encode())
            h.update(thetas[point][key].tobytes())
    return h.hexdigest()


def _shown(path: Path) -> str:
    """``path`` relative to the repository when it lies inside it."""
    try:
        return str(path.resolve().relative_to(repo_root().resolve()))
    except ValueError:
        return str(path.resolve())


def replay_matches(source, plies: int, out=None, *, workers: int | None = None, scheduler=None,
                   progress: bool = False) -> PGLeafReport:
    """Replay (or resume) the evaluation games of the finished run ``source`` with
    ``match_opening_plies = plies`` into ``out`` (default :func:`openings_folder`); the
    :class:`~gamelib.experiments.pgleaf.report.PGLeafReport` of the replay, its report files
    written (see the module docstring).

    Raises
    ------
    FileNotFoundError
        When ``source`` is not a finished run or lacks the parameters of a point.
    ValueError
        When ``plies`` is not a valid ``match_opening_plies`` of the run's sizes, ``out`` is
        the source, or ``out`` holds the replay of another run or with other openings.
    """
    from gamelib.experiments.registry import discover
    from gamelib.experiments.run_folder import RunFolder, check_run_folder

    source = Path(source)
    check_integer("plies", plies, 0)
    before, source_config = load_report(source)
    provenance = read_json(source / "provenance.json")
    seed, profile = provenance["seed"], provenance["profile"]
    config = replace(source_config, match_opening_plies=plies)
    out = openings_folder(source, plies) if out is None else Path(out)
    if out.resolve() == source.resolve():
        raise ValueError(f"the replay of {source} must go to another folder than the run itself")
    thetas = replay_thetas(source, config, seed)
    identity = {"source": _shown(source), "source_theta_sha256": _digest(thetas)}
    check_run_folder(out, "pgleaf", discover())
    if (out / "provenance.json").is_file():
        earlier = read_json(out / "provenance.json")
        found = {k: earlier.get(k) for k in identity}
        if found != identity or pgleaf_config(earlier.get("sizes", {})) != config:
            raise ValueError(f"{out} holds another replay ({found['source']}, "
                             f"match_opening_plies {earlier.get('sizes', {}).get('match_opening_plies')}"
                             f"); choose another --out")
    folder = RunFolder(out, "pgleaf", profile, seed, config.as_dict(), workers=workers,
                       scheduler=scheduler)
    with folder.stage("matches"):
        rr, g = play_matches(out / "matches", thetas.__getitem__, config, seed, workers=workers,
                             scheduler=scheduler, progress=progress)
    report = PGLeafReport(before.training, rr, g, curves(g), elo(rr, g), folder.timings)
    with folder.stage("report"):
        write_report(out, report, config, seed, profile)
    folder.finish(**identity)
    return report


def main(argv: list[str] | None = None) -> int:
    from gamelib.runtime import cli

    from gamelib.experiments.cli import run_guarded

    parser = cli.ArgumentParser(prog="python -m gamelib.experiments.pgleaf.openings",
                                description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="replay (or resume) a run's evaluation games from random "
                                       "openings")
    p_run.add_argument("--plies", type=int, required=True,
                       help="random plies of every opening (each played with both colours)")
    p_run.add_argument("--source", default=None,
                       help="the finished run (default data/results/paper/pgleaf/seed-0)")
    p_run.add_argument("--out", default=None,
                       help="the replay's folder (default <source's parent>/openings/"
                            "plies=<k>/<source's name>)")
    p_run.add_argument("--workers", type=int, default=None)
    p_run.add_argument("--scheduler", default=None)
    p_run.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    source = Path(args.source) if args.source else results_dir("paper", "pgleaf") / "seed-0"

    def command() -> int:
        out = openings_folder(source, args.plies) if args.out is None else Path(args.out)
        report = replay_matches(source, args.plies, out, workers=args.workers,
                                scheduler=args.scheduler, progress=not args.no_progress)
        print("wall time: " + ", ".join(f"{k} {v:.1f} s" for k, v in report.timings.items()),
              flush=True)
        print(f"pgleaf openings: done, results in {out}")
        return 0

    return run_guarded(command)


if __name__ == "__main__":
    sys.exit(main())

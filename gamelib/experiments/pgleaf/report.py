"""The whole run (training, matches, report) and its report files: written, and read back."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from gamelib.experiments.pgleaf.analysis import curves, elo, plot_curves, round_robin_table
from gamelib.experiments.pgleaf.config import (COLUMN_LABELS, PROFILES, PGLeafConfig, game_sizes,
                                               pgleaf_config, runs_of, train_config)
from gamelib.experiments.pgleaf.matches import play_matches
from gamelib.experiments.pgleaf.paper import PAPER_TABLES, paper_table_markdown
from gamelib.experiments.pgleaf.training import STAT_COLUMNS, theta_file, train, trained_theta
from gamelib.experiments.registry import RunOptions, register
from gamelib.games import registry
from gamelib.experiments.run_folder import RunFolder, read_run, run_from_options


@dataclass(frozen=True)
class PGLeafReport:
    """What :func:`run_experiment` produced (also written as files into its folder).

    Attributes
    ----------
    training : pandas.DataFrame
        Per run (``algorithm, reward, replicate``) and batch: ``games`` (after the batch),
        ``sente_wins, gote_wins, draws, plies, gote_moves, mirror_replies``.
    round_robin : pandas.DataFrame
        Round-robin records of :func:`play_matches`.
    gauntlet : pandas.DataFrame
        Gauntlet records of :func:`play_matches`.
    curves : pandas.DataFrame
        :func:`curves` of the gauntlet.
    elo : pandas.DataFrame
        :func:`elo`.
    timings : dict
        Wall time (s) of each stage: in this call (:func:`run_experiment`), or over every
        invocation of the run (:func:`load_report`).
    """

    training: Any
    round_robin: Any
    gauntlet: Any
    curves: Any
    elo: Any
    timings: dict


def training_frame(state: Mapping[str, np.ndarray], config: PGLeafConfig):
    """Per-batch statistics of every run from a training state."""
    import pandas as pd

    frames = []
    for run in runs_of(config):
        stats = state[f"stats/{run.key}"]
        f = pd.DataFrame(stats, columns=list(STAT_COLUMNS))
        f.insert(0, "games", config.M * (np.arange(len(f)) + 1))
        f.insert(0, "replicate", run.replicate)
        f.insert(0, "reward", run.reward)
        f.insert(0, "algorithm", run.algorithm)
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def _save_thetas(folder: Path, train_folder, config: PGLeafConfig, seed) -> None:
    points = sorted(set(config.table_points) | {config.n_games})
    save = registry.get(config.game).save_theta
    for point in points:
        thetas = trained_theta(train_folder, config, seed, point)
        for run in runs_of(config):
            save(folder / theta_file(run, point), thetas[run.key])


def write_report(out: Path, report: PGLeafReport, config: PGLeafConfig, seed: int,
                 profile: str) -> None:
    """The report files of ``report`` in ``out``: the CSV tables, ``tables.md`` (the
    round-robins of every replicate, pooled, beside the paper's) and the figures."""
    import matplotlib
    import matplotlib.pyplot as plt

    from gamelib.runtime.atomic import atomic_write_text
    from gamelib.runtime.report import write_csv, write_figure

    for frame, name in ((report.training, "training.csv"), (report.round_robin, "round_robin.csv"),
                        (report.gauntlet, "gauntlet.csv"), (report.curves, "curves.csv"),
                        (report.elo, "elo.csv")):
        write_csv(out, name, frame)
    lines = [f"# PGLeaf experiment, profile {profile}, seed {seed}", ""]
    for point in config.table_points:
        if report.round_robin.empty:
            break
        pooled = [None] if config.replicates > 1 else []
        for rep in [*pooled, *range(config.replicates)]:
            which = "all replicates pooled" if rep is None else f"replicate {rep}"
            table = round_robin_table(report.round_robin, point, rep)
            lines += [f"## After {point} games ({which})", "",
                      table.to_markdown(column_labels=COLUMN_LABELS)]
        if point in PAPER_TABLES:
            lines += [f"## The paper after {point} games", "",
                      paper_table_markdown(point), ""]
    atomic_write_text(out / "tables.md", "\n".join(lines) + "\n")
    with matplotlib.rc_context({"figure.figsize": (6.4, 4.0)}):
        for k, reward in enumerate(config.rewards):
            fig, ax = plt.subplots()
            plot_curves(report.curves, reward, ax)
            fig.tight_layout()
            write_figure(fig, out / f"fig{k + 1}_{reward}.png")


def run_experiment(out, sizes: Mapping[str, Any] | PGLeafConfig, seed: int = 0, *,
                   profile: str = "custom",
                   workers: int | None = None, scheduler=None, progress: bool = False,
                   write: bool = True) -> PGLeafReport:
    """Run (or resume) the three stages in ``out`` and return the :class:`PGLeafReport`.

    Parameters
    ----------
    out : str or Path
        The run folder: ``train/`` and ``matches/`` hold the resumable stages; the report files
        (``training.csv``, ``round_robin.csv``, ``gauntlet.csv``, ``curves.csv``, ``elo.csv``,
        ``tables.md``, ``fig1_mdp.png``, ``fig2_non_mdp.png``, ``theta/*.npz``,
        ``provenance.json``) are written at its top when ``write``.
    sizes : PGLeafConfig or mapping
        The configuration, or the sizes it is made from (:func:`pgleaf_config`: a profile of
        :data:`PROFILES`, possibly with overrides).
    seed : int
    profile : str
        Its name (for the provenance).
    workers, scheduler
        Local processes or a Dask scheduler (results do not depend on them).
    progress : bool
        Progress bars.
    write : bool
        Write the report files.
    """
    config = pgleaf_config(sizes)
    folder = RunFolder(out, "pgleaf", profile, seed, config.as_dict(), workers=workers,
                       scheduler=scheduler)
    out = folder.out
    with folder.stage("training"):
        trained = train(out / "train", config, seed, workers=workers, scheduler=scheduler,
                        progress=progress)
    with folder.stage("matches"):
        rr, g = play_matches(out / "matches", partial(trained_theta, out / "train", config, seed),
                             config, seed, workers=workers, scheduler=scheduler,
                             progress=progress)
    report = PGLeafReport(training_frame(trained.state, config), rr, g, curves(g), elo(rr, g),
                          folder.timings)
    if write:
        with folder.stage("report"):
            (out / "theta").mkdir(exist_ok=True)
            _save_thetas(out / "theta", out / "train", config, seed)
            write_report(out, report, config, seed, profile)
        folder.finish(invocation_extra={"resumed_from_batch": trained.resumed_from},
                      train_config=train_config(config))
    return report


def load_report(folder, expect: Mapping[str, Any] | None = None
                ) -> tuple[PGLeafReport, PGLeafConfig]:
    """Read the report files :func:`run_experiment` wrote into ``folder``.

    Needs only the files at the run folder's top (``training.csv``, ``round_robin.csv``,
    ``gauntlet.csv``, ``curves.csv``, ``elo.csv``, ``provenance.json``), not the checkpoints,
    so a committed run can be shown and checked (:func:`claims`) without its ``train/`` and
    ``matches/`` folders.

    Parameters
    ----------
    folder : str or Path
    expect : PGLeafConfig or mapping, optional
        The configuration the caller wants; a run made with other sizes is refused.

    Returns
    -------
    report : PGLeafReport
        Its ``timings`` are the wall times (s) per stage summed over all invocations.
    config : PGLeafConfig
        The configuration the run was made with (its stored sizes, :func:`pgleaf_config`).

    Raises
    ------
    FileNotFoundError
        When the folder is not a finished run (names the missing files).
    ValueError
        When ``provenance.json`` is damaged, is not a PGLeaf run's, or the run was made with
        other sizes than ``expect`` (names them).
    """
    names = ("training", "round_robin", "gauntlet", "curves", "elo")
    frames, config, timings, _ = read_run(folder, "pgleaf", [f"{n}.csv" for n in names],
                                          pgleaf_config, expect)
    return PGLeafReport(**frames, timings=timings), config


@register("pgleaf", profiles=PROFILES, check=pgleaf_config, optional=("game", "eval_unit"),
          for_game=game_sizes,
          description="PGLeaf vs TDLeaf(lambda), TD(lambda), REINFORCE on 5x5 shogi "
                      "(Morioka & Igarashi, section 5), or on Othello (--game othello)")
def run(opts: RunOptions) -> PGLeafReport:
    """The command line's entry: :func:`run_experiment` with the options' configuration (made
    by :func:`pgleaf_config`, the registry's check, before anything ran)."""
    report = run_from_options(run_experiment, opts)
    t = report.timings
    games = len(runs_of(opts.sizes)) * opts.sizes.n_games
    print(f"self-play: {games} games in the run ({t['training']:.1f} s in this call)",
          flush=True)
    return report

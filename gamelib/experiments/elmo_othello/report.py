"""The whole run (:func:`run_experiment`), its report files and their reading back
(:func:`load_report`), the learned files for the GRhino ladder (:func:`learned_files`), and the
experiment's registration."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from gamelib.experiments.bonanza_othello.matches import play_matches
from gamelib.experiments.elmo_othello.config import (PROFILES, ElmoOthelloConfig, deep_settings,
                                                     elmo_othello_config)
from gamelib.experiments.elmo_othello.data import check_records, data_summary, load_data
from gamelib.experiments.elmo_othello.teacher import (TEACHER, run_teacher, teacher_summary,
                                                      teacher_theta)
from gamelib.experiments.elmo_othello.training import (fit_teacher_scale, teacher_batch,
                                                       train_losses)
from gamelib.experiments.elmo_shogi import loss_names, plot_curves
from gamelib.experiments.registry import RunOptions, register
from gamelib.experiments.run_folder import RunFolder, read_run, run_from_options
from gamelib.games.othello import game as othello
from gamelib.learn import elmo_train as L
from gamelib.runtime.atomic import atomic_write_json, read_json, save_npz_atomic

__all__ = ["ElmoOthelloReport", "run_experiment", "load_report", "learned_files",
           "ladder_name"]

#: Evaluation units of a disc on an average square of the classic weights (1/64).
_DISC = 1.0 / 64


@dataclass(frozen=True)
class ElmoOthelloReport:
    """What :func:`run_experiment` produced (also written as files when ``write``).

    Attributes
    ----------
    teacher : dict
        ``teacher_summary.json``: :func:`~gamelib.experiments.elmo_othello.data.data_summary`
        (games, split, positions available and sampled, sha256), the teacher's searches
        (:func:`~gamelib.experiments.elmo_othello.teacher.teacher_summary`), the positions
        kept, the mean result and ``scale`` (K, also in discs on an average square).
    curves : pandas.DataFrame
        Learning curves: ``loss`` plus the columns of :func:`gamelib.learn.elmo_train.train`.
    final : pandas.DataFrame
        :data:`~gamelib.experiments.elmo_othello.training.FINAL_COLUMNS` per loss.
    matches : pandas.DataFrame
        Every loss against the classic weights
        (:func:`gamelib.experiments.bonanza_othello.matches.play_matches`: W-D-L, win rate
        with Wilson and Clopper-Pearson intervals, Elo difference with its interval).
    thetas : dict
        Learned weights per loss.
    timings : dict
        Wall time (s) per stage (in this call; over all invocations when loaded).
    """

    teacher: dict
    curves: Any
    final: Any
    matches: Any
    thetas: dict
    timings: dict


def run_experiment(out, sizes: Mapping[str, Any] | ElmoOthelloConfig, seed: int = 0, *,
                   profile: str = "custom", workers: int | None = None, scheduler=None,
                   progress: bool = False, write: bool = True,
                   wthor_dir=None) -> ElmoOthelloReport:
    """Run (or resume) the four stages in ``out`` and return the :class:`ElmoOthelloReport`
    (see the package docstring for the stages and files); ``sizes``: the configuration, or the
    sizes it is made from; ``wthor_dir``: the folder of the WTHOR files (default: the one
    :func:`gamelib.games.othello.wthor.find_wthor_dir` finds). The records are checked
    (:func:`~gamelib.experiments.elmo_othello.data.check_records`) before anything is
    written."""
    sizes = elmo_othello_config(sizes)
    records = check_records(sizes, wthor_dir)
    folder = RunFolder(out, "elmo_othello", profile, seed, sizes, workers=workers,
                       scheduler=scheduler)
    out = folder.out
    with folder.stage("data"):
        data = load_data(sizes, seed, records)
    with folder.stage("teacher"):
        deep = run_teacher(out / "teacher", data, sizes, seed, workers=workers,
                           scheduler=scheduler, progress=progress)
    with folder.stage("learning"):
        train, test = teacher_batch(data, deep, data.train), teacher_batch(data, deep, data.test)
        scale = fit_teacher_scale(train)
        thetas, curves, final = train_losses(teacher_theta(), train, test, sizes, seed, scale)
    with folder.stage("matches"):
        matches = play_matches(out / "matches", thetas, sizes, seed, workers=workers,
                               scheduler=scheduler, progress=progress)
    summary = {**data_summary(data, sizes, seed), **teacher_summary(deep, data),
               "train_result_mean": float(train.result.mean()),
               "test_result_mean": float(test.result.mean()),
               "scale": scale, "scale_in_discs": scale / _DISC}
    report = ElmoOthelloReport(summary, curves, final, matches, thetas, folder.timings)
    if write:
        _write_report(out, report, data, deep)
        folder.finish(teacher=TEACHER, deep_search=deep_settings(sizes).as_dict(),
                      optimizer=L.OPTIMIZER)
    return report


_FILES = ("curves.csv", "final.csv", "matches.csv", "teacher_summary.json")


def load_report(folder, expect: Mapping[str, Any] | None = None
                ) -> tuple[ElmoOthelloReport, ElmoOthelloConfig]:
    """The :class:`ElmoOthelloReport` of a finished run from its report files (its ``timings``:
    seconds per stage over all invocations) and its configuration; see
    :func:`gamelib.experiments.run_folder.read_run` for what is refused."""
    frames, sizes, timings, _ = read_run(folder, "elmo_othello", _FILES, elmo_othello_config,
                                         expect)
    folder = Path(folder)
    thetas = {name: othello.load_theta(folder / "theta" / f"{name}.npz")
              for name in loss_names(sizes)}
    return ElmoOthelloReport(read_json(folder / "teacher_summary.json"), frames["curves"],
                             frames["final"], frames["matches"], thetas, timings), sizes


def ladder_name(loss: str) -> str:
    """A loss's player name on the GRhino ladder: ``elmo-<λ>`` (``elmo_0.5`` → ``elmo-0.5``),
    ``elmo-apery``."""
    return "elmo-" + (loss[len("elmo_"):] if loss.startswith("elmo_") else loss)


def learned_files(folder) -> dict[str, str]:
    """``{ladder_name(loss): path}``: a finished run's evaluations as the ``learned`` size of
    :mod:`gamelib.experiments.othello_ladder` (each file is played as ``gamelib:linear=FILE``,
    :func:`gamelib.experiments.othello_ladder.learned_spec`)."""
    folder = Path(folder)
    sizes = elmo_othello_config(read_json(folder / "provenance.json")["sizes"])
    return {ladder_name(name): str(folder / "theta" / f"{name}.npz") for name in loss_names(sizes)}


def _write_report(out: Path, report: ElmoOthelloReport, data, deep) -> None:
    import matplotlib
    import matplotlib.pyplot as plt

    from gamelib.runtime.report import write_csv, write_figure

    atomic_write_json(out / "teacher_summary.json", report.teacher)
    write_csv(out, "curves.csv", report.curves)
    write_csv(out, "final.csv", report.final)
    write_csv(out, "matches.csv", report.matches)
    for name, theta in report.thetas.items():
        othello.save_theta(out / "theta" / f"{name}.npz", theta)
    # the teacher's labels (not committed: a rerun of the seed remakes them)
    save_npz_atomic(out / "teacher.npz", {**deep.arrays(), "game": data.positions.game[deep.ids],
                                          "ply": data.positions.ply[deep.ids],
                                          "held_out": np.isin(deep.ids, data.test)})
    with matplotlib.rc_context({"figure.figsize": (6.4, 4.0)}):
        fig, ax = plt.subplots()
        plot_curves(report.curves, ax)
        ax.set_title("elmo's losses on Othello (WTHOR), from the classic weights", fontsize=9)
        fig.tight_layout()
        write_figure(fig, out / "curves.png")


@register("elmo_othello", profiles=PROFILES, check=elmo_othello_config,
          description="elmo's loss on Othello from WTHOR results and a deeper search's win "
                      "rate: lambda sweep vs Apery's squared error, matches against the "
                      "classic weights")
def run(opts: RunOptions) -> ElmoOthelloReport:
    """The command line's entry: :func:`run_experiment` with the options' sizes."""
    report = run_from_options(run_experiment, opts)
    t = report.teacher
    print(f"teacher: {t['train_positions']} training and {t['test_positions']} held-out "
          f"positions, K = {t['scale']:.4f} ({t['scale_in_discs']:.2f} discs)", flush=True)
    return report

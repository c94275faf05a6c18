"""The whole run (:func:`run_experiment`), its report files and their reading back
(:func:`load_report`), and the experiment's registration."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from gamelib.experiments.bonanza_common import HEAD_INTEGERS, history_frame, write_curves
from gamelib.experiments.bonanza_othello.config import (PROFILES, BonanzaOthelloConfig,
                                                        bonanza_othello_config,
                                                        variant_constraint)
from gamelib.experiments.bonanza_othello.data import check_records, data_summary, load_data
from gamelib.experiments.bonanza_othello.matches import OPPONENT, play_matches
from gamelib.experiments.bonanza_othello.training import HISTORY_COLUMNS, train_variant
from gamelib.experiments.registry import RunOptions, register
from gamelib.experiments.run_folder import RunFolder, read_run, run_from_options
from gamelib.games.othello import game as othello
from gamelib.runtime.atomic import atomic_write_json, read_json

__all__ = ["BonanzaOthelloReport", "SUMMARY_COLUMNS", "run_experiment", "load_report",
           "learned_files"]

#: The columns of ``summary.csv``.
SUMMARY_COLUMNS = ["variant", "epoch", "positions_searched", "J_train", "agreement_train",
                   "J_test", "agreement_test", "classic_component", "nonzero_weights", "l1_norm"]


@dataclass(frozen=True)
class BonanzaOthelloReport:
    """What :func:`run_experiment` produced (also written as files when ``write``).

    Attributes
    ----------
    data_summary : dict
        :func:`~gamelib.experiments.bonanza_othello.data.data_summary`: games per year,
        positions (training, held out, dropped), the records' sha256.
    history : pandas.DataFrame
        :data:`~gamelib.experiments.bonanza_othello.training.HISTORY_COLUMNS` per variant and
        epoch.
    summary : pandas.DataFrame
        The last epoch of every variant, then ``classic``: the start (epoch 0), the classic
        square weights, measured on the same positions.
    matches : pandas.DataFrame
        :func:`~gamelib.experiments.bonanza_othello.matches.play_matches`.
    thetas : dict
        Final weights per variant.
    timings : dict
        Wall time (s) per stage (in this call; over all invocations when loaded).
    """

    data_summary: dict
    history: Any
    summary: Any
    matches: Any
    thetas: dict
    timings: dict


def _summary(history):
    import pandas as pd

    last = history.groupby("variant", sort=False).tail(1)[SUMMARY_COLUMNS]
    start = history[history.epoch == 0].head(1)[SUMMARY_COLUMNS].assign(variant=OPPONENT)
    return pd.concat([last, start], ignore_index=True)


def run_experiment(out, sizes: Mapping[str, Any] | BonanzaOthelloConfig, seed: int = 0, *,
                   profile: str = "custom", workers: int | None = None, scheduler=None,
                   progress: bool = False, write: bool = True,
                   wthor_dir=None) -> BonanzaOthelloReport:
    """Run (or resume) the three stages in ``out`` and return the :class:`BonanzaOthelloReport`
    (see the package docstring for the stages and files); ``sizes``: the configuration, or the
    sizes it is made from; ``wthor_dir``: the folder of the WTHOR files (default: the one
    :func:`gamelib.games.othello.wthor.find_wthor_dir` finds). The records are checked
    (:func:`~gamelib.experiments.bonanza_othello.data.check_records`) before anything is
    written."""
    sizes = bonanza_othello_config(sizes)
    records = check_records(sizes, wthor_dir)
    folder = RunFolder(out, "bonanza_othello", profile, seed, sizes, workers=workers,
                       scheduler=scheduler)
    out = folder.out
    with folder.stage("data"):
        data = load_data(sizes, seed, records)
    histories, thetas = {}, {}
    with folder.stage("training"):
        for variant in sizes["variants"]:
            res = train_variant(out / "train" / variant, variant, data, sizes, seed,
                                workers=workers, scheduler=scheduler, progress=progress)
            thetas[variant] = res.state["theta"]
            histories[variant] = res.state["history"]
    history = history_frame(histories, HISTORY_COLUMNS, (*HEAD_INTEGERS, "nonzero_weights"))
    with folder.stage("matches"):
        matches = play_matches(out / "matches", thetas, sizes, seed, workers=workers,
                               scheduler=scheduler, progress=progress)
    report = BonanzaOthelloReport(data_summary(data, sizes, seed), history, _summary(history),
                                  matches, thetas, folder.timings)
    if write:
        _write_report(out, report)
        folder.finish(constraints={v: variant_constraint(v) for v in sizes["variants"]})
    return report


_FILES = ("history.csv", "summary.csv", "matches.csv", "data_summary.json")


def load_report(folder, expect: Mapping[str, Any] | None = None
                ) -> tuple[BonanzaOthelloReport, BonanzaOthelloConfig]:
    """The :class:`BonanzaOthelloReport` of a finished run from its report files (its
    ``timings``: seconds per stage over all invocations) and its configuration; see
    :func:`gamelib.experiments.run_folder.read_run` for what is refused."""
    frames, sizes, timings, _ = read_run(folder, "bonanza_othello", _FILES,
                                         bonanza_othello_config, expect)
    folder = Path(folder)
    thetas = {v: othello.load_theta(folder / "theta" / f"{v}.npz") for v in sizes["variants"]}
    return BonanzaOthelloReport(read_json(folder / "data_summary.json"), frames["history"],
                                frames["summary"], frames["matches"], thetas, timings), sizes


def learned_files(folder) -> dict[str, str]:
    """``{"bonanza-<variant>": path}``: a finished run's evaluations as the ``learned`` size of
    :mod:`gamelib.experiments.othello_ladder` (each file is played as ``gamelib:linear=FILE``,
    :func:`gamelib.experiments.othello_ladder.learned_spec`)."""
    folder = Path(folder)
    sizes = bonanza_othello_config(read_json(folder / "provenance.json")["sizes"])
    return {f"bonanza-{v}": str(folder / "theta" / f"{v}.npz") for v in sizes["variants"]}


def _write_report(out: Path, report: BonanzaOthelloReport) -> None:
    from gamelib.runtime.report import write_csv

    atomic_write_json(out / "data_summary.json", report.data_summary)
    write_csv(out, "history.csv", report.history)
    write_csv(out, "summary.csv", report.summary)
    write_csv(out, "matches.csv", report.matches)
    for name, th in report.thetas.items():
        othello.save_theta(out / "theta" / f"{name}.npz", th)
    write_curves(out / "curves.png", report.history)


@register("bonanza_othello", profiles=PROFILES, check=bonanza_othello_config,
          description="the Bonanza method on Othello from WTHOR professional games: mini-batch "
                      "learners, the scale constraint, L1, matches against the classic weights")
def run(opts: RunOptions) -> BonanzaOthelloReport:
    """The command line's entry: :func:`run_experiment` with the options' sizes."""
    return run_from_options(run_experiment, opts)

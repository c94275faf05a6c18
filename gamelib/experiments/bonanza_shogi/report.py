"""The whole run, its report files (written and read back), and its figures."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from gamelib.games.minishogi import features as E
from gamelib.games.minishogi.reference import reference_theta
from gamelib.runtime.atomic import atomic_write_json, atomic_write_text, read_json
from gamelib.experiments.registry import RunOptions, register
from gamelib.experiments.run_folder import RunFolder, read_run, run_from_options
from gamelib.learn import bonanza_shogi as bs
from gamelib.games.minishogi.records import parse_records
from gamelib.experiments.bonanza_common import (HEAD_INTEGERS, history_frame, summary_frame,
                                                write_curves)
from gamelib.experiments.bonanza_shogi.config import (PROFILES, BonanzaConfig, bonanza_config,
                                                      teacher_settings, variant_settings)
from gamelib.experiments.bonanza_shogi.data import (Split, finished_records, generate_records,
                                                    initial_theta, split)
from gamelib.experiments.bonanza_shogi.training import (HISTORY_COLUMNS, train_variant)
from gamelib.experiments.bonanza_shogi.matches import play_matches


# ----------------------------------------------------------------------------- report
@dataclass(frozen=True)
class BonanzaReport:
    """What :func:`run_experiment` produced (also written as files when ``write``).

    Attributes
    ----------
    records_text : str
        The records file.
    records_summary : dict
        Games, results, plies, positions (training, test, dropped), the teacher's settings.
    history : pandas.DataFrame
        :data:`HISTORY_COLUMNS` per variant and epoch.
    summary : pandas.DataFrame
        The last epoch of every variant, with the teacher's and the initial evaluation's J and
        agreement on the same held-out positions.
    piece_values : pandas.DataFrame
        Material weights in pawns: initial, teacher, every variant.
    matches : pandas.DataFrame
        :func:`play_matches`.
    thetas : dict
        Final weights per variant.
    timings : dict
        Wall time (s) per stage in this call.
    """

    records_text: str
    records_summary: dict
    history: Any
    summary: Any
    piece_values: Any
    matches: Any
    thetas: dict
    timings: dict


def _records_summary(games, data: Split, sizes, seed) -> dict:
    results = [g.result for g in games]
    return {"games": len(games), "sente_wins": results.count("sente"),
            "gote_wins": results.count("gote"), "draws": results.count("draw"),
            "mean_plies": float(np.mean([g.plies for g in games])),
            "positions": len(data.positions), "train_positions": int(data.train.size),
            "test_games": int(data.test_games.size), "test_positions": int(data.test.size),
            "test_positions_dropped_seen_in_training": data.dropped_test,
            "train_eval_positions": int(data.train_eval.size),
            "teacher": teacher_settings(sizes).as_dict(), "seed": seed}


def _summary(history, data: Split, theta0, sizes, map_fn):
    search = bs.SearchSettings(depth=1, qdepth=sizes["qdepth"])
    others = [(name, bs.evaluate(th, data.positions, data.train_eval, search, map_fn=map_fn),
               bs.evaluate(th, data.positions, data.test, search, map_fn=map_fn))
              for name, th in (("initial", theta0), ("teacher", reference_theta()))]
    cols = ["variant", "epoch", "positions_searched", "J_train", "agreement_train", "J_test",
            "agreement_test", "piece_sum", "hand_sum", "nonzero_weights", "l1_norm"]
    return summary_frame(history, cols, others)


def plot_piece_values(piece_values, ax=None):
    """Grouped bars of the material weights (pawns) of the columns of ``piece_values``."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots()
    n = len(piece_values.columns)
    x = np.arange(len(piece_values))
    w = 0.8 / n
    for k, col in enumerate(piece_values.columns):
        ax.bar(x + (k - (n - 1) / 2) * w, piece_values[col], w, label=col, color=f"C{k}")
    ax.set_xticks(x, [s.replace(" on the board", "").replace(" in hand", "*")
                      for s in piece_values.index], fontsize=8)
    ax.set_ylabel("value (pawns of Table 1, 0.02)")
    ax.legend(fontsize=7)
    return ax


def run_experiment(out, sizes: Mapping[str, Any] | BonanzaConfig, seed: int = 0, *,
                   profile: str = "custom", workers: int | None = None, scheduler=None,
                   progress: bool = False, write: bool = True) -> BonanzaReport:
    """Run (or resume) the four stages in ``out`` and return the :class:`BonanzaReport` (see the
    module docstring for the stages and files); ``sizes``: the configuration, or the sizes it is
    made from (:func:`~gamelib.experiments.bonanza_shogi.config.bonanza_config`)."""
    from gamelib.runtime.executor import Executor

    sizes = bonanza_config(sizes)
    folder = RunFolder(out, "bonanza_shogi", profile, seed, sizes, workers=workers,
                       scheduler=scheduler)
    out = folder.out
    with folder.stage("records"):
        text = finished_records(out / "records.txt", sizes, seed) or generate_records(
            out / "records", sizes, seed, workers=workers, scheduler=scheduler, progress=progress)
    records_sha = hashlib.sha256(text.encode()).hexdigest()
    games = parse_records(text, "records.txt")
    data = split(games, sizes, seed)
    theta0 = initial_theta(seed)
    histories, thetas = {}, {}
    with folder.stage("training"):
        for variant in sizes["variants"]:
            res = train_variant(out / "train" / variant, variant, data, sizes, seed, records_sha,
                                workers=workers, scheduler=scheduler, progress=progress)
            thetas[variant] = res.state["theta"]
            histories[variant] = res.state["history"]
    history = history_frame(histories, HISTORY_COLUMNS, (*HEAD_INTEGERS, "nonzero_weights"))
    with folder.stage("matches"):
        matches = play_matches(out / "matches", thetas, theta0, sizes, seed, workers=workers,
                               scheduler=scheduler, progress=progress)
    with Executor(workers, scheduler) as ex:
        summary = _summary(history, data, theta0, sizes, ex.map)
    pieces = bs.material_table({"initial": theta0, "teacher": reference_theta(), **thetas})
    report = BonanzaReport(text, _records_summary(games, data, sizes, seed), history, summary, pieces,
                    matches, thetas, folder.timings)
    if write:
        _write_report(out, report)
        folder.finish(constraints={v: variant_settings(v, sizes).constraint
                                   for v in sizes["variants"]})
    return report


def load_report(folder, expect: Mapping[str, Any] | None = None
                ) -> tuple[BonanzaReport, BonanzaConfig]:
    """The :class:`BonanzaReport` of a finished run from its report files (its ``timings``: seconds
    per stage over all invocations) and its configuration (a run made before the constraint was a
    size: the material sum); see :func:`gamelib.experiments.run_folder.read_run` for what is
    refused."""
    import pandas as pd

    files = ("history.csv", "summary.csv", "matches.csv", "records.txt", "records_summary.json")
    frames, sizes, timings, _ = read_run(folder, "bonanza_shogi", files, bonanza_config, expect,
                                         aliases=("bonanza",))
    folder = Path(folder)
    pieces = pd.read_csv(folder / "piece_values.csv", index_col=0)
    thetas = {v: E.load_theta(folder / "theta" / f"{v}.npz") for v in sizes["variants"]}
    return BonanzaReport((folder / "records.txt").read_text(),
                  read_json(folder / "records_summary.json"), frames["history"],
                  frames["summary"], pieces, frames["matches"], thetas, timings), sizes


def _write_report(out: Path, report: BonanzaReport) -> None:
    import matplotlib
    import matplotlib.pyplot as plt

    from gamelib.runtime.report import write_csv, write_figure

    atomic_write_text(out / "records.txt", report.records_text)
    atomic_write_json(out / "records_summary.json", report.records_summary)
    write_csv(out, "history.csv", report.history)
    write_csv(out, "summary.csv", report.summary)
    write_csv(out, "piece_values.csv", report.piece_values, index=True)
    write_csv(out, "matches.csv", report.matches)
    for name, th in report.thetas.items():
        E.save_theta(out / "theta" / f"{name}.npz", th)
    write_curves(out / "curves.png", report.history)
    with matplotlib.rc_context({"figure.figsize": (9.6, 4.0)}):
        fig, ax = plt.subplots()
        plot_piece_values(report.piece_values, ax)
        fig.tight_layout()
        write_figure(fig, out / "piece_values.png")


@register("bonanza_shogi", aliases=("bonanza",), profiles=PROFILES, check=bonanza_config,
          description="the Bonanza method on 5x5 shogi: teacher records, batch vs mini-batch, "
                      "constraint, L1, matches")
def run(opts: RunOptions) -> BonanzaReport:
    """The command line's entry: :func:`run_experiment` with the options' sizes."""
    return run_from_options(run_experiment, opts)

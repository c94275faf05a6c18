"""The Othello value study: a value table and a value network from professional game records,
and the network in αβ against simple players (chapter "An Othello value function from
professional game records").

A run (:func:`run_experiment`; ``python -m gamelib.experiments othello_value``) has four
stages, each timed in its ``provenance.json``:

1. **tables** -- the WTHOR games of ``first_year .. last_year``
   (:func:`gamelib.games.othello.value_table.load_years`) replayed into value tables (eqs. 1-2):
   all games, the training games and the held-out ones, split by game with the share
   ``val_fraction`` and the run's seed (:func:`~gamelib.games.othello.value_table.build_tables`,
   draws left out). Files: ``table_summary.json`` (games, draws, states, the split),
   ``table2.csv`` (the paper's Table 2 beside ours, and ours with draws counted as z = 0, which
   is what the paper's numbers match), ``states_per_move.csv`` (distinct states per move number
   and the share seen in one game only).
2. **training** -- the backpropagation checked against central differences on a small float64
   network (``gradient_check.json``), then the network of sizes ``(input, *hidden, 1)`` trained
   by Adam on eq. (4) over the state occurrences of the training games
   (:func:`gamelib.games.othello.mlp.train`; resumable from ``mlp_checkpoint.npz`` after every
   epoch): ``mlp.npz``, ``training_history.csv``.
3. **fit** -- held-out weighted MSE (eq. 4) of the constant (the training games' share of Black
   wins), the training table (the constant where it has no entry) and the network, also after
   move 20 and on the training games (``fit.csv``); the network's reliability on the held-out
   states (``reliability.csv``, ``calibration.json``: the expected calibration error).
4. **matches** -- the chapter's ten pairings at ``depth`` plies
   (:mod:`gamelib.play.othello_value_matches`: the network, the training table, the classic
   positional weights, greedy and random players), ``2 * n_pairs`` games each from paired
   random openings of ``opening_plies`` plies, kept in ``matches/`` (a rerun resumes):
   ``matches.csv``.

Every number is a function of the sizes, the seed and the WTHOR files (whose sha256 the
provenance records): the same on any machine and with any number of workers. The chapter draws
its figures from the report (:func:`load_report`). The committed paper-scale run of the
chapter, ``data/results/paper/othello_value/``, was made by the chapter before this experiment
was registered, with the same computations (its provenance states its parameters); a finished
run folder of either kind is what ``gamelib:table=FOLDER`` plays
(:func:`gamelib.play.othello_players.run_table`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from gamelib.experiments.config import ExperimentConfig
from gamelib.experiments.registry import RunOptions, register
from gamelib.experiments.run_folder import RunFolder, read_run, run_from_options
from gamelib.games.othello import mlp as mlpmod
from gamelib.games.othello import value_table as vt
from gamelib.games.othello import wthor
from gamelib.play import othello_value_matches as ovm
from gamelib.play.othello_players import TrainingTablePlayer
from gamelib.runtime.atomic import atomic_write_json, read_json
from gamelib.runtime.checks import check_integer, check_number

__all__ = ["PROFILES", "OthelloValueConfig", "othello_value_config", "OthelloValueReport",
           "run_experiment", "load_report", "table_summary", "table2", "states_per_move",
           "gradient_check", "fit_table"]

#: ``quick``: about a minute on one core once numba's cache is warm (three years of records,
#: two epochs, depth 2, 16 games per pairing). ``paper``: the paper's sizes (1977-2018, 10
#: epochs; training about 20 minutes on one core), depth 4 and 400 games per pairing.
PROFILES = {
    "quick": {"first_year": 2016, "last_year": 2018, "val_fraction": 0.1,
              "hidden": [128, 256, 64], "encoding": "paper", "epochs": 2, "batch_size": 256,
              "lr": 0.001, "depth": 2, "n_pairs": 8, "opening_plies": 4},
    "paper": {"first_year": 1977, "last_year": 2018, "val_fraction": 0.1,
              "hidden": [128, 256, 64], "encoding": "paper", "epochs": 10, "batch_size": 256,
              "lr": 0.001, "depth": 4, "n_pairs": 200, "opening_plies": 4},
}
#: The small float64 network whose backpropagation is checked (hidden sizes), on this many
#: training states.
GRADIENT_CHECK_HIDDEN, GRADIENT_CHECK_STATES = (12, 8), 64
#: Bins of the reliability diagram.
RELIABILITY_BINS = 10
#: The move after which the fit is measured again (the table knows little beyond it).
LATE_MOVE = 20


@dataclass(frozen=True)
class OthelloValueConfig(ExperimentConfig):
    """One run of the study, every size typed and checked (``ValueError`` naming the field).

    Attributes
    ----------
    first_year, last_year : int
        The WTHOR years read (inclusive; the paper: 1977-2018).
    val_fraction : float
        Share of the games held out, in (0, 1).
    hidden : tuple of int
        Hidden layer widths (the paper: 128, 256, 64).
    encoding : str
        The network's input (:data:`gamelib.games.othello.mlp.ENCODINGS`).
    epochs, batch_size : int
        Adam's passes over the training occurrences and its mini-batch.
    lr : float
        Adam's step size.
    depth : int
        Plies of the matches' searches.
    n_pairs : int
        Openings per pairing, each played with both colours.
    opening_plies : int
        Random plies opening every match game.
    """

    first_year: int
    last_year: int
    val_fraction: float
    hidden: tuple[int, ...]
    encoding: str
    epochs: int
    batch_size: int
    lr: float
    depth: int
    n_pairs: int
    opening_plies: int

    EXPERIMENT = "othello_value"

    def __post_init__(self):
        for name in ("first_year", "last_year", "epochs", "batch_size", "depth", "n_pairs"):
            self._set(name, check_integer(name, getattr(self, name), 1))
        self._set("opening_plies", check_integer("opening_plies", self.opening_plies, 0))
        if self.first_year > self.last_year:
            raise ValueError(f"first_year ({self.first_year}) must not be after last_year "
                             f"({self.last_year})")
        check_number("val_fraction", self.val_fraction, 0.0, 1.0, low_open=True, high_open=True)
        check_number("lr", self.lr, 0.0, low_open=True)
        hidden = self.hidden
        if isinstance(hidden, (str, bytes)) or not isinstance(hidden, (list, tuple)) or not hidden:
            raise ValueError(f"hidden must be a non-empty list of layer widths, got {hidden!r}")
        self._set("hidden", tuple(check_integer("hidden", h, 1) for h in hidden))
        if self.encoding not in mlpmod.ENCODINGS:
            raise ValueError(f"unknown encoding {self.encoding!r}; valid: "
                             f"{', '.join(mlpmod.ENCODINGS)}")


def othello_value_config(sizes: Mapping[str, Any]) -> OthelloValueConfig:
    """The typed configuration of ``sizes`` (a profile with overrides, or a run's stored sizes)."""
    return OthelloValueConfig.of(sizes)


@dataclass(frozen=True)
class OthelloValueReport:
    """What a run produced (the files of the module's text).

    Attributes
    ----------
    summary : dict
        ``table_summary.json``.
    table2, states_per_move, history, fit, reliability, matches : pandas.DataFrame
        ``table2.csv``, ``states_per_move.csv``, ``training_history.csv``, ``fit.csv``,
        ``reliability.csv``, ``matches.csv``.
    gradient_check : dict
        ``gradient_check.json``: the parameters checked, the largest relative error and
        whether it is below 1e-7.
    calibration : dict
        ``calibration.json``.
    mlp : gamelib.games.othello.mlp.MLP
        The trained network (``mlp.npz``).
    timings : dict
        Wall time (s) per stage (in this call; over all invocations when loaded).
    """

    summary: dict
    table2: Any
    states_per_move: Any
    gradient_check: dict
    mlp: Any
    history: Any
    fit: Any
    reliability: Any
    calibration: dict
    matches: Any
    timings: dict


def table_summary(tables, sizes) -> dict:
    """``table_summary.json`` of the value tables ``tables`` (:class:`~gamelib.games.othello.
    value_table.RecordTables`)."""
    full = tables.full
    return {
        "years": [sizes["first_year"], sizes["last_year"]],
        "games": full.info["games"], "draws": full.info["draws"],
        "games_counted": full.info["games_counted"],
        "states": full.n_states, "distinct_states": len(full),
        "states_seen_once": int((full.frame["n"] == 1).sum()),
        "train_games": tables.train.info["games"], "val_games": tables.val.info["games"],
        "train_states": tables.train.n_states, "val_states": tables.val.n_states,
        "val_distinct_states": len(tables.val),
        "val_states_in_train_table": int((tables.train.rows(tables.val.keys_black,
                                                             tables.val.keys_white) >= 0).sum()),
    }


def table2(tables):
    """The paper's Table 2 beside ours (:func:`~gamelib.games.othello.value_table.
    table2_comparison`), with our counts when the draws count as z = 0."""
    out = vt.table2_comparison(tables.full)
    zero = vt.table2_comparison(vt.ValueTable.from_decomposition(tables.decomposition,
                                                                 draws="zero"))
    out["n_draws_as_0"] = zero["n"]
    out["wins_draws_as_0"] = zero["wins"]
    out["v_draws_as_0"] = zero["v"]
    out["paper_wins_over_n"] = out["paper_wins"] / out["paper_n"]
    return out


def _move_numbers(frame) -> np.ndarray:
    """The move number of each state of a table's frame (discs on the board − 4)."""
    return np.bitwise_count((frame["black"] | frame["white"]).to_numpy(np.uint64)) - 4


def states_per_move(tables):
    """Per move number: distinct states, their occurrences, and the share of the distinct
    states seen in one game only."""
    import pandas as pd

    frame = tables.full.frame
    return (pd.DataFrame({"move": _move_numbers(frame), "n": frame["n"], "once": frame["n"] == 1})
            .groupby("move").agg(distinct=("n", "size"), occurrences=("n", "sum"),
                                 seen_once=("once", "mean")).reset_index())


def gradient_check(tables, sizes, seed: int) -> dict:
    """The backpropagation of a small float64 network against central differences
    (:func:`gamelib.games.othello.mlp.gradient_check`) on the first training states."""
    small = mlpmod.MLP.init((mlpmod.input_size(sizes["encoding"]), *GRADIENT_CHECK_HIDDEN, 1),
                            sizes["encoding"], seed=seed, dtype=np.float64)
    sample = tables.train.frame.iloc[:GRADIENT_CHECK_STATES]
    x = mlpmod.encode_states(sample["black"], sample["white"], sizes["encoding"],
                             dtype=np.float64)
    worst = mlpmod.gradient_check(small, x, sample["v_b"].to_numpy(), sample["n"].to_numpy())
    return {"parameters_checked": small.n_params,
            "max_relative_error_below_1e-7": bool(worst < 1e-7),
            "max_relative_error": float(worst)}


def _train(out: Path, tables, sizes, seed: int, progress: bool):
    net = mlpmod.MLP.init((mlpmod.input_size(sizes["encoding"]), *sizes["hidden"], 1),
                          sizes["encoding"], seed=seed)
    history = mlpmod.train(net, tables.train, epochs=sizes["epochs"],
                           batch_size=sizes["batch_size"], lr=sizes["lr"], seed=seed,
                           val_table=tables.val, checkpoint=out / "mlp_checkpoint.npz",
                           progress=progress)
    net.metadata.update({"years": [sizes["first_year"], sizes["last_year"]],
                         "epochs": sizes["epochs"], "seed": seed,
                         "val_fraction": sizes["val_fraction"]})
    return net, history


def fit_table(tables, net, train_loss: float):
    """``(fit, predictions)``: the held-out weighted MSE (eq. 4) of the constant, the training
    table and the network, also after move :data:`LATE_MOVE` and on the training games
    (``train_loss``: the network's last training loss), and the network's held-out
    predictions."""
    import pandas as pd

    val = tables.val.frame
    train_frame = tables.train.frame
    prior = train_frame["wins"].sum() / train_frame["n"].sum()
    rows = tables.train.rows(val["black"], val["white"])
    seen = rows >= 0
    lookup = np.where(seen, train_frame["v_b"].to_numpy()[np.where(seen, rows, 0)], prior)
    pred_val = net.predict(val["black"], val["white"])
    late = _move_numbers(val) > LATE_MOVE
    constant = np.full(len(val), prior)
    fit = pd.DataFrame({
        "model": ["constant", "training table (constant where unseen)", "MLP"],
        "val_wmse": [mlpmod.weighted_mse(p, val["v_b"], val["n"])
                     for p in (constant, lookup, pred_val)],
        "val_wmse_after_move_20": [mlpmod.weighted_mse(p[late], val["v_b"][late], val["n"][late])
                                   for p in (constant, lookup, pred_val)],
    })
    fit["train_wmse"] = [mlpmod.weighted_mse(np.full(len(train_frame), prior),
                                             train_frame["v_b"], train_frame["n"]),
                         0.0, train_loss]
    return fit, pred_val


def run_experiment(out, sizes: Mapping[str, Any] | OthelloValueConfig, seed: int = 0, *,
                   profile: str = "custom", workers: int | None = None, scheduler=None,
                   progress: bool = False, write: bool = True,
                   wthor_dir=None) -> OthelloValueReport:
    """Run (or resume) the four stages in ``out`` (the module's text) and return the
    :class:`OthelloValueReport`; ``sizes``: the configuration or the sizes it is made from;
    ``wthor_dir``: the WTHOR files' folder (default: the one
    :func:`gamelib.games.othello.wthor.find_wthor_dir` finds). The records are read before
    anything is written (a missing year: ``FileNotFoundError`` naming it)."""
    sizes = othello_value_config(sizes)
    records = vt.load_years(sizes.first_year, sizes.last_year, wthor_dir)
    folder = RunFolder(out, "othello_value", profile, seed, sizes, workers=workers,
                       scheduler=scheduler)
    out = folder.out
    with folder.stage("tables"):
        tables = vt.build_tables(records, sizes.val_fraction, seed)
        summary = table_summary(tables, sizes)
        t2, per_move = table2(tables), states_per_move(tables)
    with folder.stage("training"):
        check = gradient_check(tables, sizes, seed)
        net, history = _train(out, tables, sizes, seed, progress)
    with folder.stage("fit"):
        fit, pred_val = fit_table(tables, net, history.train_loss[-1])
        rel = mlpmod.reliability(pred_val, tables.val, bins=RELIABILITY_BINS)
    with folder.stage("matches"):
        # the table player travels to the workers as its split, not as a packed table of
        # hundreds of MB: each process builds it once (the same table as tables.train)
        table = TrainingTablePlayer(sizes.first_year, sizes.last_year, sizes.val_fraction, seed,
                                    sizes.depth, None if wthor_dir is None else str(wthor_dir))
        matches = ovm.play_pairings(ovm.players(net, table, sizes.depth),
                                    ovm.pairings(sizes.depth), sizes.n_pairs,
                                    sizes.opening_plies, seed, workers=workers,
                                    progress=progress, checkpoints=out / "matches")
    report = OthelloValueReport(summary, t2, per_move, check, net, history.as_frame(), fit, rel,
                                {"expected_calibration_error": rel.attrs["ece"]}, matches,
                                folder.timings)
    if write:
        _write_report(out, report)
        records_dir = wthor.find_wthor_dir() if wthor_dir is None else wthor_dir
        folder.finish(wthor_sha256=wthor.years_sha256(records_dir, sizes.first_year,
                                                      sizes.last_year),
                      training_samples=history.samples)
    return report


_FILES = ("table2.csv", "states_per_move.csv", "training_history.csv", "fit.csv",
          "reliability.csv", "matches.csv", "table_summary.json", "gradient_check.json",
          "calibration.json", "mlp.npz")


def _write_report(out: Path, report: OthelloValueReport) -> None:
    from gamelib.runtime.report import write_csv

    atomic_write_json(out / "table_summary.json", report.summary)
    atomic_write_json(out / "gradient_check.json", report.gradient_check)
    atomic_write_json(out / "calibration.json", report.calibration)
    report.mlp.save(out / "mlp.npz")
    for name, frame in (("table2", report.table2), ("states_per_move", report.states_per_move),
                        ("training_history", report.history), ("fit", report.fit),
                        ("reliability", report.reliability), ("matches", report.matches)):
        write_csv(out, f"{name}.csv", frame)


def load_report(folder, expect: Mapping[str, Any] | None = None
                ) -> tuple[OthelloValueReport, OthelloValueConfig]:
    """The :class:`OthelloValueReport` of a finished run and its configuration
    (:func:`gamelib.experiments.run_folder.read_run` says what is refused)."""
    frames, sizes, timings, _ = read_run(folder, "othello_value", _FILES, othello_value_config,
                                         expect)
    import pandas as pd

    folder = Path(folder)
    t2 = pd.read_csv(folder / "table2.csv", dtype={"state": str})     # 64 digits, leading zeros
    return OthelloValueReport(read_json(folder / "table_summary.json"), t2,
                              frames["states_per_move"], read_json(folder / "gradient_check.json"),
                              mlpmod.MLP.load(folder / "mlp.npz"), frames["training_history"],
                              frames["fit"], frames["reliability"],
                              read_json(folder / "calibration.json"), frames["matches"],
                              timings), sizes


@register("othello_value", profiles=PROFILES, check=othello_value_config,
          description="an Othello value table and value network from WTHOR professional games, "
                      "and the network in alpha-beta against simple players")
def run(opts: RunOptions) -> OthelloValueReport:
    """The command line's entry: :func:`run_experiment` with the options' sizes."""
    report = run_from_options(run_experiment, opts)
    fit = report.fit.set_index("model")["val_wmse"]
    print(f"held-out weighted MSE: network {fit['MLP']:.4f}, training table "
          f"{fit['training table (constant where unseen)']:.4f}, constant "
          f"{fit['constant']:.4f}", flush=True)
    return report

"""elmo's loss on 5×5 shogi: teacher data, a λ sweep against Apery's squared error, matches.

``python -m gamelib.experiments elmo_shogi --profile quick|paper [--seed S] [--out DIR]`` runs four
stages into the run folder (default ``data/results/<profile>/elmo_shogi/seed-<S>``):

1. **Teacher data** (``teacher/``, then ``teacher.npz``): ``n_games`` self-play games of the
   reference evaluation (:mod:`gamelib.learn.teacher`: random opening of ``opening_plies``, deep
   search of ``node_budget`` nodes, shallow quiescence leaf, results, adjudication at
   ``eval_limit``), in resumable batches on the local cores or Dask.
2. **Split and scale**: the games are split into training and held-out games (a seeded
   ``test_fraction`` of the games, so no game has positions on both sides); draws are dropped;
   the win-rate scale K is fitted to the training positions' deep scores and results
   (:func:`gamelib.learn.elmo_train.fit_scale`).
3. **Learning**: from the initial evaluation (Table 1 piece values, the rest ~N(0, 1e-4²),
   :func:`gamelib.games.minishogi.features.initial_theta`), mini-batch AdaGrad on elmo's loss for every
   λ of ``lambdas`` and on Apery's squared error, the same mini-batches for all, with the
   held-out cross-entropy of the results recorded ``evals_per_epoch`` times per epoch.
4. **Matches** (``matches/``, resumable): every learned evaluation against the initial one and
   against the reference opponent (and the initial one against the reference, the baseline),
   ``match_games`` games per pairing with colours alternating, a random opening of
   ``match_opening_plies`` and ``match_node_budget`` nodes per move for every player. With
   ``paired_openings`` (both profiles) the games are played in pairs from one opening with both
   colours, and the openings are the same for every pairing and every run seed
   (:data:`OPENING_SEED`), so that the losses -- and the runs of different seeds -- are
   compared on the same positions; runs made before this size existed drew each game's own
   opening from the run seed.

The report (:class:`ElmoReport`, and files at the folder's top when ``write``): ``teacher_summary.json``
(counts and K), ``curves.csv`` (learning curves), ``final.csv`` (per loss: final and best held-out
cross-entropy), ``matches.csv`` (records with win rates and 95 % Wilson intervals),
``curves.png``, ``theta/<loss>.npz`` and ``provenance.json``. Rerunning the command resumes; the
numbers do not depend on the number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from gamelib.games.minishogi import features as ev
from gamelib.experiments.config import ExperimentConfig, below_cap, distinct_numbers
from gamelib.experiments.registry import RunOptions, register
from gamelib.experiments.run_folder import RunFolder, read_run, run_from_options
from gamelib.runtime.checks import check_integer, check_number
from gamelib.runtime.seeds import derive_rng, derive_seed
from gamelib.learn import elmo_train as L
from gamelib.learn import teacher as T

__all__ = ["PROFILES", "OPENING_SEED", "ElmoConfig", "elmo_config", "teacher_settings", "loss_names", "label", "split_games", "initial_theta", "ElmoReport",
           "run_experiment", "match_frame", "plot_curves", "verdict", "verdict_text"]

PROFILES = {
    "quick": {"n_games": 160, "games_per_batch": 40, "node_budget": 1000, "opening_plies": 4,
              "eval_limit": 0.5, "test_fraction": 0.2, "lambdas": [0, 0.33, 0.5, 1],
              "n_epochs": 8, "batch_size": 64, "learning_rate": 0.001, "evals_per_epoch": 1,
              "match_games": 40, "match_node_budget": 300, "match_opening_plies": 4,
              "paired_openings": True},
    "paper": {"n_games": 8000, "games_per_batch": 400, "node_budget": 5000, "opening_plies": 4,
              "eval_limit": 0.5, "test_fraction": 0.2, "lambdas": [0, 0.33, 0.5, 1],
              "n_epochs": 20, "batch_size": 256, "learning_rate": 0.001, "evals_per_epoch": 2,
              "match_games": 400, "match_node_budget": 2000, "match_opening_plies": 4,
              "paired_openings": True},
}
_MAX_PLIES = 300
#: The seed of the matches' paired openings, shared by every run seed.
OPENING_SEED = derive_seed(0, "elmo_shogi openings")


@dataclass(frozen=True)
class ElmoConfig(ExperimentConfig):
    """One run of the experiment, every size typed and every relation between them checked
    (``ValueError`` naming the field and the problem), however it is made: by
    :func:`elmo_config`, directly, or with :func:`dataclasses.replace`. Its mapping view is the
    ``sizes`` a run's ``provenance.json`` stores.

    Attributes
    ----------
    n_games, games_per_batch : int
        Teacher games, a multiple of the games per resumable batch; at least two (one held
        out, one to train on).
    node_budget, opening_plies : int
        The teacher's nodes per move and random opening plies (below the games' cap of
        :data:`_MAX_PLIES` plies).
    eval_limit : float
        Adjudication threshold (:class:`~gamelib.learn.teacher.TeacherSettings`, which
        validates the teacher's settings).
    test_fraction : float
        Held-out fraction of the games, in (0, 1).
    lambdas : tuple of float
        Distinct λ >= 0 of eq. (5) (``L + λH``), with distinct loss names (``elmo_<λ:g>``).
    n_epochs, batch_size, evals_per_epoch : int
    learning_rate : float
        Positive.
    match_games, match_node_budget, match_opening_plies : int
        Games per pairing, nodes per move, random opening plies (below the cap).
    paired_openings : bool
        Each opening played with both colours, the same openings for every pairing and every
        run seed (then ``match_games`` is even); False (each game its own opening, from the run
        seed) for the runs made before this size existed, and left out of their stored sizes.
    """

    n_games: int
    games_per_batch: int
    node_budget: int
    opening_plies: int
    eval_limit: float
    test_fraction: float
    lambdas: tuple[float, ...]
    n_epochs: int
    batch_size: int
    learning_rate: float
    evals_per_epoch: int
    match_games: int
    match_node_budget: int
    match_opening_plies: int
    paired_openings: bool

    EXPERIMENT = "elmo_shogi"
    IMPLICIT = {"paired_openings": False}
    LATER_DEFAULTS = IMPLICIT

    def __post_init__(self):
        for name in ("n_games", "games_per_batch", "node_budget", "batch_size",
                     "evals_per_epoch", "match_games", "match_node_budget"):
            self._set(name, check_integer(name, getattr(self, name), 1))
        for name in ("n_epochs", "opening_plies", "match_opening_plies"):
            self._set(name, check_integer(name, getattr(self, name), 0))
        check_number("test_fraction", self.test_fraction, 0, 1, low_open=True, high_open=True)
        self._set("lambdas", distinct_numbers("lambdas", self.lambdas, 0))
        check_number("learning_rate", self.learning_rate, 0, low_open=True)
        if not isinstance(self.paired_openings, bool):
            raise ValueError(f"paired_openings must be true or false, got {self.paired_openings!r}")
        self._check_relations()
        teacher_settings(self)                  # which validates the teacher's settings

    def _check_relations(self) -> None:
        """The relations between the sizes (each field already valid on its own)."""
        if self.n_games % self.games_per_batch:
            raise ValueError(f"n_games ({self.n_games}) must be a multiple of games_per_batch "
                             f"({self.games_per_batch})")
        if self.n_games < 2:
            raise ValueError(f"n_games ({self.n_games}) must be at least 2: the split holds "
                             f"out whole games and trains on the others")
        names = [f"elmo_{float(lam):g}" for lam in self.lambdas]
        if len(set(names)) != len(names):
            raise ValueError(f"lambdas {list(self.lambdas)} must differ in their first 6 "
                             f"significant digits: their losses are named {names}")
        for name in ("opening_plies", "match_opening_plies"):
            below_cap(self, name, _MAX_PLIES, "the games'")
        if self.paired_openings and self.match_games % 2:
            raise ValueError(f"match_games ({self.match_games}) must be even with paired_openings: "
                             f"each opening is played with both colours")


def elmo_config(sizes: Mapping[str, Any]) -> ElmoConfig:
    """The typed configuration of ``sizes``: a profile of :data:`PROFILES` with overrides (the
    command line's ``-p KEY VALUE``), or the sizes a run stored in its provenance; an
    :class:`ElmoConfig` is returned as it is. ``ValueError`` names the field and the
    problem."""
    return ElmoConfig.of(sizes)


def teacher_settings(sizes: Mapping[str, Any]) -> T.TeacherSettings:
    """The teacher games' settings of a profile."""
    return T.TeacherSettings(node_budget=sizes["node_budget"], opening_plies=sizes["opening_plies"],
                             eval_limit=float(sizes["eval_limit"]), max_plies=_MAX_PLIES)


def loss_names(sizes: Mapping[str, Any]) -> dict[str, tuple[str, float]]:
    """``{name: (loss, λ)}``: ``"elmo_<λ>"`` for every λ, then ``"apery"``."""
    out = {f"elmo_{float(lam):g}": ("elmo", float(lam)) for lam in sizes["lambdas"]}
    out["apery"] = ("apery", 0.0)
    return out


def label(name: str) -> str:
    """Display label of a loss name (``"elmo λ = 0.5"``, ``"Apery (squared error)"``)."""
    if name == "apery":
        return "Apery (squared error)"
    if name.startswith("elmo_"):
        return f"elmo λ = {name[5:]}"
    return name


def split_games(positions, test_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Record numbers of the training and held-out positions: a seeded random
    ``test_fraction`` of the games (rounded, at least one) is held out."""
    games = np.unique(positions["game"])
    rng = derive_rng(seed, "split")
    n_test = min(len(games) - 1, max(1, int(round(test_fraction * len(games)))))
    if n_test < 1:
        raise ValueError("need at least two games with positions to split them")
    test_games = rng.choice(games, n_test, replace=False)
    is_test = np.isin(positions["game"], test_games)
    return np.flatnonzero(~is_test), np.flatnonzero(is_test)


def initial_theta(seed: int) -> np.ndarray:
    """The learners' common starting point (and the 'initial evaluation' of the matches)."""
    return ev.initial_theta(derive_seed(seed, "init"), 1e-4)


@dataclass(frozen=True)
class ElmoReport:
    """What :func:`run_experiment` produced.

    Attributes
    ----------
    teacher : dict
        :func:`gamelib.learn.teacher.summary` of the data, with the split sizes and ``scale``.
    curves : pandas.DataFrame
        Learning curves: ``loss`` plus the columns of :func:`gamelib.learn.elmo_train.train`.
    final : pandas.DataFrame
        Per loss: held-out cross-entropy at the end and at its best, squared error at the end.
    matches : pandas.DataFrame
        :func:`match_frame`.
    thetas : dict
        Learned weights per loss (and ``"initial"``).
    positions : numpy.ndarray
        The teacher records (:data:`gamelib.learn.teacher.TEACHER_DTYPE`).
    timings : dict
        Wall time (s) per stage in this call.
    """

    teacher: dict
    curves: Any
    final: Any
    matches: Any
    thetas: dict
    positions: Any
    timings: dict


def match_frame(records: Mapping, confidence: float = 0.95):
    """Match records as rows ``player, opponent, wins, draws, losses, games, win_rate`` (decisive
    games, the paper's convention), ``low, high`` (Wilson interval), ``score`` (draws half) and
    ``p_two_sided`` (exact sign test)."""
    import pandas as pd
    from gamelib.play.stats import summarize

    rows = []
    for (a, b), rec in records.items():
        s = summarize(rec, confidence)
        rows.append({"player": a, "opponent": b, "wins": s["wins"], "draws": s["draws"],
                     "losses": s["losses"], "games": s["games"], "win_rate": s["win_rate"],
                     "low": s["wilson_low"], "high": s["wilson_high"], "score": s["score"],
                     "p_two_sided": s["p_two_sided"]})
    return pd.DataFrame(rows, columns=["player", "opponent", "wins", "draws", "losses", "games",
                                       "win_rate", "low", "high", "score", "p_two_sided"])


def _train_all(train, test, sizes, seed, scale):
    import pandas as pd

    theta0 = initial_theta(seed)
    thetas, frames, finals = {"initial": theta0}, [], []
    for name, (loss, lam) in loss_names(sizes).items():
        fit = L.train(theta0, train, loss=loss, lam=lam, scale=scale,
                      learning_rate=float(sizes["learning_rate"]), n_epochs=sizes["n_epochs"],
                      batch_size=sizes["batch_size"], seed=derive_seed(seed, "order"),
                      test=test, evals_per_epoch=sizes["evals_per_epoch"])
        thetas[name] = fit.weights
        h = fit.history
        frames.append(h.assign(loss=name)[["loss", *h.columns]])
        best = int(h.test_result_xent.idxmin())
        finals.append({"loss": name, "lambda": lam if loss == "elmo" else np.nan,
                       "test_result_xent": h.test_result_xent.iloc[-1],
                       "best_test_result_xent": h.test_result_xent.iloc[best],
                       "best_epoch": h.epoch.iloc[best],
                       "test_teacher_mse": h.test_teacher_mse.iloc[-1],
                       "train_result_xent": h.train_result_xent.iloc[-1]})
    curves = pd.concat(frames, ignore_index=True)
    return thetas, curves, pd.DataFrame(finals)


def _play(out, thetas, sizes, seed, workers, scheduler, progress):
    from gamelib.play.shogi import SearchPlayer, play_games, reference_player

    budget = sizes["match_node_budget"]
    players = {name: SearchPlayer(theta, ev.EVAL_LINEAR, node_budget=budget)
               for name, theta in thetas.items()}
    players["reference"] = reference_player(node_budget=budget)
    learned = [n for n in thetas if n != "initial"]
    pairs = [(n, "initial") for n in learned] + [(n, "reference") for n in learned]
    pairs.append(("initial", "reference"))
    paired = sizes.paired_openings and sizes.match_opening_plies > 0
    result = play_games(players, pairs, sizes["match_games"], derive_seed(seed, "matches"),
                        max_plies=_MAX_PLIES, opening_plies=sizes["match_opening_plies"],
                        paired_openings=paired, opening_seed=OPENING_SEED if paired else None,
                        folder=Path(out), workers=workers, scheduler=scheduler,
                        progress=progress)
    return match_frame({p: result.records[p] for p in pairs})


def run_experiment(out, sizes: Mapping[str, Any] | ElmoConfig, seed: int = 0, *,
                   profile: str = "custom", workers: int | None = None, scheduler=None,
                   progress: bool = False, write: bool = True) -> ElmoReport:
    """Run (or resume) the four stages in ``out`` and return the :class:`ElmoReport` (see the
    module docstring; ``sizes``: the configuration or the sizes it is made from,
    :func:`elmo_config`; ``write`` writes the report files)."""
    sizes = elmo_config(sizes)
    folder = RunFolder(out, "elmo_shogi", profile, seed, sizes, workers=workers,
                       scheduler=scheduler)
    out = folder.out
    settings = teacher_settings(sizes)
    with folder.stage("teacher"):
        positions = T.generate(out / "teacher", sizes["n_games"], settings, seed,
                               games_per_batch=sizes["games_per_batch"], workers=workers,
                               scheduler=scheduler, progress=progress)
        if write:
            T.save_teacher(out / "teacher.npz", positions, settings, seed)
    with folder.stage("learning"):
        rows_train, rows_test = split_games(positions, float(sizes["test_fraction"]), seed)
        train, kept_train = T.leaf_batch(positions, rows_train, draws="drop")
        test, kept_test = T.leaf_batch(positions, rows_test, draws="drop")
        scale = L.fit_scale(train.deep_eval, train.result)
        summary = T.summary(positions)
        summary.update({"train_positions": int(kept_train.size),
                        "test_positions": int(kept_test.size), "scale": scale,
                        "scale_in_pawns": scale / ev.PIECE_VALUES["P"]})
        thetas, curves, final = _train_all(train, test, sizes, seed, scale)
    with folder.stage("matches"):
        matches = _play(out / "matches", thetas, sizes, seed, workers, scheduler, progress)
    report = ElmoReport(summary, curves, final, matches, thetas, positions, folder.timings)
    if write:
        _write_report(out, report)
        folder.finish(teacher_settings=settings.as_dict(), optimizer=L.OPTIMIZER)
    return report


def plot_curves(curves, ax=None, column: str = "test_result_xent"):
    """Held-out cross-entropy of the results over training, one line per loss."""
    import matplotlib.pyplot as plt

    if ax is None:
        ax = plt.subplots()[1]
    for k, (name, c) in enumerate(curves.groupby("loss", sort=False)):
        ax.plot(c.epoch, c[column], marker="o", ms=3, color=f"C{k}", label=label(name),
                ls="--" if name == "apery" else "-")
    ax.set_xlabel("epoch")
    ax.set_ylabel("held-out cross-entropy of the results" if column == "test_result_xent"
                  else column)
    ax.legend(fontsize=8)
    return ax


def verdict(report: ElmoReport) -> dict:
    """Which loss wins: the lowest final held-out cross-entropy, and the best match results
    (win rate against the reference and the initial evaluation; ties within the intervals are
    stated as such)."""
    final = report.final.set_index("loss")
    by_xent = final.test_result_xent.idxmin()
    m = report.matches
    out = {"best_by_heldout_xent": by_xent,
           "heldout_xent": {k: float(v) for k, v in final.test_result_xent.items()}}
    for opp in ("reference", "initial"):
        sel = m[(m.opponent == opp) & (m.player != "initial")].set_index("player")
        if sel.empty:
            continue
        best = sel.win_rate.idxmax()
        # learners whose interval overlaps the best one's: not separated by this many games
        tied = sorted(p for p in sel.index if p != best and sel.high[p] >= sel.low[best])
        out[f"best_against_{opp}"] = best
        out[f"not_separated_from_best_against_{opp}"] = tied
    return out


def verdict_text(report: ElmoReport, alpha: float = 0.01) -> str:
    """The answer to "which λ wins", in Markdown, from the run's own numbers: the held-out
    cross-entropy of the results at the end and at its best, the over-fitting of each loss, and
    the matches with their 95 % intervals (sign tests at ``alpha``)."""
    curves, final, m = report.curves, report.final.set_index("loss"), report.matches
    start = float(curves[curves.epoch == 0].test_result_xent.iloc[0])
    end_epoch = float(curves.epoch.max())
    order = final.test_result_xent.sort_values()
    best_any = final.best_test_result_xent.idxmin()
    lines = [f"**Held-out cross-entropy of the results** (the initial evaluation: {start:.4f}; "
             f"after {end_epoch:g} epochs, lowest first): "
             + ", ".join(f"{label(n)} {v:.4f}" for n, v in order.items()) + "."]
    gain = start - order.iloc[0]
    spread = order.iloc[-1] - order.iloc[0]
    lines.append(f"The best loss gains {gain:.4f} over the initial evaluation; the five losses end "
                 f"within {spread:.4f} of each other.")
    overfit = [(n, final.test_result_xent[n] - final.best_test_result_xent[n],
                final.best_epoch[n]) for n in final.index]
    rising = [f"{label(n)} (best {final.best_test_result_xent[n]:.4f} at epoch {e:g}, "
              f"+{d:.4f} since)" for n, d, e in overfit if d > 0.001]
    lines.append(f"The lowest point of any curve: {label(best_any)}, "
                 f"{final.best_test_result_xent[best_any]:.4f} at epoch "
                 f"{final.best_epoch[best_any]:g}. "
                 + ("Over-fitting (held-out loss rising by more than 0.001 after its best): "
                    + "; ".join(rising) + "." if rising else
                    "No curve rises by more than 0.001 after its best point."))
    parts = []
    for opp in ("initial", "reference"):
        sel = m[(m.opponent == opp) & (m.player != "initial")]
        if sel.empty:
            continue
        best = sel.loc[sel.win_rate.idxmax()]
        separated = [label(r.player) for r in sel.itertuples() if r.player != best.player
                     and r.high < best.low]
        significant = [label(r.player) for r in sel.itertuples() if r.p_two_sided < alpha]
        parts.append(f"against the {opp} evaluation the win rates are "
                     + ", ".join(f"{label(r.player)} {100 * r.win_rate:.0f} % "
                                 f"[{100 * r.low:.0f}, {100 * r.high:.0f}]"
                                 for r in sel.itertuples())
                     + f" ({int(best.games)} games each); the best, {label(best.player)}, is "
                     + (f"separated by the 95 % intervals from {', '.join(separated)}"
                        if separated else "not separated from any other by the 95 % intervals")
                     + "; different from 50 % at the 1 % level: "
                     + (", ".join(significant) if significant else "none"))
    base = m[(m.player == "initial") & (m.opponent == "reference")]
    if not base.empty:
        b = base.iloc[0]
        parts.append(f"the initial evaluation scores {100 * b.win_rate:.0f} % "
                     f"[{100 * b.low:.0f}, {100 * b.high:.0f}] against the reference")
    lines.append("**Matches**: " + "; ".join(parts) + ".")
    return "\n\n".join(lines) + "\n"


def load_report(folder, expect: Mapping[str, Any] | None = None
                ) -> tuple[ElmoReport, ElmoConfig]:
    """The :class:`ElmoReport` of a finished run from its report files and its configuration; ``positions``
    is the teacher data when ``teacher.npz`` is there (it is not committed), else None. See
    :func:`gamelib.experiments.run_folder.read_run` for what is refused."""
    from gamelib.runtime.atomic import read_json

    files = ("curves.csv", "final.csv", "matches.csv", "teacher_summary.json")
    frames, sizes, timings, _ = read_run(folder, "elmo_shogi", files, elmo_config, expect,
                                         aliases=("elmo",))
    folder = Path(folder)
    thetas = {path.stem: ev.load_theta(path) for path in sorted((folder / "theta").glob("*.npz"))}
    data = folder / "teacher.npz"
    positions = T.load_teacher(data)[0] if data.is_file() else None
    return ElmoReport(read_json(folder / "teacher_summary.json"), frames["curves"], frames["final"],
                  frames["matches"], thetas, positions, timings), sizes


def _write_report(out: Path, report: ElmoReport) -> None:
    import matplotlib
    import matplotlib.pyplot as plt

    from gamelib.runtime.atomic import atomic_write_json, atomic_write_text
    from gamelib.runtime.report import write_csv, write_figure

    write_csv(out, "curves.csv", report.curves)
    write_csv(out, "final.csv", report.final)
    write_csv(out, "matches.csv", report.matches)
    atomic_write_json(out / "teacher_summary.json", report.teacher)
    atomic_write_json(out / "verdict.json", verdict(report))
    atomic_write_text(out / "verdict.md", verdict_text(report))
    (out / "theta").mkdir(exist_ok=True)
    for name, theta in report.thetas.items():
        ev.save_theta(out / "theta" / f"{name}.npz", theta)
    with matplotlib.rc_context({"figure.figsize": (6.4, 4.0)}):
        fig, ax = plt.subplots()
        plot_curves(report.curves, ax)
        fig.tight_layout()
        write_figure(fig, out / "curves.png")


@register("elmo_shogi", aliases=("elmo",), profiles=PROFILES, check=elmo_config,
          description="elmo's loss on 5x5 shogi: teacher self-play, lambda sweep vs Apery's "
                      "squared error, matches")
def run(opts: RunOptions) -> ElmoReport:
    """The command line's entry: :func:`run_experiment` with the options' sizes."""
    report = run_from_options(run_experiment, opts)
    n = report.teacher["positions"]
    print(f"teacher data: {n} positions, K = {report.teacher['scale']:.4f} "
          f"({report.teacher['scale_in_pawns']:.2f} pawns)", flush=True)
    print(f"verdict: {verdict(report)}", flush=True)
    return report

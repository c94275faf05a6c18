"""The Bonanza method on 5×5 shogi, end to end: teacher records, learners, held-out agreement, matches.

``python -m gamelib.experiments bonanza_shogi --profile quick|paper [--seed S] [--out DIR]`` runs four
resumable stages into the run folder (default ``data/results/<profile>/bonanza_shogi/seed-<S>``):

1. **Records** (``records/``, then ``records.txt``): ``n_games`` self-play games of the
   reference opponent at ``teacher_nodes`` nodes per move after ``opening_plies`` uniformly
   random plies (:class:`gamelib.learn.bonanza_shogi.TeacherSettings`), generated in batches of
   :data:`GAMES_PER_BATCH` games on the workers, game i seeded ``derive_seed(seed, "teacher",
   i)``. Written as a ``gamelib-records 1`` file (:mod:`gamelib.learn.records`) whose header
   states every setting.
2. **Split**: a seeded ``test_fraction`` of the games is held out; their positions that also
   occur in a training game (same board, hands and side to move) are dropped from the test set.
   Positions with a single legal move are left out everywhere.
3. **Training** (``train/<variant>/``): every variant of :data:`VARIANTS` learns from the
   training positions for ``n_epochs`` epochs (an epoch searches as many positions as there are
   training positions), starting from the paper's initial evaluation (Table 1 piece values, the
   other weights ~ N(0, 10⁻⁸), seeded ``derive_seed(seed, "init")``). After every epoch the
   weights are checkpointed and measured with a fresh search: J per position and move agreement
   on the held-out positions and on ``n_train_eval`` training positions.
4. **Matches** (``matches/``): every variant's final evaluation plays ``match_games`` games
   against the initial evaluation and against the reference opponent (``match_nodes`` nodes per
   move for every player, iterative deepening, ``match_opening_plies`` random opening plies,
   colours alternating); and the initial evaluation against the reference.

The report (``history.csv``, ``summary.csv``, ``piece_values.csv``, ``matches.csv``,
``records_summary.json``, ``curves.png``, ``piece_values.png``, ``theta/<variant>.npz``,
``provenance.json``) is written at the top of the folder. Killed at any moment, the same command
resumes every stage and ends with the same numbers, whatever the number of workers.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from gamelib.evaluation import shogi as E
from gamelib.evaluation.reference import REFERENCE_QDEPTH, reference_theta
from gamelib.runtime.atomic import atomic_write_json, atomic_write_text
from gamelib.runtime.checkpoint import CheckpointStore
from gamelib.runtime.driver import run_batched
from gamelib.runtime.profiles import check_integer, check_missing, check_number
from gamelib.experiments.registry import RunOptions, register
from gamelib.experiments.run_folder import RunFolder
from gamelib.runtime.seeds import derive_rng, derive_seed
from gamelib.learn import bonanza_shogi as bs
from gamelib.learn.records import FORMAT_NAME, format_record, parse_records

__all__ = ["PROFILES", "VARIANTS", "GAMES_PER_BATCH", "Report", "teacher_settings",
           "variant_settings", "generate_records", "split", "initial_theta", "train_variant",
           "trained_theta", "play_matches", "run_experiment"]

#: Teacher games per resumable batch.
GAMES_PER_BATCH = 20

PROFILES = {
    "quick": {"n_games": 40, "teacher_nodes": 5000, "opening_plies": 4, "test_fraction": 0.25,
              "n_epochs": 5, "batch_size": 64, "batch_refresh_every": 4,
              "batch_learning_rate": 2.5e-4, "minibatch_learning_rate": 1e-4, "l1_weight": 0.05,
              "qdepth": 4, "n_train_eval": 200, "variants": ["batch", "minibatch",
                                                             "minibatch_no_constraint",
                                                             "minibatch_l1"],
              "match_games": 16, "match_nodes": 1500, "match_opening_plies": 2},
    "paper": {"n_games": 3000, "teacher_nodes": 50_000, "opening_plies": 4,
              "test_fraction": 0.1, "n_epochs": 20, "batch_size": 256,
              "batch_refresh_every": 4, "batch_learning_rate": 2.5e-4,
              "minibatch_learning_rate": 1e-4, "l1_weight": 0.05, "qdepth": 4,
              "n_train_eval": 3000, "variants": ["batch", "minibatch", "minibatch_no_constraint",
                                                 "minibatch_l1"],
              "match_games": 400, "match_nodes": 20_000, "match_opening_plies": 2},
}

#: The learners compared: name -> (description, how it differs from the mini-batch learner).
VARIANTS = {
    "batch": "batch (all positions per step, PVs recomputed every batch_refresh_every steps), "
             "material-sum constraint",
    "minibatch": "mini-batch of batch_size positions, PVs recomputed every step, material-sum "
                 "constraint",
    "minibatch_no_constraint": "mini-batch, no constraint",
    "minibatch_l1": "mini-batch, material-sum constraint, L1 (proximal) on the other weights",
}


def _check_sizes(sizes: Mapping[str, Any]) -> dict:
    sizes = check_missing(sizes, PROFILES["quick"], "the bonanza_shogi experiment")
    for name in ("n_games", "teacher_nodes", "n_epochs", "batch_size", "batch_refresh_every",
                 "n_train_eval", "match_nodes"):
        check_integer(name, sizes[name], 1)
    for name in ("opening_plies", "qdepth", "match_games", "match_opening_plies"):
        check_integer(name, sizes[name], 0)
    tf = check_number("test_fraction", sizes["test_fraction"], 0, 1, low_open=True,
                      high_open=True)
    for name in ("batch_learning_rate", "minibatch_learning_rate"):
        check_number(name, sizes[name], 0, low_open=True)
    check_number("l1_weight", sizes["l1_weight"], 0)
    variants = sizes["variants"]
    if not isinstance(variants, (list, tuple)) or not variants or len(set(variants)) != \
            len(variants) or any(v not in VARIANTS for v in variants):
        raise ValueError(f"variants must be a non-empty list of distinct names from "
                         f"{list(VARIANTS)}, got {variants!r}")
    n_test = round(tf * sizes["n_games"])
    if n_test < 1 or n_test >= sizes["n_games"]:
        raise ValueError(f"test_fraction {tf} of {sizes['n_games']} games leaves no test or no "
                         f"training game")
    return sizes


def teacher_settings(sizes) -> bs.TeacherSettings:
    """The teacher of the profile."""
    return bs.TeacherSettings(node_budget=sizes["teacher_nodes"],
                              opening_plies=sizes["opening_plies"])


def variant_settings(variant: str, sizes) -> bs.LearnerSettings:
    """The :class:`~gamelib.learn.bonanza_shogi.LearnerSettings` of a variant."""
    search = bs.SearchSettings(depth=1, qdepth=sizes["qdepth"])
    if variant == "batch":
        return bs.LearnerSettings(None, sizes["batch_refresh_every"],
                                  float(sizes["batch_learning_rate"]), search=search)
    common = dict(batch_size=sizes["batch_size"], refresh_every=1,
                  learning_rate=float(sizes["minibatch_learning_rate"]), search=search)
    if variant == "minibatch":
        return bs.LearnerSettings(**common)
    if variant == "minibatch_no_constraint":
        return bs.LearnerSettings(**common, constraint="none")
    if variant == "minibatch_l1":
        return bs.LearnerSettings(**common, l1_weight=float(sizes["l1_weight"]),
                                  l1_step="proximal")
    raise ValueError(f"unknown variant {variant!r}; valid: {list(VARIANTS)}")


# ----------------------------------------------------------------------------- 1. records
def _teacher_job(job):
    settings, run_seed, i = job
    return format_record(bs.teacher_game(settings, derive_seed(run_seed, "teacher", i)))


def _records_header(sizes, seed) -> list[str]:
    return [bs.TeacherSettings.describe(teacher_settings(sizes)),
            f"games: {sizes['n_games']}, run seed {seed}; game i has the seed "
            f"derive_seed({seed}, 'teacher', i) (gamelib.runtime.seeds); the SFEN of a game "
            f"is the position after its random opening plies"]


def generate_records(folder, sizes, seed: int, *, workers=None, scheduler=None,
                     progress=False) -> str:
    """Run (or resume) the teacher games in ``folder``; returns the records file's text."""
    sizes = _check_sizes(sizes)
    settings = teacher_settings(sizes)
    n = sizes["n_games"]
    n_batches = -(-n // GAMES_PER_BATCH)

    def init(cfg, run_seed):
        return {"text": np.zeros(0, dtype=np.uint8)}

    def step(state, ctx):
        first = ctx.index * GAMES_PER_BATCH
        lines = ctx.map(_teacher_job, [(settings, ctx.run_seed, i) for i in
                                       range(first, min(n, first + GAMES_PER_BATCH))],
                        chunksize=1)
        add = np.frombuffer(("\n".join(lines) + "\n").encode(), dtype=np.uint8)
        return {"text": np.concatenate([state["text"], add])}

    config = {"experiment": "bonanza", "stage": "records", "teacher": settings.as_dict(),
              "n_games": n, "games_per_batch": GAMES_PER_BATCH}
    result = run_batched(Path(folder), config=config, seed=seed, n_batches=n_batches,
                         init=init, step=step, workers=workers, scheduler=scheduler,
                         progress=progress, desc="teacher games")
    body = result.state["text"].tobytes().decode()
    header = "".join(f"# {line}\n" for line in _records_header(sizes, seed))
    return (f"# {FORMAT_NAME}: SFEN | USI moves | result (sente/gote/draw/*) | reason\n"
            + header + body)


# ----------------------------------------------------------------------------- 2. split
@dataclass(frozen=True)
class Split:
    """Training and held-out positions of the records."""

    positions: bs.RecordPositions
    train: np.ndarray
    test: np.ndarray
    train_eval: np.ndarray
    test_games: np.ndarray
    dropped_test: int


def split(games, sizes, seed: int) -> Split:
    """Hold out a seeded fraction of the games (see the module docstring)."""
    positions = bs.RecordPositions(games)
    n = len(games)
    n_test = round(sizes["test_fraction"] * n)
    test_games = np.sort(derive_rng(seed, "split").permutation(n)[:n_test])
    in_test = np.isin(positions.game, test_games)
    train = np.flatnonzero(~in_test)
    seen = np.isin(positions.key, positions.key[train])
    test = np.flatnonzero(in_test & ~seen)
    k = min(sizes["n_train_eval"], train.size)
    train_eval = np.sort(derive_rng(seed, "train_eval").choice(train, k, replace=False))
    return Split(positions, train, test, train_eval, test_games,
                 int(np.count_nonzero(in_test & seen)))


def initial_theta(seed: int) -> np.ndarray:
    """The learners' start: the paper's initial evaluation (Table 1, the rest ~ N(0, 1e-4²))."""
    return E.initial_theta(derive_seed(seed, "init"), 1e-4)


# ----------------------------------------------------------------------------- 3. training
HISTORY_COLUMNS = ("epoch", "steps", "positions_searched", "J_batch", "J_train",
                   "agreement_train", "J_test", "agreement_test", "piece_sum", "nonzero_weights",
                   "l1_norm")


def _history_row(v, epoch, steps, searched, j_batch, data: Split, settings, constraint,
                 map_fn) -> np.ndarray:
    kw = dict(settings=settings.search, chunk_size=settings.chunk_size, map_fn=map_fn)
    tr = bs.evaluate(v, data.positions, data.train_eval, **kw)
    te = bs.evaluate(v, data.positions, data.test, **kw)
    mat = bs.material_indices()
    rest = np.ones(v.size, dtype=bool)
    rest[mat] = False
    return np.array([epoch, steps, searched, j_batch, tr["J_per_position"], tr["agreement"],
                     te["J_per_position"], te["agreement"], v[mat].sum(),
                     np.count_nonzero(v[rest]), np.abs(v[rest]).sum()])


def _train_config(variant, sizes, records_sha) -> dict:
    return {"experiment": "bonanza", "stage": "train", "variant": variant,
            "learner": variant_settings(variant, sizes).as_dict(), "records_sha256": records_sha,
            "test_fraction": sizes["test_fraction"], "n_train_eval": sizes["n_train_eval"],
            "init": {"function": "gamelib.evaluation.shogi.initial_theta", "scale": 1e-4,
                     "layout": E.LAYOUT_NAME, "n_features": E.N_FEATURES}}


def train_variant(folder, variant: str, data: Split, sizes, seed: int, records_sha: str, *,
                  workers=None, scheduler=None, progress=False):
    """Run (or resume) one learner; returns the :class:`~gamelib.runtime.driver.RunResult`
    (state: ``theta`` and ``history``, one row of :data:`HISTORY_COLUMNS` per epoch)."""
    settings = variant_settings(variant, sizes)
    n = data.train.size
    spe = settings.steps_per_epoch(n)
    if spe == 1:
        spe = settings.refresh_every
    elif spe % settings.refresh_every:
        raise ValueError(f"refresh_every {settings.refresh_every} must divide the "
                         f"{spe} steps of an epoch")
    batch_seed = derive_seed(seed, "batches")

    def init(cfg, run_seed):
        v = initial_theta(run_seed)
        con = bs.constraint_of(settings, v)
        row = _history_row(v, 0, 0, 0, np.nan, data, settings, con, None)
        return {"theta": v, "history": row[None, :]}

    def step(state, ctx):
        v = state["theta"]
        con = bs.constraint_of(settings, initial_theta(ctx.run_seed))
        v, counts = bs.learn_steps(v, data.positions, data.train, settings, ctx.index * spe,
                                   spe, batch_seed, constraint=con, map_fn=ctx.map)
        last = state["history"][-1]
        row = _history_row(v, ctx.index + 1, last[1] + spe,
                           last[2] + counts["positions_searched"], counts["J_batch"] / spe,
                           data, settings, con, ctx.map)
        return {"theta": v, "history": np.vstack([state["history"], row[None, :]])}

    return run_batched(Path(folder), config=_train_config(variant, sizes, records_sha),
                       seed=seed, n_batches=sizes["n_epochs"], init=init, step=step,
                       workers=workers, scheduler=scheduler, progress=progress,
                       desc=f"learner {variant}")


def trained_theta(folder, variant, sizes, seed, records_sha, epoch=None) -> np.ndarray:
    """A variant's weights after ``epoch`` epochs (default: the last) from its run folder."""
    with CheckpointStore(Path(folder), {"config": _train_config(variant, sizes, records_sha),
                                        "seed": seed}) as store:
        ck = store.latest() if epoch is None else store.load(completed=epoch)
    if ck is None:
        raise ValueError(f"no checkpoint in {folder}")
    return ck.arrays["theta"]


# ----------------------------------------------------------------------------- 4. matches
def play_matches(folder, thetas: Mapping[str, np.ndarray], theta0, sizes, seed: int, *,
                 workers=None, scheduler=None, progress=False):
    """Every variant against ``"initial"`` and ``"reference"``, and initial against reference;
    a frame with one row per pairing (the row player's record and
    :func:`gamelib.play.stats.summarize`)."""
    import pandas as pd

    from gamelib.play.shogi import SearchPlayer, play_games, reference_player
    from gamelib.play.stats import summarize

    budget = sizes["match_nodes"]
    players = {name: SearchPlayer(th, E.EVAL_LINEAR, node_budget=budget, qdepth=REFERENCE_QDEPTH)
               for name, th in thetas.items()}
    players["initial"] = SearchPlayer(theta0, E.EVAL_LINEAR, node_budget=budget,
                                      qdepth=REFERENCE_QDEPTH)
    players["reference"] = reference_player(budget)
    pairings = [(v, opp) for v in thetas for opp in ("initial", "reference")]
    pairings.append(("initial", "reference"))
    rows = []
    if sizes["match_games"] > 0:
        result = play_games(players, pairings, sizes["match_games"], derive_seed(seed, "matches"),
                            opening_plies=sizes["match_opening_plies"], folder=Path(folder),
                            workers=workers, scheduler=scheduler, progress=progress)
        for a, b in pairings:
            s = summarize(result.records[(a, b)])
            rows.append({"player": a, "opponent": b, **s})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- report
@dataclass(frozen=True)
class Report:
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
    import pandas as pd

    last = history.groupby("variant", sort=False).tail(1)
    rows = []
    search = bs.SearchSettings(depth=1, qdepth=sizes["qdepth"])
    for name, th in (("initial", theta0), ("teacher", reference_theta())):
        te = bs.evaluate(th, data.positions, data.test, search, map_fn=map_fn)
        tr = bs.evaluate(th, data.positions, data.train_eval, search, map_fn=map_fn)
        rows.append({"variant": name, "J_train": tr["J_per_position"],
                     "agreement_train": tr["agreement"], "J_test": te["J_per_position"],
                     "agreement_test": te["agreement"]})
    cols = ["variant", "epoch", "positions_searched", "J_train", "agreement_train", "J_test",
            "agreement_test", "piece_sum", "nonzero_weights", "l1_norm"]
    return pd.concat([last[cols], pd.DataFrame(rows)], ignore_index=True)


def plot_curves(history, axes=None):
    """Held-out J per position and agreement against positions searched, one line per variant."""
    import matplotlib.pyplot as plt

    if axes is None:
        _, axes = plt.subplots(1, 2)
    for k, (name, h) in enumerate(history.groupby("variant", sort=False)):
        x = h.positions_searched / 1000.0
        axes[0].plot(x, h.J_test, marker="o", ms=3, color=f"C{k}", label=name)
        axes[1].plot(x, 100 * h.agreement_test, marker="o", ms=3, color=f"C{k}", label=name)
    axes[0].set_ylabel("held-out J per position")
    axes[1].set_ylabel("held-out move agreement (%)")
    for ax in axes:
        ax.set_xlabel("positions searched (thousands)")
    axes[1].legend(fontsize=7)
    return axes


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


def run_experiment(out, sizes: Mapping[str, Any], seed: int = 0, *, profile: str = "custom",
                   workers: int | None = None, scheduler=None, progress: bool = False,
                   write: bool = True) -> Report:
    """Run (or resume) the four stages in ``out`` and return the :class:`Report` (see the
    module docstring for the stages and files)."""
    import pandas as pd

    from gamelib.runtime.executor import Executor

    sizes = _check_sizes(sizes)
    folder = RunFolder(out, "bonanza_shogi", profile, seed, sizes, workers=workers,
                       scheduler=scheduler)
    out = folder.out
    with folder.stage("records"):
        text = generate_records(out / "records", sizes, seed, workers=workers,
                                scheduler=scheduler, progress=progress)
    records_sha = hashlib.sha256(text.encode()).hexdigest()
    games = parse_records(text, "records.txt")
    data = split(games, sizes, seed)
    theta0 = initial_theta(seed)
    frames, thetas = [], {}
    with folder.stage("training"):
        for variant in sizes["variants"]:
            res = train_variant(out / "train" / variant, variant, data, sizes, seed, records_sha,
                                workers=workers, scheduler=scheduler, progress=progress)
            thetas[variant] = res.state["theta"]
            f = pd.DataFrame(res.state["history"], columns=list(HISTORY_COLUMNS))
            for c in ("epoch", "steps", "positions_searched", "nonzero_weights"):
                f[c] = f[c].astype(np.int64)
            f.insert(0, "variant", variant)
            frames.append(f)
    history = pd.concat(frames, ignore_index=True)
    with folder.stage("matches"):
        matches = play_matches(out / "matches", thetas, theta0, sizes, seed, workers=workers,
                               scheduler=scheduler, progress=progress)
    with Executor(workers, scheduler) as ex:
        summary = _summary(history, data, theta0, sizes, ex.map)
    pieces = bs.material_table({"initial": theta0, "teacher": reference_theta(), **thetas})
    report = Report(text, _records_summary(games, data, sizes, seed), history, summary, pieces,
                    matches, thetas, folder.timings)
    if write:
        _write_report(out, report)
        folder.finish()
    return report


def _write_report(out: Path, report: Report) -> None:
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
    with matplotlib.rc_context({"figure.figsize": (9.6, 4.0)}):
        fig, axes = plt.subplots(1, 2)
        plot_curves(report.history, axes)
        fig.tight_layout()
        write_figure(fig, out / "curves.png")
        fig, ax = plt.subplots()
        plot_piece_values(report.piece_values, ax)
        fig.tight_layout()
        write_figure(fig, out / "piece_values.png")



@register("bonanza_shogi", aliases=("bonanza",), profiles=PROFILES, check=_check_sizes,
          description="the Bonanza method on 5x5 shogi: teacher records, batch vs mini-batch, "
                      "constraint, L1, matches")
def run(opts: RunOptions) -> Report:
    """The command line's entry: :func:`run_experiment` with the options' sizes."""
    report = run_experiment(opts.out, opts.sizes, opts.seed, profile=opts.profile,
                            workers=opts.workers, scheduler=opts.scheduler,
                            progress=opts.progress)
    print("wall time: " + ", ".join(f"{k} {v:.1f} s" for k, v in report.timings.items()),
          flush=True)
    return report

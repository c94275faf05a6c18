"""The PGLeaf experiment (Morioka & Igarashi, section 5): learn, then measure.

``python -m gamelib.experiments pgleaf --profile quick|paper [--seed S] [--out DIR]`` runs
three resumable stages into the run folder (default ``data/results/<profile>/pgleaf/seed-<S>``):

1. **Training** (``train/``): every run -- algorithm (PGLeaf, REINFORCE, TDLeaf(λ), TD(λ)) ×
   reward (MDP, non-MDP) × replicate -- learns by self-play with the paper's settings
   (:class:`gamelib.learn.selfplay.LearnerSettings`). All runs advance together in batches of
   M games each (one :func:`gamelib.experiments.run_batched` run): a policy-gradient run plays its
   M games with θ fixed, spread over the workers, and updates once; a TD run plays its M games in
   turn inside one job, updating after every game. The parameters are checkpointed after every
   batch and kept for good at ``keep_points`` (a log grid that contains 1,000, 10,000 and 100,000
   games). Replicate ``r`` of every algorithm starts from the same initial θ (Table 1 piece
   values, the rest ~N(0, 1e-4²), seeded by ``(seed, "init", r)``), so the algorithms are compared
   from one starting point; game ``i`` of a run has the seed
   ``derive_seed(seed, "game", algorithm, reward, r, i)``.
2. **Matches** (``matches/``): round-robins of the four algorithms after ``table_points`` games
   (the paper's Tables 2-4; ``round_robin_games`` per pairing) and a gauntlet of every run's
   parameters after ``curve_points`` games against the reference opponent (Figs 1-2;
   ``gauntlet_games`` per point), with iterative deepening under a node budget and the paper's
   evaluation noise (variance 0.001).
3. **Report**: CSV tables, the figures, the parameters at the table points as ``.npz`` and a
   provenance JSON (git commit, seed, profile, sizes, wall time per stage, machine).

Killed at any moment, the same command resumes every stage from its last checkpoint and ends with
the same numbers as an uninterrupted run, whatever the number of workers.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
from tqdm import tqdm

from gamelib.evaluation import shogi as ev
from gamelib.experiments.checkpoint import CheckpointStore
from gamelib.experiments.driver import run_batched
from gamelib.experiments.registry import RunOptions, register
from gamelib.experiments.seeds import derive_seed
from gamelib.learn.selfplay import (ALGORITHMS, REWARDS, LearnerSettings, mirror_replies,
                                    pg_update, play_pg_games, play_td_games)

__all__ = ["PROFILES", "ALGORITHM_LABELS", "ALGORITHM_ABBREVIATIONS", "PAPER_TABLES", "RunSpec",
           "MatchSettings", "Report", "train_config", "runs_of", "settings_of", "train",
           "trained_theta", "initial_theta", "match_settings", "play_matches",
           "training_frame", "round_robin_table", "curves", "plot_curves", "elo", "paper_table",
           "paper_table_markdown", "round_robin_markdown", "claims", "run_experiment", "load_report",
           "MIRROR_TRAP_EVALUATIONS",
           "mirror_trap_study"]

#: Display names and the paper's abbreviations.
ALGORITHM_LABELS = {"pgleaf": "PGLeaf", "reinforce": "REINFORCE", "tdleaf": "TDLeaf(λ)",
                    "td": "TD(λ)"}
ALGORITHM_ABBREVIATIONS = {"pgleaf": "PL", "reinforce": "RE", "tdleaf": "TL", "td": "TD"}
#: Column labels of the round-robin tables: display name -> the paper's abbreviation.
_COLUMN_LABELS = {ALGORITHM_LABELS[a]: ALGORITHM_ABBREVIATIONS[a] for a in ALGORITHM_LABELS}


def _nearest(points, target: int) -> int:
    """The point closest to ``target`` on a log scale (numbers of games)."""
    return min(points, key=lambda p: abs(math.log(p / target)))

_LEARNING = {"alpha": 0.001, "M": 100, "lam": 0.7, "beta": 1.0, "max_plies": 300,
             "games_per_job": 10}
PROFILES = {
    "quick": {"n_games": 300, "replicates": 1, "algorithms": list(ALGORITHMS),
              "rewards": list(REWARDS), "keep_points": [100, 200, 300],
              "table_points": [300], "curve_points": [0, 100, 300],
              "round_robin_games": 20, "gauntlet_games": 20, "node_budget": 500,
              "max_depth": 32, **_LEARNING},
    "paper": {"n_games": 100_000, "replicates": 3, "algorithms": list(ALGORITHMS),
              "rewards": list(REWARDS),
              "keep_points": [100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000],
              "table_points": [1000, 10_000, 100_000],
              "curve_points": [0, 1000, 10_000, 100_000],
              "round_robin_games": 400, "gauntlet_games": 400, "node_budget": 5000,
              "max_depth": 32, **_LEARNING},
}


# ----------------------------------------------------------------------------- runs
@dataclass(frozen=True)
class RunSpec:
    """One learning run: an algorithm, a reward setting and a replicate number."""

    algorithm: str
    reward: str
    replicate: int

    @property
    def key(self) -> str:
        """``"<algorithm>/<reward>/<replicate>"``, the run's name in the state and the files."""
        return f"{self.algorithm}/{self.reward}/{self.replicate}"

    @property
    def label(self) -> str:
        return f"{ALGORITHM_LABELS[self.algorithm]} {self.reward} r{self.replicate}"


def _int_list(sizes, name, low=0):
    value = sizes[name]
    if not isinstance(value, (list, tuple)) or not value or any(
            isinstance(v, bool) or not isinstance(v, int) or v < low for v in value):
        raise ValueError(f"{name} must be a non-empty list of integers >= {low}, got {value!r}")
    if list(value) != sorted(set(value)):
        raise ValueError(f"{name} must be increasing without repeats, got {value!r}")
    return list(value)


def _check_sizes(sizes: Mapping[str, Any]) -> dict:
    sizes = dict(sizes)
    missing = sorted(set(PROFILES["quick"]) - set(sizes))
    if missing:
        raise ValueError(f"missing size(s) {missing} for the pgleaf experiment")
    for name in ("n_games", "replicates", "M", "round_robin_games", "gauntlet_games",
                 "node_budget", "max_depth", "max_plies", "games_per_job"):
        v = sizes[name]
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if sizes["n_games"] % sizes["M"]:
        raise ValueError(f"n_games ({sizes['n_games']}) must be a multiple of M ({sizes['M']}), "
                         f"the games per batch")
    for name, valid in (("algorithms", ALGORITHMS), ("rewards", REWARDS)):
        v = sizes[name]
        if not isinstance(v, (list, tuple)) or not v or any(x not in valid for x in v) \
                or len(set(v)) != len(v):
            raise ValueError(f"{name} must be a non-empty list of distinct values from "
                             f"{list(valid)}, got {v!r}")
    keep = _int_list(sizes, "keep_points", 1)
    for name in ("keep_points", "table_points"):
        bad = [p for p in _int_list(sizes, name, 1) if p % sizes["M"] or p > sizes["n_games"]]
        if bad:
            raise ValueError(f"{name} {bad} must be multiples of M ({sizes['M']}) and at most "
                             f"n_games ({sizes['n_games']})")
    bad = [p for p in _int_list(sizes, "table_points", 1) if p not in keep]
    bad += [p for p in _int_list(sizes, "curve_points", 0) if p and p not in keep]
    if bad:
        raise ValueError(f"table_points and curve_points {bad} must be in keep_points {keep} "
                         f"(only kept parameters can play)")
    alpha = sizes["alpha"]
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not alpha > 0:
        raise ValueError(f"alpha must be a positive number, got {alpha!r}")
    lam = sizes["lam"]
    if isinstance(lam, bool) or not isinstance(lam, (int, float)) or not 0 <= lam <= 1:
        raise ValueError(f"lam must be in [0, 1], got {lam!r}")
    beta = sizes["beta"]
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta > 0:
        raise ValueError(f"beta must be a positive number, got {beta!r}")
    return sizes


def runs_of(sizes: Mapping[str, Any]) -> list[RunSpec]:
    """Every run of the experiment, replicate by replicate, reward by reward."""
    return [RunSpec(a, r, k) for k in range(sizes["replicates"]) for r in sizes["rewards"]
            for a in sizes["algorithms"]]


def settings_of(run: RunSpec, sizes: Mapping[str, Any]) -> LearnerSettings:
    """The run's :class:`LearnerSettings` (the paper's, with the profile's learning sizes)."""
    return LearnerSettings(run.algorithm, run.reward, alpha=float(sizes["alpha"]), M=sizes["M"],
                           lam=float(sizes["lam"]), beta=float(sizes["beta"]),
                           max_plies=sizes["max_plies"])


def train_config(sizes: Mapping[str, Any]) -> dict:
    """The identity of the training run folder: everything that changes the parameters."""
    sizes = _check_sizes(sizes)
    return {"experiment": "pgleaf", "stage": "train",
            "runs": {run.key: settings_of(run, sizes).as_dict() for run in runs_of(sizes)},
            "init": {"function": "gamelib.evaluation.shogi.initial_theta", "scale": 1e-4,
                     "layout": ev.LAYOUT_NAME, "n_features": ev.N_FEATURES}}


def initial_theta(seed: int, replicate: int) -> np.ndarray:
    """Replicate ``replicate``'s starting parameters (shared by all its runs)."""
    return ev.initial_theta(derive_seed(seed, "init", replicate), 1e-4)


def _game_seeds(seed: int, run: RunSpec, first: int, count: int) -> np.ndarray:
    return np.array([derive_seed(seed, "game", run.algorithm, run.reward, run.replicate, i,
                                 bits=32) for i in range(first, first + count)], dtype=np.int64)


def _pg_job(job):
    theta, settings, seeds = job
    return play_pg_games(theta, settings, seeds)


def _td_job(job):
    theta, settings, seeds = job
    return play_td_games(theta, settings, seeds)


_STAT_COLUMNS = ("sente_wins", "gote_wins", "draws", "plies", "gote_moves", "mirror_replies")


def _stats_row(records, max_plies: int) -> np.ndarray:
    """A batch's counts: results, plies, gote's moves and how many of them copied sente's
    (left a position that is its own mirror, :func:`gamelib.learn.selfplay.mirror_replies`)."""
    row = np.zeros(len(_STAT_COLUMNS), dtype=np.int64)
    for rec in records:
        row[min(rec.result, 3) - 1] += 1
        row[3] += rec.plies
        row[4] += rec.n_moves[1]
        row[5] += mirror_replies(rec.moves, max_plies)
    return row


class _Progress:
    """A tqdm bar over self-play games (all runs), created when the first batch starts."""

    def __init__(self, total: int, per_batch: int, enabled: bool, desc: str):
        self.total, self.per_batch, self.enabled, self.desc = total, per_batch, enabled, desc
        self.bar = None

    def update(self, index: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            self.bar = tqdm(total=self.total, initial=index * self.per_batch, unit="game",
                            desc=self.desc, dynamic_ncols=True, smoothing=0.05)
        self.bar.update(self.per_batch)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def train(folder, sizes: Mapping[str, Any], seed: int, *, workers: int | None = None,
          scheduler=None, progress: bool = False):
    """Run (or resume) the training stage in ``folder``; returns the
    :class:`~gamelib.experiments.driver.RunResult` (its state maps ``"theta/<run key>"`` to the
    parameters and ``"stats/<run key>"`` to per-batch counts: sente wins, gote wins, draws,
    plies, gote's moves, gote's mirror replies)."""
    sizes = _check_sizes(sizes)
    config = train_config(sizes)
    runs = runs_of(sizes)
    settings = {run.key: settings_of(run, sizes) for run in runs}
    m, per_job = sizes["M"], sizes["games_per_job"]
    n_batches = sizes["n_games"] // m
    bar = _Progress(n_batches * m * len(runs), m * len(runs), progress, "self-play games")

    def init(cfg, run_seed):
        state = {}
        for run in runs:
            state[f"theta/{run.key}"] = initial_theta(run_seed, run.replicate)
            state[f"stats/{run.key}"] = np.zeros((0, len(_STAT_COLUMNS)), dtype=np.int64)
        return state

    def step(state, ctx):
        first = ctx.index * m
        jobs, owners = [], []
        for run in runs:          # TD runs first: each is one long job
            st = settings[run.key]
            if not st.policy_gradient:
                jobs.append((_td_job, (state[f"theta/{run.key}"], st,
                                       _game_seeds(ctx.run_seed, run, first, m))))
                owners.append(run.key)
        for run in runs:
            st = settings[run.key]
            if st.policy_gradient:
                seeds = _game_seeds(ctx.run_seed, run, first, m)
                for j in range(0, m, per_job):
                    jobs.append((_pg_job, (state[f"theta/{run.key}"], st, seeds[j:j + per_job])))
                    owners.append(run.key)
        results = ctx.map(_call, jobs, chunksize=1)
        new = dict(state)
        for run in runs:
            mine = [res for res, key in zip(results, owners) if key == run.key]
            st = settings[run.key]
            if st.policy_gradient:
                records = [rec for part in mine for rec in part]
                new[f"theta/{run.key}"] = pg_update(state[f"theta/{run.key}"], records, st)
            else:
                new[f"theta/{run.key}"], records = mine[0]
            new[f"stats/{run.key}"] = np.vstack([state[f"stats/{run.key}"],
                                                 _stats_row(records, st.max_plies)[None, :]])
        bar.update(ctx.index)
        return new

    keep = [p // m for p in sizes["keep_points"]]
    try:
        return run_batched(Path(folder), config=config, seed=seed, n_batches=n_batches,
                           init=init, step=step, keep=keep, workers=workers,
                           scheduler=scheduler, progress=False)
    finally:
        bar.close()


def _call(job):
    fn, args = job
    return fn(args)


def trained_theta(folder, sizes: Mapping[str, Any], seed: int, games: int) -> dict:
    """``{run key: θ}`` after ``games`` games of every run (0: the initial parameters), read
    from the kept checkpoints of a training folder."""
    sizes = _check_sizes(sizes)
    runs = runs_of(sizes)
    if games == 0:
        return {run.key: initial_theta(seed, run.replicate) for run in runs}
    if games not in sizes["keep_points"]:
        raise ValueError(f"no kept parameters after {games} games; kept: {sizes['keep_points']}")
    with CheckpointStore(Path(folder), {"config": train_config(sizes), "seed": seed}) as store:
        arrays = store.load(tag=f"batch-{games // sizes['M']}").arrays
    return {run.key: arrays[f"theta/{run.key}"] for run in runs}


# ----------------------------------------------------------------------------- matches
#: The paper's Tables 2-4 (MDP, row's win rate % against the column; bold: significant at 1%).
PAPER_TABLES = {
    1000: {("pgleaf", "reinforce"): 77.0, ("pgleaf", "tdleaf"): 24.3, ("pgleaf", "td"): 42.0,
           ("reinforce", "tdleaf"): 10.5, ("reinforce", "td"): 16.8, ("tdleaf", "td"): 67.8},
    10_000: {("pgleaf", "reinforce"): 88.3, ("pgleaf", "tdleaf"): 44.1, ("pgleaf", "td"): 88.8,
             ("reinforce", "tdleaf"): 12.3, ("reinforce", "td"): 52.6, ("tdleaf", "td"): 89.3},
    100_000: {("pgleaf", "reinforce"): 76.2, ("pgleaf", "tdleaf"): 56.2, ("pgleaf", "td"): 87.9,
              ("reinforce", "tdleaf"): 16.0, ("reinforce", "td"): 31.3, ("tdleaf", "td"): 87.0},
}
#: Mirror cells the paper prints that are not 100 minus the cell above (Table 2, TD vs TDLeaf).
PAPER_MIRROR_EXCEPTIONS = {(1000, "td", "tdleaf"): 31.2}
#: Cells the paper prints in bold (row significantly stronger at the 1% level).
PAPER_BOLD = {
    1000: {("pgleaf", "reinforce"), ("tdleaf", "pgleaf"), ("tdleaf", "reinforce"),
           ("tdleaf", "td"), ("td", "pgleaf"), ("td", "reinforce")},
    10_000: {("pgleaf", "reinforce"), ("pgleaf", "td"), ("tdleaf", "reinforce"), ("tdleaf", "td")},
    100_000: {("pgleaf", "reinforce"), ("pgleaf", "tdleaf"), ("pgleaf", "td"),
              ("tdleaf", "reinforce"), ("tdleaf", "td"), ("td", "reinforce")},
}


def paper_table(games: int):
    """The paper's table after ``games`` games as a DataFrame (row's win % against column)."""
    import pandas as pd

    cells = PAPER_TABLES[games]
    algos = list(ALGORITHMS)
    data = np.full((4, 4), np.nan)
    for (a, b), v in cells.items():
        i, j = algos.index(a), algos.index(b)
        data[i, j] = v
        data[j, i] = PAPER_MIRROR_EXCEPTIONS.get((games, b, a), round(100.0 - v, 1))
    labels = [ALGORITHM_LABELS[a] for a in algos]
    return pd.DataFrame(data, index=pd.Index(labels, name="player"),
                        columns=pd.Index([ALGORITHM_ABBREVIATIONS[a] for a in algos],
                                         name="opponent"))


def paper_table_markdown(games: int) -> str:
    """The paper's table after ``games`` games in Markdown, bold cells as printed."""
    table = paper_table(games)
    algos = list(ALGORITHMS)
    lines = ["| | " + " | ".join(table.columns) + " |", "|---|" + "---:|" * len(algos)]
    for i, a in enumerate(algos):
        cells = []
        for j, b in enumerate(algos):
            if i == j:
                cells.append("-")
                continue
            text = f"{table.iloc[i, j]:.1f}"
            cells.append(f"**{text}**" if (a, b) in PAPER_BOLD[games] else text)
        lines.append(f"| {table.index[i]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class MatchSettings:
    """How the evaluation games are played (the paper's section 5.2, with a node budget).

    Attributes
    ----------
    node_budget : int
        Positions searched per move by every player, the reference included (replaces the
        paper's 1 s per move).
    max_depth : int
        Deepest iteration of the iterative deepening.
    qdepth : int
        Quiescence plies of the learners' search (the learning search's 4); the reference
        opponent keeps its own (:data:`gamelib.evaluation.reference.REFERENCE_QDEPTH`).
    noise_var : float
        Variance of the Gaussian noise on every evaluation (0.001).
    max_plies : int
        Ply cap (a draw).
    """

    node_budget: int
    max_depth: int
    qdepth: int = 4
    noise_var: float = 0.001
    max_plies: int = 300

    @property
    def noise_std(self) -> float:
        return math.sqrt(self.noise_var)

    def player(self, theta):
        """A learner's parameters as a :class:`gamelib.play.shogi.SearchPlayer`."""
        from gamelib.play.shogi import SearchPlayer

        return SearchPlayer(theta, ev.EVAL_LINEAR, node_budget=self.node_budget,
                            max_depth=self.max_depth, qdepth=self.qdepth,
                            noise_std=self.noise_std)

    def reference(self):
        """The reference opponent (:func:`gamelib.play.shogi.reference_player`, the stand-in for
        the paper's ``ssp``) at this node budget and noise."""
        from gamelib.play.shogi import reference_player

        return reference_player(node_budget=self.node_budget, noise_std=self.noise_std)


def match_settings(sizes: Mapping[str, Any]) -> MatchSettings:
    """The evaluation games' settings of a profile."""
    return MatchSettings(node_budget=sizes["node_budget"], max_depth=sizes["max_depth"],
                         max_plies=sizes["max_plies"])


def _player_name(run: RunSpec, games: int) -> str:
    """A checkpoint's name in the matches: ``"<run key>@<games>"``; at 0 games the replicate's
    shared initial parameters, ``"initial/<replicate>@0"``."""
    return f"initial/{run.replicate}@0" if games == 0 else f"{run.key}@{games}"


def play_matches(out, train_folder, sizes: Mapping[str, Any], seed: int, *,
                 workers: int | None = None, scheduler=None, progress: bool = False):
    """Every evaluation game of the experiment, as one resumable tournament in ``out``.

    * Round-robins of the algorithms (MDP reward) after each of ``table_points`` games, one per
      replicate (the paper's Tables 2-4), ``round_robin_games`` per pairing;
    * every run's parameters after each of ``curve_points`` games against the reference
      opponent (the paper's Figs 1-2), ``gauntlet_games`` per point; at 0 games the replicate's
      initial parameters (shared by its runs) play once.

    Game ``r`` of pairing ``(a, b)`` has the seed ``derive_seed(derive_seed(seed, "matches"),
    "game", a, b, r)`` (:func:`gamelib.play.tournament.schedule`), so the games do not depend on
    which other pairings are played.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        Round-robin rows ``games, replicate, player, opponent, wins, draws, losses`` (both
        directions) and gauntlet rows ``games, run, algorithm, reward, replicate, wins, draws,
        losses`` (against the reference).
    """
    import pandas as pd
    from gamelib.play.shogi import play_games

    sizes = _check_sizes(sizes)
    match = match_settings(sizes)
    runs = runs_of(sizes)
    players, rr_pairs, g_pairs = {}, [], []
    points = sorted(set(sizes["curve_points"]) | set(sizes["table_points"]))
    for point in points:
        thetas = trained_theta(train_folder, sizes, seed, point)
        for run in runs:
            name = _player_name(run, point)
            if name not in players:
                players[name] = match.player(thetas[run.key])
    players["reference"] = match.reference()
    if "mdp" in sizes["rewards"]:
        algos = sizes["algorithms"]
        for point in sizes["table_points"]:
            for rep in range(sizes["replicates"]):
                for i, a in enumerate(algos):
                    for b in algos[i + 1:]:
                        rr_pairs.append((_player_name(RunSpec(a, "mdp", rep), point),
                                         _player_name(RunSpec(b, "mdp", rep), point)))
    for point in sizes["curve_points"]:
        for name in dict.fromkeys(_player_name(run, point) for run in runs):
            g_pairs.append((name, "reference"))
    records = {}
    for pairs, games, what in ((rr_pairs, sizes["round_robin_games"], "round-robin"),
                               (g_pairs, sizes["gauntlet_games"], "gauntlet")):
        if not pairs:
            continue
        used = {x for pair in pairs for x in pair}
        result = play_games({k: v for k, v in players.items() if k in used}, pairs, games,
                            derive_seed(seed, "matches", what), max_plies=match.max_plies,
                            folder=Path(out) / what, workers=workers, scheduler=scheduler,
                            progress=progress)
        records.update(result.records)
    rr_rows = []
    for a, b in rr_pairs:
        rec = records[(a, b)]
        (pa, point), (pb, _) = a.split("@"), b.split("@")
        rep = int(pa.split("/")[2])
        for p, q, r in ((pa, pb, rec), (pb, pa, rec.reversed())):
            rr_rows.append({"games": int(point), "replicate": rep, "player": p.split("/")[0],
                            "opponent": q.split("/")[0], "wins": r.wins, "draws": r.draws,
                            "losses": r.losses})
    g_rows = []
    for point in sizes["curve_points"]:
        for run in runs:
            rec = records[(_player_name(run, point), "reference")]
            g_rows.append({"games": point, "run": run.key, "algorithm": run.algorithm,
                           "reward": run.reward, "replicate": run.replicate, "wins": rec.wins,
                           "draws": rec.draws, "losses": rec.losses})
    rr_cols = ["games", "replicate", "player", "opponent", "wins", "draws", "losses"]
    g_cols = ["games", "run", "algorithm", "reward", "replicate", "wins", "draws", "losses"]
    return pd.DataFrame(rr_rows, columns=rr_cols), pd.DataFrame(g_rows, columns=g_cols)


# ----------------------------------------------------------------------------- summaries
def _records(frame, **where) -> dict:
    from gamelib.play.stats import Record

    sel = frame
    for key, value in where.items():
        sel = sel[sel[key] == value]
    out = {}
    for row in sel.itertuples(index=False):
        key = (row.player, row.opponent)
        out[key] = out.get(key, Record(0)) + Record(int(row.wins), int(row.draws), int(row.losses))
    return out


def round_robin_table(frame, games: int, replicate: int | None = None):
    """The :class:`~gamelib.play.stats.RoundRobinTable` after ``games`` games: one replicate's,
    or all replicates' games pooled (``replicate=None``). Player names are the paper's."""
    from gamelib.play.stats import round_robin_table as rr_table

    where = {"games": games} if replicate is None else {"games": games, "replicate": replicate}
    # each game is listed from both sides: keep one direction per pair
    records = {k: v for k, v in _records(frame, **where).items()
               if ALGORITHMS.index(k[0]) < ALGORITHMS.index(k[1])}
    named = {(ALGORITHM_LABELS[a], ALGORITHM_LABELS[b]): rec for (a, b), rec in records.items()}
    order = [ALGORITHM_LABELS[a] for a in ALGORITHMS if ALGORITHM_LABELS[a] in
             {x for pair in named for x in pair}]
    return rr_table(named, order)


def round_robin_markdown(frame, sizes: Mapping[str, Any], games: int) -> str:
    """Our round-robin after ``games`` games (replicates pooled, :func:`round_robin_table`) in
    Markdown, above the paper's table after the nearest number of games (Tables 2-4)."""
    paper_point = _nearest(PAPER_TABLES, games)
    return (f"**Ours after {games:,} games** ({sizes['replicates']} replicate(s) pooled, "
            f"{sizes['round_robin_games']} games per pairing and replicate)\n\n"
            + round_robin_table(frame, games).to_markdown(column_labels=_COLUMN_LABELS)
            + f"\n**The paper after {paper_point:,} games** (400 games per pairing)\n\n"
            + paper_table_markdown(paper_point))


def curves(frame, confidence: float = 0.95):
    """Win rates against the reference per (games, algorithm, reward): each replicate and the
    replicates pooled (``replicate = -1``), with Wilson intervals on the decisive games (the
    paper's rate leaves draws out) and the score (draws as half)."""
    import pandas as pd
    from gamelib.play.stats import Record, wilson_interval

    rows = []
    pooled = frame.groupby(["games", "algorithm", "reward"], sort=False)[
        ["wins", "draws", "losses"]].sum().reset_index()
    pooled["replicate"] = -1
    for row in pd.concat([frame, pooled], ignore_index=True).itertuples(index=False):
        rec = Record(int(row.wins), int(row.draws), int(row.losses))
        lo, hi = wilson_interval(rec.wins, rec.decisive, confidence)
        rows.append({"games": int(row.games), "algorithm": row.algorithm, "reward": row.reward,
                     "replicate": int(row.replicate), "wins": rec.wins, "draws": rec.draws,
                     "losses": rec.losses, "win_rate": rec.win_rate, "low": lo, "high": hi,
                     "score": rec.score})
    return pd.DataFrame(rows)


def plot_curves(curve_frame, reward: str, ax=None, replicate: int = -1):
    """Win rate (%) against the reference over training for every algorithm (Fig. 1: MDP,
    Fig. 2: non-MDP), with the intervals of :func:`curves` as error bars."""
    import matplotlib
    import matplotlib.pyplot as plt

    if ax is None:
        ax = plt.subplots()[1]
    sel = curve_frame[(curve_frame.reward == reward) & (curve_frame.replicate == replicate)]
    for k, algo in enumerate(ALGORITHMS):
        c = sel[sel.algorithm == algo].sort_values("games")
        if c.empty:
            continue
        x = c.games.to_numpy(float)
        y = 100 * c.win_rate.to_numpy(float)
        err = 100 * np.vstack([c.win_rate - c.low, c.high - c.win_rate])
        ax.errorbar(x * (1 + 0.03 * (k - 1.5)), y, yerr=err, marker="o", ms=4,
                    capsize=3, label=ALGORITHM_LABELS[algo], color=f"C{k}")
    ax.set_xscale("symlog", linthresh=max(1.0, float(sel.games[sel.games > 0].min()
                                                     if (sel.games > 0).any() else 1)))
    points = sorted(set(int(g) for g in sel.games))
    ax.set_xticks(points, [f"{g:,}" for g in points])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlabel("self-play games")
    ax.set_ylabel("win rate against the reference (%)")
    ax.set_ylim(-2, 102)
    ax.set_title(f"{'MDP' if reward == 'mdp' else 'non-MDP'} rewards")
    ax.legend(fontsize=8)
    return ax


def elo(round_robin_frame, gauntlet_frame, prior_draws: float = 1.0):
    """Elo ratings of every checkpoint that played (``"<run key>@<games>"``; the initial
    parameters ``"initial/<replicate>@0"``), the reference fixed at 0, from all round-robin and
    gauntlet games (Bradley-Terry, with ``prior_draws`` virtual draws per pairing)."""
    from gamelib.play.stats import Record, bradley_terry

    results = {}
    for row in gauntlet_frame.itertuples(index=False):
        name = f"initial/{row.replicate}@0" if row.games == 0 else f"{row.run}@{row.games}"
        results[(name, "reference")] = Record(int(row.wins), int(row.draws), int(row.losses))
    for row in round_robin_frame.itertuples(index=False):
        if ALGORITHMS.index(row.player) < ALGORITHMS.index(row.opponent):
            a = f"{row.player}/mdp/{row.replicate}@{row.games}"
            b = f"{row.opponent}/mdp/{row.replicate}@{row.games}"
            results[(a, b)] = results.get((a, b), Record(0)) + \
                Record(int(row.wins), int(row.draws), int(row.losses))
    return bradley_terry(results, anchor="reference", prior_draws=prior_draws).to_frame()


# ----------------------------------------------------------------------------- the whole run
@dataclass(frozen=True)
class Report:
    """What :func:`run_experiment` produced (also written as files into its folder).

    Attributes
    ----------
    training : pandas.DataFrame
        Per run and batch: games, sente wins, gote wins, draws, plies.
    round_robin : pandas.DataFrame
        Round-robin records of :func:`play_matches`.
    gauntlet : pandas.DataFrame
        Gauntlet records of :func:`play_matches`.
    curves : pandas.DataFrame
        :func:`curves` of the gauntlet.
    elo : pandas.DataFrame
        :func:`elo`.
    timings : dict
        Wall time (s) of each stage in this call.
    """

    training: Any
    round_robin: Any
    gauntlet: Any
    curves: Any
    elo: Any
    timings: dict


def training_frame(state: Mapping[str, np.ndarray], sizes: Mapping[str, Any]):
    """Per-batch statistics of every run from a training state."""
    import pandas as pd

    frames = []
    for run in runs_of(sizes):
        stats = state[f"stats/{run.key}"]
        f = pd.DataFrame(stats, columns=list(_STAT_COLUMNS))
        f.insert(0, "games", sizes["M"] * (np.arange(len(f)) + 1))
        f.insert(0, "replicate", run.replicate)
        f.insert(0, "reward", run.reward)
        f.insert(0, "algorithm", run.algorithm)
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def _save_thetas(folder: Path, train_folder, sizes, seed) -> None:
    points = sorted(set(sizes["table_points"]) | {sizes["n_games"]})
    for point in points:
        for key, theta in trained_theta(train_folder, sizes, seed, point).items():
            name = key.replace("/", "_") + f"_{point}.npz"
            ev.save_theta(folder / name, theta)


def _write_report(out: Path, report: Report, sizes, seed, profile) -> None:
    import matplotlib
    import matplotlib.pyplot as plt

    from gamelib.experiments.atomic import atomic_write_text
    from gamelib.experiments.report import write_csv, write_figure

    for frame, name in ((report.training, "training.csv"), (report.round_robin, "round_robin.csv"),
                        (report.gauntlet, "gauntlet.csv"), (report.curves, "curves.csv"),
                        (report.elo, "elo.csv")):
        write_csv(out, name, frame)
    lines = [f"# PGLeaf experiment, profile {profile}, seed {seed}", ""]
    for point in sizes["table_points"]:
        if report.round_robin.empty:
            break
        pooled = [None] if sizes["replicates"] > 1 else []
        for rep in [*pooled, *range(sizes["replicates"])]:
            which = "all replicates pooled" if rep is None else f"replicate {rep}"
            table = round_robin_table(report.round_robin, point, rep)
            lines += [f"## After {point} games ({which})", "",
                      table.to_markdown(column_labels=_COLUMN_LABELS)]
        if point in PAPER_TABLES:
            lines += [f"## The paper after {point} games", "",
                      paper_table_markdown(point), ""]
    atomic_write_text(out / "tables.md", "\n".join(lines) + "\n")
    with matplotlib.rc_context({"figure.figsize": (6.4, 4.0)}):
        for k, reward in enumerate(sizes["rewards"]):
            fig, ax = plt.subplots()
            plot_curves(report.curves, reward, ax)
            fig.tight_layout()
            write_figure(fig, out / f"fig{k + 1}_{reward}.png")


def run_experiment(out, sizes: Mapping[str, Any], seed: int = 0, *, profile: str = "custom",
                   workers: int | None = None, scheduler=None, progress: bool = False,
                   write: bool = True) -> Report:
    """Run (or resume) the three stages in ``out`` and return the :class:`Report`.

    Parameters
    ----------
    out : str or Path
        The run folder: ``train/`` and ``matches/`` hold the resumable stages; the report files
        (``training.csv``, ``round_robin.csv``, ``gauntlet.csv``, ``curves.csv``, ``elo.csv``,
        ``tables.md``, ``fig1_mdp.png``, ``fig2_non_mdp.png``, ``theta/*.npz``,
        ``provenance.json``) are written at its top when ``write``.
    sizes : mapping
        A profile of :data:`PROFILES` (possibly with overrides).
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
    sizes = _check_sizes(sizes)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    timings = {}
    start = time.perf_counter()
    trained = train(out / "train", sizes, seed, workers=workers, scheduler=scheduler,
                    progress=progress)
    timings["training"] = time.perf_counter() - start
    start = time.perf_counter()
    rr, g = play_matches(out / "matches", out / "train", sizes, seed, workers=workers,
                         scheduler=scheduler, progress=progress)
    timings["matches"] = time.perf_counter() - start
    report = Report(training_frame(trained.state, sizes), rr, g, curves(g), elo(rr, g),
                    timings)
    if write:
        start = time.perf_counter()
        (out / "theta").mkdir(exist_ok=True)
        _save_thetas(out / "theta", out / "train", sizes, seed)
        _write_report(out, report, sizes, seed, profile)
        timings["report"] = time.perf_counter() - start
        _write_provenance(out, sizes, seed, profile, timings, trained.resumed_from, workers,
                          scheduler)
    return report


def load_report(folder, expect: Mapping[str, Any] | None = None) -> tuple[Report, dict]:
    """Read the report files :func:`run_experiment` wrote into ``folder``.

    Needs only the files at the run folder's top (``training.csv``, ``round_robin.csv``,
    ``gauntlet.csv``, ``curves.csv``, ``elo.csv``, ``provenance.json``), not the checkpoints,
    so a committed run can be shown and checked (:func:`claims`) without its ``train/`` and
    ``matches/`` folders.

    Parameters
    ----------
    folder : str or Path
    expect : mapping, optional
        The sizes the caller wants; a run made with other sizes is refused.

    Returns
    -------
    report : Report
        Its ``timings`` are the wall times (s) per stage summed over all invocations.
    sizes : dict
        The sizes the run was made with (validated like a profile).

    Raises
    ------
    FileNotFoundError
        When the folder is not a finished run (names the missing files).
    ValueError
        When ``provenance.json`` is damaged, is not a PGLeaf run's, or the run was made with
        other sizes than ``expect`` (names them).
    """
    import pandas as pd

    from gamelib.experiments.atomic import read_json

    folder = Path(folder)
    names = ("training", "round_robin", "gauntlet", "curves", "elo")
    missing = [f"{n}.csv" for n in names if not (folder / f"{n}.csv").is_file()]
    missing += [] if (folder / "provenance.json").is_file() else ["provenance.json"]
    if missing:
        raise FileNotFoundError(f"{folder} is not a finished PGLeaf run: missing "
                                f"{', '.join(missing)}")
    prov = read_json(folder / "provenance.json")
    if prov.get("experiment") != "pgleaf":
        raise ValueError(f"{folder / 'provenance.json'} is from experiment "
                         f"{prov.get('experiment')!r}, not 'pgleaf'")
    sizes = _check_sizes(prov["sizes"])
    if expect is not None:
        expect = json.loads(json.dumps(_check_sizes(expect)))
        differ = sorted(k for k in set(sizes) | set(expect) if sizes.get(k) != expect.get(k))
        if differ:
            raise ValueError(f"{folder} was made with other sizes: " + ", ".join(
                f"{k} {sizes.get(k)!r} (wanted {expect.get(k)!r})" for k in differ))
    timings: dict[str, float] = {}
    for invocation in prov.get("invocations", []):
        for stage, seconds in invocation.get("wall_time_s", {}).items():
            timings[stage] = timings.get(stage, 0.0) + float(seconds)
    frames = {n: pd.read_csv(folder / f"{n}.csv") for n in names}
    return Report(**frames, timings=timings), sizes


def _write_provenance(out: Path, sizes, seed, profile, timings, resumed_from, workers,
                      scheduler) -> None:
    from gamelib.experiments.executor import Executor
    from gamelib.experiments.report import append_provenance

    append_provenance(out, "pgleaf", profile, seed, sizes, timings,
                      executor=Executor(workers, scheduler).description,
                      invocation_extra={"resumed_from_batch": resumed_from},
                      train_config=train_config(sizes))


@register("pgleaf", profiles=PROFILES,
          description="PGLeaf vs TDLeaf(lambda), TD(lambda), REINFORCE on 5x5 shogi "
                      "(Morioka & Igarashi, section 5)")
def run(opts: RunOptions) -> Report:
    """The command line's entry: :func:`run_experiment` with the options' sizes."""
    report = run_experiment(opts.out, opts.sizes, opts.seed, profile=opts.profile,
                            workers=opts.workers, scheduler=opts.scheduler,
                            progress=opts.progress)
    t = report.timings
    print("wall time: " + ", ".join(f"{k} {v:.1f} s" for k, v in t.items()), flush=True)
    games = len(runs_of(opts.sizes)) * int(opts.sizes["n_games"])
    print(f"self-play: {games} games in the run ({t['training']:.1f} s in this call)",
          flush=True)
    return report


# ----------------------------------------------------------------------------- the claims
def _verdict(p_for: float, p_against: float, alpha: float) -> str:
    if p_for < alpha:
        return "reproduced"
    if p_against < alpha:
        return "contradicted"
    return "not significant"


def _two_proportions(w1: int, n1: int, w2: int, n2: int) -> float:
    """One-sided p-value of 'proportion 1 > proportion 2' (pooled normal approximation)."""
    if n1 == 0 or n2 == 0:
        return math.nan
    p = (w1 + w2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.5
    z = (w1 / n1 - w2 / n2) / se
    return 0.5 * math.erfc(z / math.sqrt(2))


def claims(report: Report, sizes: Mapping[str, Any], alpha: float = 0.01):
    """The paper's qualitative claims checked on a run's results, replicates pooled.

    Round-robin claims use the sign test of :mod:`gamelib.play.stats` on the decisive games;
    claims on the curves compare win rates against the reference (draws left out) with a
    one-sided two-proportion test. ``p_value`` is the one-sided p-value of the claimed
    direction (for "as strong", of a loss of strength); ``verdict`` is "reproduced" or
    "contradicted" at ``alpha``, else "not significant" ("consistent" or "contradicted" for the
    claim of no change).
    """
    import pandas as pd
    from gamelib.play.stats import binomial_test

    rows = []
    rr = report.round_robin
    points = sizes["table_points"]

    def pair(point, a, b):
        recs = _records(rr, games=point)
        return recs.get((a, b))

    def rr_claim(text, paper, point, a, b):
        rec = pair(point, a, b)
        if rec is None or rec.decisive == 0:
            return
        p_for = binomial_test(rec.wins, rec.decisive, 0.5, "greater")
        p_against = binomial_test(rec.wins, rec.decisive, 0.5, "less")
        rows.append({"claim": text, "paper": paper,
                     "ours": f"{100 * rec.win_rate:.1f} % after {point} games "
                             f"({rec.wins}-{rec.draws}-{rec.losses})",
                     "p_value": p_for, "verdict": _verdict(p_for, p_against, alpha)})

    if not rr.empty:
        for point in points:
            paper = PAPER_TABLES.get(point, {}).get(("pgleaf", "reinforce"))
            rr_claim("PGLeaf beats REINFORCE", "77.0 / 88.3 / 76.2 % (1k / 10k / 100k games)"
                     if paper is None else f"{paper} % after {point} games", point,
                     "pgleaf", "reinforce")
        rr_claim("TDLeaf(λ) beats PGLeaf early", "75.7 % after 1,000 games", points[0],
                 "tdleaf", "pgleaf")
        rr_claim("PGLeaf beats TDLeaf(λ) at the end", "56.2 % after 100,000 games",
                 points[-1], "pgleaf", "tdleaf")
    c = report.curves[report.curves.replicate == -1]
    later = [p for p in sizes["curve_points"] if p > 0]
    if later and "mdp" in sizes["rewards"]:
        # the paper: PGLeaf is "far ahead after 10,000 games" -- checked at the nearest point
        point = _nearest(later, 10_000)
        first = c[(c.reward == "mdp") & (c.games == point)].set_index("algorithm")
        others = [a for a in first.index if a != "pgleaf"]
        if "pgleaf" in first.index and others:
            best = max(others, key=lambda a: first.loc[a, "win_rate"])
            pl, ot = first.loc["pgleaf"], first.loc[best]
            p_for = _two_proportions(pl.wins, pl.wins + pl.losses, ot.wins, ot.wins + ot.losses)
            p_against = _two_proportions(ot.wins, ot.wins + ot.losses, pl.wins,
                                         pl.wins + pl.losses)
            rows.append({"claim": "PGLeaf rises fastest against the reference (MDP)",
                         "paper": "far ahead after 10,000 games (Fig. 1)",
                         "ours": f"after {point} games PGLeaf {100 * pl.win_rate:.1f} %, "
                                 f"best other ({ALGORITHM_LABELS[best]}) "
                                 f"{100 * ot.win_rate:.1f} %",
                         "p_value": p_for, "verdict": _verdict(p_for, p_against, alpha)})
    if later and set(sizes["rewards"]) == set(REWARDS):
        last = c[c.games == later[-1]].set_index(["algorithm", "reward"])
        for algo, text, direction in (("tdleaf", "TDLeaf(λ) is weaker with non-MDP rewards", 1),
                                      ("pgleaf", "PGLeaf is as strong with non-MDP rewards", 0)):
            if (algo, "mdp") not in last.index:
                continue
            m, n = last.loc[(algo, "mdp")], last.loc[(algo, "non_mdp")]
            p_weaker = _two_proportions(m.wins, m.wins + m.losses, n.wins, n.wins + n.losses)
            p_stronger = _two_proportions(n.wins, n.wins + n.losses, m.wins, m.wins + m.losses)
            if direction:
                verdict = _verdict(p_weaker, p_stronger, alpha)
            else:   # "no change": contradicted only by a significant loss of strength
                verdict = "contradicted" if p_weaker < alpha else "consistent"
            rows.append({"claim": text, "paper": "Fig. 1 vs Fig. 2",
                         "ours": f"after {later[-1]} games: MDP {100 * m.win_rate:.1f} %, "
                                 f"non-MDP {100 * n.win_rate:.1f} %",
                         "p_value": p_weaker, "verdict": verdict})
    return pd.DataFrame(rows, columns=["claim", "paper", "ours", "p_value", "verdict"])


# ----------------------------------------------------------------------------- the mirror trap
#: The evaluations of :func:`mirror_trap_study`: (tie_sides, learn_tempo) of
#: :class:`~gamelib.learn.selfplay.LearnerSettings` -- the layout versions of
#: :mod:`gamelib.evaluation.shogi` (1: one antisymmetric block; 2: and a tempo; 3: a weight per
#: side and a tempo, the current one).
MIRROR_TRAP_EVALUATIONS = {"antisymmetric": (True, False), "antisymmetric+tempo": (True, True),
                           "two sides+tempo": (False, True)}


def _mirror_trap_job(job):
    algorithm, reward, replicate, evaluation, n_games, chunk, seed, sizes = job
    tie, tempo = MIRROR_TRAP_EVALUATIONS[evaluation]
    run = RunSpec(algorithm, reward, replicate)
    settings = LearnerSettings(algorithm, reward, alpha=float(sizes["alpha"]), M=sizes["M"],
                               lam=float(sizes["lam"]), beta=float(sizes["beta"]),
                               max_plies=sizes["max_plies"], learn_tempo=tempo, tie_sides=tie)
    theta = initial_theta(seed, replicate)
    rows = []
    for first in range(0, n_games, chunk):
        theta, records = play_td_games(theta, settings, _game_seeds(seed, run, first, chunk))
        s = _stats_row(records, settings.max_plies)
        half = ev.OPP_OFFSET
        rows.append({"algorithm": algorithm, "reward": reward, "replicate": replicate,
                     "evaluation": evaluation, "games": first + chunk,
                     **{c: int(v) for c, v in zip(_STAT_COLUMNS, s)},
                     "tempo_weight": float(theta[ev.TEMPO_INDEX]),
                     "side_difference": float(np.abs(theta[:half] - theta[half:2 * half]).sum())})
    return rows


def mirror_trap_study(n_games: int, seed: int = 0, *, algorithms=("td", "tdleaf"),
                      reward: str = "mdp", replicates=(0,), evaluations=None, chunk: int = 100,
                      workers: int | None = None, sizes: Mapping[str, Any] | None = None):
    """TD(λ)/TDLeaf(λ) self-play under the evaluations of :data:`MIRROR_TRAP_EVALUATIONS`.

    Each run is the first ``n_games`` games of the experiment's run of the same algorithm,
    reward and replicate (same initial θ, same game seeds); with the current evaluation
    (``"two sides+tempo"``) exactly what :func:`train` plays.

    Returns
    -------
    pandas.DataFrame
        One row per ``chunk`` games of every run: ``algorithm, reward, replicate, evaluation,
        games`` (after the chunk), the counts of :func:`train`'s statistics (``sente_wins,
        gote_wins, draws, plies, gote_moves, mirror_replies``), ``tempo_weight``,
        ``side_difference`` (Σ|θ_stm − θ_opp|), and the rates ``sente_share`` (of all games)
        and ``mirror_rate`` (gote's moves that copied sente's).
    """
    import pandas as pd

    from gamelib.experiments.executor import map_ordered

    sizes = _check_sizes(PROFILES["paper"] if sizes is None else sizes)
    evaluations = list(MIRROR_TRAP_EVALUATIONS) if evaluations is None else list(evaluations)
    for name, v in (("n_games", n_games), ("chunk", chunk)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if n_games % chunk:
        raise ValueError(f"n_games ({n_games}) must be a multiple of chunk ({chunk})")
    bad = [a for a in algorithms if a not in ("td", "tdleaf")]
    if bad or not algorithms:
        raise ValueError(f"algorithms must be TD learners ('td', 'tdleaf'), got {list(algorithms)!r}")
    if reward not in REWARDS:
        raise ValueError(f"unknown reward setting {reward!r}; valid: {', '.join(REWARDS)}")
    bad = [e for e in evaluations if e not in MIRROR_TRAP_EVALUATIONS]
    if bad or not evaluations:
        raise ValueError(f"evaluations must be among {list(MIRROR_TRAP_EVALUATIONS)}, got {evaluations!r}")
    jobs = [(a, reward, int(r), e, n_games, chunk, seed, sizes)
            for r in replicates for a in algorithms for e in evaluations]
    rows = [row for part in map_ordered(_mirror_trap_job, jobs, workers=workers, chunksize=1)
            for row in part]
    frame = pd.DataFrame(rows)
    games = frame.sente_wins + frame.gote_wins + frame.draws
    frame["sente_share"] = frame.sente_wins / games
    frame["mirror_rate"] = frame.mirror_replies / frame.gote_moves.clip(lower=1)
    return frame

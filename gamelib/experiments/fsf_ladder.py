"""An Elo ladder anchored to Fairy-Stockfish: our players on a scale that others can reproduce.

``python -m gamelib.experiments fsf_ladder --profile quick|paper [--seed S] [--out DIR]`` plays,
with :mod:`gamelib.play.engine_match` (every move checked by our rules, openings of
``opening_plies`` random plies each played with both colours):

* every one of our players against Fairy-Stockfish (the Debian package's 11.1, 5×5 shogi) at each
  node budget of ``fsf_nodes``, ``games`` games per pairing; our players search ``node_budget``
  nodes per move (:class:`gamelib.play.shogi.SearchPlayer`, the reference player's quiescence):
  the reference opponent, the paper's Table 1 piece values (material only), the learned
  parameters of the committed PGLeaf experiment (each learner after the games of ``pgleaf_points``,
  reward setting ``pgleaf_reward``, replicate 0), and the committed Bonanza and elmo evaluations;
* Fairy-Stockfish at each budget against the next budget, to tie its rungs together.

The ratings are one Bradley-Terry fit (:func:`gamelib.play.stats.bradley_terry`, 95 % Wald
intervals, the ladder frames of :mod:`gamelib.experiments.ladder`) with Fairy-Stockfish at
``anchor_nodes`` nodes fixed at 0 Elo and ``prior_draws`` virtual draws per pairing (so that a
player who lost every game still has a finite rating).

Files in the run folder (default ``data/results/<profile>/fsf_ladder/seed-<seed>``):
``matches/<a>__<b>/games.csv`` (every game, resumable), ``ladder.csv`` (one line per pairing
with Fairy-Stockfish: ``player, fsf_nodes, games, wins, draws, losses, score`` of the player and
``elo, elo_low, elo_high``, the player's performance rating in that pairing: the rating of
Fairy-Stockfish at ``fsf_nodes`` on the ladder plus the Elo difference of the score, with the
score's 95 % interval), ``ratings.csv`` (``player, elo, se, lower, upper, games``),
``ladder.png`` and ``provenance.json`` (with the mean seconds per game of our players against
each Fairy-Stockfish budget, as measured when those games were played). Rerunning the command
resumes.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from gamelib.runtime.executor import available_cores
from gamelib.experiments.config import ExperimentConfig, below_cap, choices, increasing_integers
from gamelib.experiments.ladder import (LadderReport, ladder_frames, play_pairings,
                                        plot_ladder as shared_plot_ladder, read_report,
                                        write_report)
from gamelib.experiments.pgleaf.config import PROFILES as PGLEAF_PROFILES, RunSpec
from gamelib.experiments.pgleaf.training import theta_file
from gamelib.experiments.registry import RunOptions, register
from gamelib.experiments.run_folder import RunFolder, run_from_options
from gamelib.learn import learners
from gamelib.learn.selfplay import REWARDS
from gamelib.runtime.atomic import read_json
from gamelib.runtime.checks import check_integer, check_number
from gamelib.play import engine_match as M
from gamelib.play.usi_client import Limits

__all__ = ["PROFILES", "LadderConfig", "ladder_config", "fairy_stockfish", "players", "pairings", "run_experiment",
           "load_report", "plot_ladder"]

ROOT = Path(__file__).resolve().parents[2]
_PGLEAF = "data/results/paper/pgleaf/seed-0/theta"
_COMMON = {"pgleaf_algorithms": ["pgleaf", "tdleaf", "td", "reinforce"], "pgleaf_reward": "mdp",
           "bonanza": "data/results/paper/bonanza_shogi/seed-0/theta/minibatch_material.npz",
           "elmo": "data/results/paper/elmo_shogi/seed-0/theta/elmo_0.5.npz",
           "max_plies": 300, "opening_plies": 4, "prior_draws": 0.5}
PROFILES = {
    "quick": {**_COMMON, "fsf_nodes": [30, 100, 300, 1000], "anchor_nodes": 1000, "node_budget": 300,
              "games": 4, "pgleaf_points": [100_000], "max_plies": 150,
              "pgleaf_algorithms": ["pgleaf", "tdleaf"]},
    "paper": {**_COMMON, "fsf_nodes": [100, 300, 1000, 3000, 10_000], "anchor_nodes": 1000,
              "node_budget": 5000, "games": 40, "pgleaf_points": [1000, 10_000, 100_000]},
}


def fairy_stockfish() -> str:
    """The Fairy-Stockfish binary: ``$FAIRY_STOCKFISH``, ``/usr/games/fairy-stockfish`` or
    ``fairy-stockfish`` on the PATH (``FileNotFoundError`` naming how to install it)."""
    for cand in (os.environ.get("FAIRY_STOCKFISH"), "/usr/games/fairy-stockfish", shutil.which("fairy-stockfish")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    raise FileNotFoundError("Fairy-Stockfish not found: apt-get install fairy-stockfish (or bash scripts/setup.sh "
                            "as root), or set FAIRY_STOCKFISH=/path/to/fairy-stockfish")


def _fsf_name(nodes: int) -> str:
    return f"fsf-{nodes}"


def players(sizes: Mapping[str, Any], fsf: str) -> dict[str, M.PlayerSpec]:
    """``{name: PlayerSpec}``: Fairy-Stockfish's rungs, then ours."""
    out = {_fsf_name(n): M.PlayerSpec(fsf, Limits(nodes=int(n)), name=_fsf_name(n)) for n in sizes["fsf_nodes"]}
    ours = {"reference": "gamelib:reference", "table1": "gamelib:material", "bonanza": sizes["bonanza"],
            "elmo": sizes["elmo"]}
    for point in sorted(sizes["pgleaf_points"], reverse=True):  # the learners' final strength first
        for alg in sizes["pgleaf_algorithms"]:
            run = RunSpec(alg, sizes["pgleaf_reward"], 0)
            ours[f"{alg}-{point // 1000}k"] = f"{_PGLEAF}/{theta_file(run, point)}"
    limits = Limits(nodes=int(sizes["node_budget"]))
    for name, spec in ours.items():
        if not spec.startswith(M.GAMELIB_PREFIX):
            spec = f"{M.GAMELIB_PREFIX}theta={ROOT / spec}"
        out[name] = M.PlayerSpec(spec, limits, name=name)
    return out


def pairings(sizes: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each rung against the next, then ours (first) against every rung."""
    rungs = [_fsf_name(n) for n in sizes["fsf_nodes"]]
    ours = [p for p in players(sizes, "fsf") if p not in rungs]
    return list(zip(rungs[:-1], rungs[1:])) + [(p, r) for p in ours for r in rungs]


#: The points at which the committed PGLeaf run (:data:`_PGLEAF`, the paper profile) saved its
#: parameters (its report saves them at its table points and its last game): the only ones that
#: can play.
_PGLEAF_SAVED = tuple(sorted({*PGLEAF_PROFILES["paper"]["table_points"],
                              PGLEAF_PROFILES["paper"]["n_games"]}))


@dataclass(frozen=True)
class LadderConfig(ExperimentConfig):
    """One ladder, every size typed and every relation between them checked (``ValueError``
    naming the field and the problem), however it is made: by :func:`ladder_config`, directly,
    or with :func:`dataclasses.replace`. Its mapping view is the ``sizes`` a run's
    ``provenance.json`` stores.

    Attributes
    ----------
    pgleaf_algorithms : tuple of str
        Distinct learners of :func:`gamelib.learn.learners.names`.
    pgleaf_reward : str
        One of :data:`~gamelib.learn.selfplay.REWARDS`.
    bonanza, elmo : str
        Evaluation files (relative to the repository) or ``gamelib:...`` player specs.
    max_plies, opening_plies : int
        The games' ply cap and random opening plies (below the cap).
    prior_draws : float
        Virtual draws per pairing, >= 0.
    fsf_nodes : tuple of int
        Fairy-Stockfish's node budgets, increasing, at least two; ``anchor_nodes`` is one of them.
    node_budget : int
    games : int
        Games per pairing, even (each opening is played with both colours).
    pgleaf_points : tuple of int
        Increasing points at which the committed PGLeaf run saved its parameters (the players
        are named ``<algorithm>-<points / 1000>k``).
    """

    pgleaf_algorithms: tuple[str, ...]
    pgleaf_reward: str
    bonanza: str
    elmo: str
    max_plies: int
    opening_plies: int
    prior_draws: float
    fsf_nodes: tuple[int, ...]
    anchor_nodes: int
    node_budget: int
    games: int
    pgleaf_points: tuple[int, ...]

    EXPERIMENT = "fsf_ladder"

    def __post_init__(self):
        nodes = self.fsf_nodes
        if not isinstance(nodes, (list, tuple)) or len(nodes) < 2:
            raise ValueError(f"fsf_nodes must be increasing positive integers (at least two), "
                             f"got {nodes!r}")
        self._set("fsf_nodes", increasing_integers("fsf_nodes", nodes, 1))
        for name in ("node_budget", "games", "max_plies"):
            self._set(name, check_integer(name, getattr(self, name), 1))
        self._set("opening_plies", check_integer("opening_plies", self.opening_plies, 0))
        check_number("prior_draws", self.prior_draws, 0)
        self._set("pgleaf_algorithms", choices("pgleaf_algorithms", self.pgleaf_algorithms,
                                               learners.names()))
        if self.pgleaf_reward not in REWARDS:
            raise ValueError(f"pgleaf_reward must be one of {list(REWARDS)}, got "
                             f"{self.pgleaf_reward!r}")
        self._set("pgleaf_points", increasing_integers("pgleaf_points", self.pgleaf_points, 1))
        for name in ("bonanza", "elmo"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise ValueError(f"{name} must be an evaluation file or a gamelib: player, got "
                                 f"{getattr(self, name)!r}")
        self._check_relations()

    def _check_relations(self) -> None:
        """The relations between the sizes (each field already valid on its own)."""
        if self.anchor_nodes not in self.fsf_nodes:
            raise ValueError(f"anchor_nodes {self.anchor_nodes!r} is not one of fsf_nodes "
                             f"{list(self.fsf_nodes)}")
        if self.games % 2:
            raise ValueError(f"games must be even (each opening is played with both colours), "
                             f"got {self.games}")
        below_cap(self, "opening_plies", self.max_plies, "the games'")
        bad = [p for p in self.pgleaf_points if p not in _PGLEAF_SAVED]
        if bad:
            raise ValueError(f"pgleaf_points {bad} must be points at which the committed PGLeaf "
                             f"run saved its parameters: {list(_PGLEAF_SAVED)}")


def ladder_config(sizes: Mapping[str, Any]) -> LadderConfig:
    """The typed configuration of ``sizes``: a profile of :data:`PROFILES` with overrides (the
    command line's ``-p KEY VALUE``), or the sizes a run stored in its provenance; a
    :class:`LadderConfig` is returned as it is. ``ValueError`` names the field and the
    problem."""
    return LadderConfig.of(sizes)


def run_experiment(out, sizes: Mapping[str, Any] | LadderConfig, seed: int = 0, *,
                   profile: str = "quick", workers: int | None = 1, scheduler=None,
                   progress: bool = True, write: bool = True) -> LadderReport:
    """Play the ladder's matches (resuming) and write its report (``sizes``: the configuration
    or the sizes it is made from, :func:`ladder_config`; ``scheduler``: not used, the matches
    run on local processes)."""
    sizes = ladder_config(sizes)
    fsf = fairy_stockfish()
    specs = players(sizes, fsf)
    for spec in specs.values():
        spec.identity()  # every evaluation file exists (ValueError names the missing one)
    folder = RunFolder(out, "fsf_ladder", profile, seed, sizes, workers=workers)
    out = folder.out
    with folder.stage("matches"):
        records, seconds = _play(out, specs, sizes, seed, workers, progress)
    anchor = _fsf_name(sizes["anchor_nodes"])
    ladder, ratings = _ratings(records, specs, anchor, sizes)
    if write:
        write_report(out, ladder, ratings, plot_ladder(ratings, anchor))
        prov = out / "provenance.json"
        timing = read_json(prov).get("seconds_per_game_vs_fsf", {}) if prov.exists() else {}
        timing.update({k: float(np.mean(v)) for k, v in seconds.items()})  # resumed: kept
        folder.finish(fairy_stockfish=fsf, anchor=anchor,
                      seconds_per_game_vs_fsf=dict(sorted(timing.items())))
    return LadderReport(ladder, ratings, folder.timings)


def load_report(folder, expect: Mapping[str, Any] | None = None
                ) -> tuple[LadderReport, LadderConfig]:
    """The :class:`LadderReport` of a finished run from its report files, and its configuration (see
    :func:`gamelib.experiments.run_folder.read_run` for what is refused)."""
    return read_report(folder, "fsf_ladder", ladder_config, expect)


def _play(out: Path, specs, sizes, seed, workers, progress):
    """Every pairing's games (resumed from ``out/matches``): records and seconds per game
    (:func:`gamelib.experiments.ladder.play_pairings`)."""
    def play(a, b, folder):
        return M.run_match(specs[a], specs[b], sizes["games"], folder, seed=seed,
                           openings=sizes["opening_plies"], max_plies=sizes["max_plies"],
                           workers=workers or available_cores(), progress=progress)

    return play_pairings(out, pairings(sizes), play,
                         lambda folder: len(M.read_games(folder / "games.csv")), sizes["games"],
                         "fsf-", progress)


def _ratings(records, specs, anchor: str, sizes):
    """The ladder (performance per pairing with Fairy-Stockfish) and the ratings frames
    (:func:`gamelib.experiments.ladder.ladder_frames`, the rungs named ``fsf-<nodes>``)."""
    rungs = {a: int(a[4:]) for a in specs if a.startswith("fsf-")}
    return ladder_frames(records, list(specs), rungs, anchor, float(sizes["prior_draws"]), "fsf_nodes")


def plot_ladder(ratings: pd.DataFrame, anchor: str, subtitle: str | None = None):
    """The ratings with their 95 % intervals, Fairy-Stockfish's rungs in another colour;
    ``subtitle`` is a second line of the title (which run it is)."""
    return shared_plot_ladder(ratings, anchor, [p for p in ratings["player"] if p.startswith("fsf-")],
                              engine="Fairy-Stockfish 11.1 (nodes)",
                              title="5×5 shogi players on one Elo scale with Fairy-Stockfish 11.1",
                              subtitle=subtitle)


@register("fsf_ladder", profiles=PROFILES, check=ladder_config,
          description="Elo ladder of our 5x5 shogi players anchored to Fairy-Stockfish at several node budgets")
def run(opts: RunOptions) -> LadderReport:
    """The command line's entry: :func:`run_experiment` with the options' sizes."""
    return run_from_options(run_experiment, opts)

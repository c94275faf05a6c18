"""An Elo ladder anchored to GRhino: our Othello players on a scale that others can reproduce.

``python -m gamelib.experiments othello_ladder --profile quick|paper [--seed S] [--out DIR]``
plays, with :mod:`gamelib.play.othello_match` (every move checked by our rules, openings of
``opening_plies`` random plies each played with both colours):

* every one of our players against GRhino (``gtp-rhino``, the Debian package ``grhino``) at each
  level of ``levels``, with its opening book off (``--book 0``: GRhino then plays the same move
  in the same position, so that the games are reproducible after an opening of one ply or more),
  ``games`` games per pairing. Our players: ``classic`` (Othello's linear evaluation with the
  classic square weights, ``gamelib:linear``, searched by the game-neutral
  :class:`gamelib.play.games.SearchPlayer` under ``node_budget`` nodes a move -- the search every
  learned evaluation of the book plays with), ``positional`` (αβ to 2 plies over the classic
  square weights), ``greedy`` (the most discs after the move), ``random``, and the evaluations of
  ``learned`` (``{name: parameter file or folder}``: a linear evaluation saved by
  :func:`gamelib.games.othello.game.save_theta`, searched as ``classic``; the value network of the
  Othello value chapter, ``gamelib:mlp``, searched the same way; or, for a finished run folder
  of that chapter, its value table with its network where the table has no entry,
  ``gamelib:table``, the table rebuilt from the WTHOR records at run time;
  :func:`learned_spec`). The paper profile's are the PGLeaf study's four learners on Othello
  after 100,000 self-play games (the first training run of each, at the unit c), the Bonanza
  method's constrained learner and elmo's loss at λ = 0.5 from the WTHOR games (the committed
  runs of ``bonanza_othello`` and ``elmo_othello``), the value network and the value table (``table``: the committed run ``data/results/paper/othello_value``,
  whose table -- its 111,775 training games, 4.5 million positions -- is built in about 15 s in
  each process that plays it). Every player is given the same ``node_budget``; only the searched
  ones (``classic`` and ``learned``) use it;
* GRhino at each level against the next level, to tie its rungs together.

The ratings are one Bradley-Terry fit (:func:`gamelib.play.stats.bradley_terry`, 95 % Wald
intervals, the ladder's frames of :mod:`gamelib.experiments.ladder`) with GRhino at
``anchor_level`` fixed at 0 Elo and ``prior_draws`` virtual draws per pairing (so that a player
who lost every game still has a finite rating).

Files in the run folder (default ``data/results/<profile>/othello_ladder/seed-<seed>``):
``matches/<a>__<b>/games.csv`` (every game, resumable), ``ladder.csv`` (one line per pairing
with GRhino: ``player, grhino_level, games, wins, draws, losses, score`` of the player and
``elo, elo_low, elo_high``, the player's performance rating in that pairing: the rating of
GRhino at ``grhino_level`` on the ladder plus the Elo difference of the score, with the score's
95 % interval), ``ratings.csv`` (``player, elo, se, lower, upper, games``), ``ladder.png`` and
``provenance.json`` (with GRhino's path and version, and the mean seconds per game of our
players against each GRhino level, as measured when those games were played). Rerunning the
command resumes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from gamelib.experiments.config import ExperimentConfig, increasing_integers
from gamelib.experiments.ladder import (LadderReport, ladder_frames, play_pairings,
                                        plot_ladder as shared_plot_ladder, read_report,
                                        write_report)
from gamelib.experiments.registry import RunOptions, register
from gamelib.experiments.run_folder import RunFolder, run_from_options
from gamelib.games.othello import game as othello_rules
from gamelib.play import othello_match as O
from gamelib.play.engine_process import EngineError
from gamelib.play.gtp_client import GRHINO, GtpEngine, grhino_path
from gamelib.runtime.atomic import read_json
from gamelib.runtime.checks import check_int, check_integer, check_number
from gamelib.runtime.executor import available_cores

__all__ = ["PROFILES", "OthelloLadderConfig", "ladder_config", "grhino",
           "grhino_version", "players", "learned_spec", "pairings", "run_experiment", "load_report", "plot_ladder"]

ROOT = Path(__file__).resolve().parents[2]
#: GRhino's levels (``--level``).
GRHINO_LEVELS = O.GRHINO_OPTIONS["level"]
#: The search depth (plies) of the ``positional`` player.
POSITIONAL_DEPTH = 2
#: Our players of every ladder: ``{name: othello_match player}``, in the ladder's order.
OURS = {"classic": "gamelib:linear", "positional": "gamelib:positional", "greedy": "gamelib:greedy",
        "random": "gamelib:random"}
_RUNG = "grhino-"
_INSTALL = ("GRhino (gtp-rhino) not found: apt-get install grhino (or bash scripts/setup.sh as "
            "root), or set GRHINO=/path/to/gtp-rhino")
#: The parameters of the PGLeaf study on Othello (the unit c, first training run of each learner).
_PGLEAF = "data/results/paper/pgleaf/othello/seed-0/theta"
PROFILES = {
    "quick": {"levels": [1, 2], "anchor_level": 1, "node_budget": 300, "learned": {}, "games": 4,
              "opening_plies": 4, "prior_draws": 0.5},
    "paper": {"levels": [1, 2, 3, 4], "anchor_level": 1, "node_budget": 5000,
              "learned": {f"{a}-100k": f"{_PGLEAF}/{a}_mdp_0_100000.npz"
                          for a in ("pgleaf", "tdleaf", "reinforce", "td")}
              | {"bonanza-minibatch": "data/results/paper/bonanza_othello/seed-0/theta/minibatch.npz",
                 "elmo-0.5": "data/results/paper/elmo_othello/seed-0/theta/elmo_0.5.npz",
                 "mlp": "data/results/paper/othello_value/mlp.npz",
                 "table": "data/results/paper/othello_value"},
              "games": 40, "opening_plies": 4, "prior_draws": 0.5},
}


def grhino() -> str:
    """GRhino's GTP front end: :func:`gamelib.play.gtp_client.grhino_path`
    (``FileNotFoundError`` naming how to install it)."""
    path = grhino_path()
    if path is None:
        raise FileNotFoundError(_INSTALL)
    return path


def grhino_version(path: str) -> str | None:
    """GRhino's answer to GTP ``version`` (None if it does not answer)."""
    try:
        engine = GtpEngine([path]).start()
    except EngineError:
        return None
    try:
        return engine.ask("version", 60.0) or None
    except EngineError:
        return None
    finally:
        engine.close()


def _rung_name(level: int) -> str:
    return f"{_RUNG}{level}"


def players(sizes: Mapping[str, Any]) -> dict[str, O.OthelloPlayerSpec]:
    """``{name: OthelloPlayerSpec}``: GRhino's rungs, then ours (``ValueError`` naming a learned
    player whose file is missing)."""
    out = {_rung_name(n): O.OthelloPlayerSpec(O.grhino_options(GRHINO, level=int(n), book=0),
                                              name=_rung_name(n)) for n in sizes["levels"]}
    ours = dict(OURS)
    for name, path in dict(sizes["learned"]).items():
        ours[name] = learned_spec(ROOT / path)
    for name, spec in ours.items():
        out[name] = O.OthelloPlayerSpec(spec, depth=POSITIONAL_DEPTH, name=name,
                                        nodes=int(sizes["node_budget"]))
    return out


def learned_spec(path) -> str:
    """The player of a learned evaluation's file or folder, by what it holds:
    ``gamelib:table=FOLDER`` for a folder (a finished othello_value run: its value table with its
    network as the fallback), ``gamelib:linear=FILE`` for Othello's linear evaluation
    (:func:`gamelib.games.othello.game.load_theta`), else ``gamelib:mlp=FILE`` (the value network; a
    file or folder that is none of them is refused, naming it, when the player is made)."""
    if Path(path).is_dir():
        return f"{O.GAMELIB_PREFIX}table={path}"
    try:
        othello_rules.load_theta(path)
    except ValueError:
        return f"{O.GAMELIB_PREFIX}mlp={path}"
    return f"{O.GAMELIB_PREFIX}linear={path}"


def _our_names(sizes: Mapping[str, Any]) -> list[str]:
    return [*OURS, *dict(sizes["learned"])]


def pairings(sizes: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each rung against the next, then ours (first) against every rung."""
    rungs = [_rung_name(n) for n in sizes["levels"]]
    return list(zip(rungs[:-1], rungs[1:])) + [(p, r) for p in _our_names(sizes) for r in rungs]


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


@dataclass(frozen=True)
class OthelloLadderConfig(ExperimentConfig):
    """One Othello ladder, every size typed and every relation between them checked
    (``ValueError`` naming the field and the problem), however it is made: by
    :func:`ladder_config`, directly, or with :func:`dataclasses.replace`. Its mapping view is
    the ``sizes`` a run's ``provenance.json`` stores (``learned`` as a mapping).

    Attributes
    ----------
    levels : tuple of int
        GRhino's levels, increasing in 1..5, at least two; ``anchor_level`` is one of them.
    anchor_level : int
    node_budget : int
        Nodes a move of the searched players (``classic`` and ``learned``).
    learned : tuple of (str, str)
        ``(name, parameter file or folder)`` pairs (relative to the repository, checked when the
        ladder runs; a folder is a finished othello_value run, played as its value table,
        :func:`learned_spec`); given as a mapping ``{name: file}``. The names are distinct from
        our other players' and from GRhino's rungs.
    games : int
        Games per pairing, even (each opening is played with both colours).
    opening_plies : int
        Random opening plies, 1..20 (GRhino with its book off picks its first move at random
        from the start position).
    prior_draws : float
        Virtual draws per pairing, >= 0.
    """

    levels: tuple[int, ...]
    anchor_level: int
    node_budget: int
    learned: tuple[tuple[str, str], ...]
    games: int
    opening_plies: int
    prior_draws: float

    EXPERIMENT = "othello_ladder"

    def __post_init__(self):
        levels = self.levels
        if not isinstance(levels, (list, tuple)) or len(levels) < 2:
            raise ValueError(f"levels must be increasing GRhino levels in {GRHINO_LEVELS[0]}.."
                             f"{GRHINO_LEVELS[1]} (at least two), got {levels!r}")
        self._set("levels", increasing_integers("levels", levels, GRHINO_LEVELS[0]))
        if self.levels[-1] > GRHINO_LEVELS[1]:
            raise ValueError(f"levels must be GRhino levels in {GRHINO_LEVELS[0]}.."
                             f"{GRHINO_LEVELS[1]}, got {list(self.levels)}")
        self._set("anchor_level", check_integer("anchor_level", self.anchor_level, 1))
        for name in ("node_budget", "games"):
            self._set(name, check_integer(name, getattr(self, name), 1))
        self._set("opening_plies", check_int("opening_plies", self.opening_plies, 1, 20))
        check_number("prior_draws", self.prior_draws, 0)
        self._set("learned", self._learned(self.learned))
        self._check_relations()

    @staticmethod
    def _learned(value) -> tuple[tuple[str, str], ...]:
        pairs = list(value.items()) if isinstance(value, Mapping) else value
        if not isinstance(pairs, (list, tuple)) or any(
                not isinstance(p, (list, tuple)) or len(p) != 2 for p in pairs):
            raise ValueError(f"learned must be a mapping {{name: parameter file}}, got {value!r}")
        pairs = tuple((name, path) for name, path in pairs)
        for name, path in pairs:
            if not isinstance(name, str) or not _NAME.fullmatch(name) or "__" in name:
                raise ValueError(f"learned: a player's name must be letters, digits and ._+- "
                                 f"(no '__'), got {name!r}")
            if name in OURS or name.startswith(_RUNG):
                raise ValueError(f"learned: the name {name!r} is taken by "
                                 f"{'our player' if name in OURS else 'a GRhino rung'}")
            if not isinstance(path, str) or not path.strip():
                raise ValueError(f"learned: {name!r} needs a parameter file, got {path!r}")
        if len({name for name, _ in pairs}) != len(pairs):
            raise ValueError(f"learned: the names must be distinct, got {[n for n, _ in pairs]}")
        return pairs

    def _check_relations(self) -> None:
        """The relations between the sizes (each field already valid on its own)."""
        if self.anchor_level not in self.levels:
            raise ValueError(f"anchor_level {self.anchor_level!r} is not one of levels "
                             f"{list(self.levels)}")
        if self.games % 2:
            raise ValueError(f"games must be even (each opening is played with both colours), "
                             f"got {self.games}")

    def __getitem__(self, key: str) -> Any:
        value = super().__getitem__(key)
        return dict(self.learned) if key == "learned" else value


def ladder_config(sizes: Mapping[str, Any]) -> OthelloLadderConfig:
    """The typed configuration of ``sizes``: a profile of :data:`PROFILES` with overrides (the
    command line's ``-p KEY VALUE``), or the sizes a run stored in its provenance; an
    :class:`OthelloLadderConfig` is returned as it is. ``ValueError`` names the field and the
    problem."""
    return OthelloLadderConfig.of(sizes)


def _check_learned_files(sizes: OthelloLadderConfig) -> None:
    for name, path in sizes.learned:
        if not (ROOT / path).is_file() and not (ROOT / path).is_dir():
            raise FileNotFoundError(f"learned player {name!r}: no parameter file or run folder "
                                    f"{ROOT / path}")


def run_experiment(out, sizes: Mapping[str, Any] | OthelloLadderConfig, seed: int = 0, *,
                   profile: str = "quick", workers: int | None = 1, scheduler=None,
                   progress: bool = True, write: bool = True) -> LadderReport:
    """Play the ladder's matches (resuming) and write its report (``sizes``: the configuration
    or the sizes it is made from, :func:`ladder_config`; ``scheduler``: not used, the matches
    run on local processes). Nothing is written before the sizes, the learned players' files
    and GRhino are found."""
    sizes = ladder_config(sizes)
    _check_learned_files(sizes)
    path = grhino()
    specs = players(sizes)
    folder = RunFolder(out, "othello_ladder", profile, seed, sizes, workers=workers)
    out = folder.out
    with folder.stage("matches"):
        records, seconds = _play(out, specs, sizes, seed, workers, progress)
    anchor = _rung_name(sizes["anchor_level"])
    ladder, ratings = _ratings(records, specs, anchor, sizes)
    if write:
        write_report(out, ladder, ratings, plot_ladder(ratings, anchor))
        prov = out / "provenance.json"
        timing = read_json(prov).get("seconds_per_game_vs_grhino", {}) if prov.exists() else {}
        timing.update({k: float(np.mean(v)) for k, v in seconds.items()})  # resumed: kept
        folder.finish(grhino=path, grhino_version=grhino_version(path), anchor=anchor,
                      seconds_per_game_vs_grhino=dict(sorted(timing.items())))
    return LadderReport(ladder, ratings, folder.timings)


def load_report(folder, expect: Mapping[str, Any] | None = None
                ) -> tuple[LadderReport, OthelloLadderConfig]:
    """The :class:`LadderReport` of a finished run from its report files, and its
    configuration (see :func:`gamelib.experiments.run_folder.read_run` for what is refused)."""
    return read_report(folder, "othello_ladder", ladder_config, expect)


def _play(out: Path, specs, sizes, seed, workers, progress):
    """Every pairing's games (resumed from ``out/matches``): records and seconds per game
    (:func:`gamelib.experiments.ladder.play_pairings`)."""
    def play(a, b, folder):
        return O.run_match(specs[a], specs[b], sizes["games"], folder, seed=seed,
                           openings=sizes["opening_plies"], workers=workers or available_cores(),
                           progress=progress)

    return play_pairings(out, pairings(sizes), play,
                         lambda folder: len(O.read_games(folder / "games.csv")), sizes["games"],
                         _RUNG, progress)


def _ratings(records, specs, anchor: str, sizes):
    """The ladder (performance per pairing with GRhino) and the ratings frames."""
    rungs = {_rung_name(n): int(n) for n in sizes["levels"]}
    return ladder_frames(records, list(specs), rungs, anchor, float(sizes["prior_draws"]),
                         "grhino_level")


def plot_ladder(ratings: pd.DataFrame, anchor: str, subtitle: str | None = None):
    """The ratings with their 95 % intervals, GRhino's rungs in another colour; ``subtitle`` is
    a second line of the title (which run it is)."""
    return shared_plot_ladder(ratings, anchor,
                              [p for p in ratings["player"] if p.startswith(_RUNG)],
                              engine="GRhino (level, book off)",
                              title="Othello players on one Elo scale with GRhino",
                              subtitle=subtitle)


@register("othello_ladder", profiles=PROFILES, check=ladder_config,
          description="Elo ladder of our Othello players anchored to GRhino at several levels")
def run(opts: RunOptions) -> LadderReport:
    """The command line's entry: :func:`run_experiment` with the options' sizes."""
    return run_from_options(run_experiment, opts)

"""The PGLeaf experiment's configuration: the profiles, the typed configuration of a run
(:class:`PGLeafConfig`, made and validated as a whole by :func:`pgleaf_config`), the runs
(algorithm × reward × replicate), their learner settings, and the identity of a training folder.

A configuration is validated once, when it is made -- at the command line before anything runs
or is written (the registry's ``check``), when a finished run's provenance is read back -- and is
then passed down as it is. Its mapping view (``config["n_games"]``, ``dict(config)``) is the
plain form a run's ``provenance.json`` stores under ``sizes``: lists for the tuples, the values
as given. ``pgleaf_config(stored)`` gives the same configuration back, so a committed run reads
as it was made.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from gamelib.games.minishogi import features as ev
from gamelib.experiments.config import ExperimentConfig, below_cap, choices, increasing_integers
from gamelib.games import registry
from gamelib.learn import learners, pg_selfplay, td_selfplay
from gamelib.learn.selfplay import REWARDS, SelfPlaySettings, check_game
from gamelib.runtime.checks import check_integer, check_number

#: The registered learners (:mod:`gamelib.learn.learners`).
ALGORITHMS = learners.names()
#: The learners that learn by temporal differences (``td_alpha`` applies to them).
TD_ALGORITHMS = tuple(a for a in ALGORITHMS if learners.get(a).module is td_selfplay)
#: Display names and the paper's abbreviations (the registry's).
ALGORITHM_LABELS = {a: learners.get(a).label for a in ALGORITHMS}
ALGORITHM_ABBREVIATIONS = {a: learners.get(a).abbreviation for a in ALGORITHMS}
#: Column labels of the round-robin tables: display name -> the paper's abbreviation.
COLUMN_LABELS = {ALGORITHM_LABELS[a]: ALGORITHM_ABBREVIATIONS[a] for a in ALGORITHM_LABELS}


#: Standard deviation of the learners' initial weights other than the game's known ones (the
#: paper's "very small random numbers").
INIT_SCALE = 1e-4


def nearest_point(points, target: int) -> int:
    """The point closest to ``target`` on a log scale (numbers of games)."""
    return min(points, key=lambda p: abs(math.log(p / target)))


#: The learners' settings a profile (and ``-p KEY VALUE`` on the command line) may set: every
#: field of the two families' settings (:mod:`gamelib.learn.pg_selfplay`,
#: :mod:`gamelib.learn.td_selfplay`), in the order the runs' records keep (:func:`run_record`).
#: Their values are owned by the settings: their defaults (the paper's; ``None`` = the paper's
#: value for each algorithm) are the profiles' values, and they validate them.
LEARNER_KEYS = ("alpha", "gamma", "temperature", "M", "lam", "beta", "baseline", "qdepth",
                "max_plies", "bonus", "learn_tempo", "tie_sides")
_FAMILY_FIELDS = {f.name: f.default for cls in (pg_selfplay.Settings, td_selfplay.Settings)
                  for f in fields(cls)}
_LEARNER_DEFAULTS = {k: _FAMILY_FIELDS[k] for k in LEARNER_KEYS}
_LEARNING = {**_LEARNER_DEFAULTS, "games_per_job": 10}
#: Sizes added after the first runs were made, with the value that reads those runs as made:
#: ``match_opening_plies`` 0, every evaluation game from the standard position; ``td_alpha``
#: None, the TD learners' step is ``alpha`` like the others' (a number: TD(λ) and TDLeaf(λ)
#: learn with it instead -- the step that goes with a TD scale β, as α/β² keeps the step in
#: value space).
_LATER_DEFAULTS = {"match_opening_plies": 0, "td_alpha": None}
PROFILES = {
    "quick": {"n_games": 300, "replicates": 1, "algorithms": list(ALGORITHMS),
              "rewards": list(REWARDS), "keep_points": [100, 200, 300],
              "table_points": [300], "curve_points": [0, 100, 300],
              "round_robin_games": 20, "gauntlet_games": 20, "node_budget": 500,
              "max_depth": 32, **_LATER_DEFAULTS, **_LEARNING},
    "paper": {"n_games": 100_000, "replicates": 3, "algorithms": list(ALGORITHMS),
              "rewards": list(REWARDS),
              "keep_points": [100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000],
              "table_points": [1000, 10_000, 100_000],
              "curve_points": [0, 1000, 10_000, 100_000],
              "round_robin_games": 400, "gauntlet_games": 400, "node_budget": 5000,
              "max_depth": 32, **_LATER_DEFAULTS, **_LEARNING},
}


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


@dataclass(frozen=True)
class PGLeafConfig(ExperimentConfig):
    """One run of the experiment, every size typed and every relation between them checked.

    Made by :func:`pgleaf_config` (from a profile with overrides, or from a run's stored
    sizes); constructing it directly or with :func:`dataclasses.replace` validates it the same
    way (``ValueError`` naming the field and the problem). As a mapping it reads as the plain
    sizes that a run's provenance stores (lists for the tuples;
    :class:`~gamelib.experiments.config.ExperimentConfig`).

    Attributes
    ----------
    n_games : int
        Self-play games of every run, a multiple of ``M``.
    replicates : int
        Training runs of every algorithm and reward.
    algorithms, rewards : tuple of str
        Distinct learners of :data:`ALGORITHMS` and reward settings of
        :data:`~gamelib.learn.selfplay.REWARDS`.
    keep_points : tuple of int
        Games after which the parameters are kept for good: increasing multiples of ``M``,
        ending at ``n_games`` (the report saves the final parameters).
    table_points : tuple of int
        Games after which the round-robins are played; kept points.
    curve_points : tuple of int
        Games after which the gauntlet is played; kept points or 0 (the initial parameters).
    round_robin_games, gauntlet_games : int
        Games per pairing of the round-robins and per point of the gauntlet (even when
        ``match_opening_plies`` > 0: each opening is played with both colours).
    node_budget, max_depth : int
        The evaluation games' search (:class:`~gamelib.experiments.pgleaf.matches.MatchSettings`).
    match_opening_plies : int
        Random plies opening the evaluation games (0: the standard position), below
        ``max_plies``.
    td_alpha : float or None
        The TD learners' step instead of ``alpha`` (None: ``alpha``).
    game : str
        The registered game (:mod:`gamelib.games.registry`) the learners play: ``"minishogi"``
        (the paper's, and the default: left out of the stored sizes) or ``"othello"`` (no
        non-MDP reward, no tempo feature, no side halves: ``rewards`` ``["mdp"]``).
    eval_unit : float
        ``c``, the game's evaluation unit relative to the paper's 5×5 shogi evaluation (a pawn =
        0.02): the sizes stated in the paper's units are converted by their dimension --
        temperatures, the matches' noise standard deviation and the starting noise times ``c``,
        the TD scale ``beta`` divided by ``c``, the steps ``alpha`` and ``td_alpha`` times
        ``c²`` (:func:`settings_of`, :func:`match_settings`, :func:`init_scale`). 1 (the default,
        left out of the stored sizes): no conversion.
    alpha, gamma, temperature, M, lam, beta, baseline, qdepth, max_plies, bonus, learn_tempo, \
tie_sides
        The learners' settings (:func:`gamelib.learn.learners.settings`, which
        validates them for every algorithm).
    games_per_job : int
        Policy-gradient games per job of the training.
    """

    n_games: int
    replicates: int
    algorithms: tuple[str, ...]
    rewards: tuple[str, ...]
    keep_points: tuple[int, ...]
    table_points: tuple[int, ...]
    curve_points: tuple[int, ...]
    round_robin_games: int
    gauntlet_games: int
    node_budget: int
    max_depth: int
    match_opening_plies: int
    td_alpha: float | None
    game: str
    eval_unit: float
    alpha: float
    gamma: float
    temperature: float | None
    M: int
    lam: float
    beta: float
    baseline: str
    qdepth: int | None
    max_plies: int
    bonus: float
    learn_tempo: bool
    tie_sides: bool
    games_per_job: int

    EXPERIMENT = "pgleaf"
    IMPLICIT = {"game": "minishogi", "eval_unit": 1.0}
    LATER_DEFAULTS = {**_LEARNER_DEFAULTS, **_LATER_DEFAULTS, **IMPLICIT}

    def __post_init__(self):
        set_ = self._set
        for name in ("n_games", "replicates", "M", "round_robin_games", "gauntlet_games",
                     "node_budget", "max_depth", "max_plies", "games_per_job"):
            set_(name, check_integer(name, getattr(self, name), 1))
        set_("match_opening_plies", check_integer("match_opening_plies",
                                                  self.match_opening_plies, 0))
        for name, valid in (("algorithms", ALGORITHMS), ("rewards", REWARDS)):
            set_(name, choices(name, getattr(self, name), valid))
        for name, low in (("keep_points", 1), ("table_points", 1), ("curve_points", 0)):
            set_(name, increasing_integers(name, getattr(self, name), low))
        if self.td_alpha is not None:
            check_number("td_alpha", self.td_alpha, 0.0, low_open=True)
        set_("eval_unit", check_number("eval_unit", self.eval_unit, 0.0, low_open=True))
        if not isinstance(self.game, str):
            raise ValueError(f"game must be the name of a registered game, got {self.game!r}")
        game = registry.get(self.game)       # (an unknown game: one error listing the known)
        if self.game == "minishogi" and self.eval_unit != 1.0:
            raise ValueError(f"eval_unit must be 1 for 5×5 shogi, whose evaluation is in the "
                             f"paper's units (got {self.eval_unit!r})")
        self._check_relations()
        for algorithm in ALGORITHMS:    # the learners' settings validate every learner field
            for reward in self.rewards:  # (a run's record keeps them all: run_record)
                settings = settings_of(RunSpec(algorithm, reward, 0), self)
                if algorithm in self.algorithms:
                    check_game(game, settings)

    def _check_relations(self) -> None:
        """The relations between the sizes (each field already valid on its own)."""
        m, n = self.M, self.n_games
        if n % m:
            raise ValueError(f"n_games ({n}) must be a multiple of M ({m}), the games per batch")
        for name in ("keep_points", "table_points"):
            bad = [p for p in getattr(self, name) if p % m or p > n]
            if bad:
                raise ValueError(f"{name} {bad} must be multiples of M ({m}) and at most "
                                 f"n_games ({n})")
        keep = self.keep_points
        if keep[-1] != n:
            raise ValueError(f"n_games ({n}) must be the last of keep_points {list(keep)}: the "
                             f"parameters after the last game are kept (the report saves them)")
        for name in ("table_points", "curve_points"):
            bad = [p for p in getattr(self, name) if p and p not in keep]
            if bad:
                raise ValueError(f"{name} {bad} must be in keep_points {list(keep)} (only "
                                 f"kept parameters, and the initial ones at 0, can play)")
        if self.match_opening_plies:
            odd = [k for k in ("round_robin_games", "gauntlet_games") if getattr(self, k) % 2]
            if odd:
                raise ValueError(f"{' and '.join(odd)} must be even with match_opening_plies "
                                 f"> 0 (each opening is played with both colours)")
            below_cap(self, "match_opening_plies", self.max_plies, "the games'")


def pgleaf_config(sizes: Mapping[str, Any]) -> PGLeafConfig:
    """The typed configuration of ``sizes``: a profile of :data:`PROFILES` with overrides (the
    command line's ``-p KEY VALUE``), or the sizes a run stored in its provenance (a
    :class:`PGLeafConfig` is returned as it is).

    Sizes that runs made before they existed lack read as those runs were made: the learner
    settings as :mod:`gamelib.learn.learners`' defaults,
    ``match_opening_plies`` 0 and ``td_alpha`` None.

    Raises
    ------
    ValueError
        Naming the field and the problem: an unknown or missing size, a bad value, or sizes
        that do not fit together (e.g. ``n_games`` beyond the last of ``keep_points``).
    """
    return PGLeafConfig.of(sizes)


def profile_config(profile: str, **overrides) -> PGLeafConfig:
    """:func:`pgleaf_config` of the profile ``profile`` of :data:`PROFILES` with ``overrides``."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; valid: {', '.join(PROFILES)}")
    return pgleaf_config({**PROFILES[profile], **overrides})


def game_sizes(game: str) -> dict:
    """The sizes that playing ``game`` changes in every profile (the command line's ``--game``):
    ``game``, and ``rewards`` ``["mdp"]`` for a game without the non-MDP reward's shaping bonus
    (Othello)."""
    g = registry.get(game)
    out = {"game": g.name}
    if not g.HAS_BONUS:
        out["rewards"] = ["mdp"]
    return out


def runs_of(config: PGLeafConfig) -> list[RunSpec]:
    """Every run of the experiment, replicate by replicate, reward by reward."""
    return [RunSpec(a, r, k) for k in range(config.replicates) for r in config.rewards
            for a in config.algorithms]


def settings_of(run: RunSpec, config: PGLeafConfig) -> SelfPlaySettings:
    """The run's learner settings (:func:`gamelib.learn.learners.settings`: the paper's, with
    the configuration's values of the learner's fields; a TD learner's step is ``td_alpha``
    where that is set), converted to the game's evaluation unit ``c = eval_unit`` where it is
    not 1 (:meth:`~gamelib.learn.selfplay.SelfPlaySettings.in_unit`: the temperature times
    ``c``, the step times ``c²``, a TD learner's ``beta`` divided by ``c``)."""
    learner = learners.get(run.algorithm)
    own = learner.module.Settings.__dataclass_fields__
    values = {k: getattr(config, k) for k in LEARNER_KEYS if k in own}
    if config.td_alpha is not None and run.algorithm in TD_ALGORITHMS:
        values["alpha"] = config.td_alpha
    c = config.eval_unit       # (c = 1 changes nothing: x·1.0 and x/1.0 are exact)
    return learner.settings(run.reward, **values).in_unit(c)


def run_record(run: RunSpec, config: PGLeafConfig) -> dict:
    """The run's settings as its training folder's identity states them: the learner's settings
    and, for the fields of the other family, the configuration's values (``lam`` and ``beta``,
    the latter in the game's unit, for a policy-gradient learner; ``M`` and ``baseline`` for a
    TD learner) -- the layout of the records of the runs made when one settings type held
    every learner's fields, kept so that those folders resume and read as made."""
    record = {k: getattr(config, k) for k in LEARNER_KEYS}
    record["beta"] = config.beta / config.eval_unit
    record.update(settings_of(run, config).as_dict())
    return {k: record[k] for k in ("algorithm", "reward") + LEARNER_KEYS}


def init_scale(config: PGLeafConfig) -> float:
    """The standard deviation of the starting noise on the weights the game's start leaves
    unset: :data:`INIT_SCALE` in the game's evaluation unit (times ``eval_unit``)."""
    return INIT_SCALE * config.eval_unit


#: The names the games' initial-weights functions had when the committed run folders were made
#: (part of the folders' identity, so kept although the modules have moved since: 5×5 shogi's is
#: now ``gamelib.games.minishogi.features.initial_theta``, Othello's
#: ``gamelib.games.othello.game.initial_theta``).
_INIT_FUNCTION = {"minishogi": "gamelib.evaluation.shogi.initial_theta",
                  "othello": "gamelib.games.othello.initial_theta"}


def train_config(config: PGLeafConfig) -> dict:
    """The identity of the training run folder: everything that changes the parameters."""
    game = registry.get(config.game)
    out = {"experiment": "pgleaf", "stage": "train",
           "runs": {run.key: run_record(run, config) for run in runs_of(config)},
           "init": {"function": _INIT_FUNCTION["minishogi"], "scale": INIT_SCALE,
                    "layout": ev.LAYOUT_NAME, "n_features": ev.N_FEATURES}}
    if config.game != "minishogi":   # (5×5 shogi's folders keep the identity they were made with)
        fn = game.initial_theta
        out["game"] = config.game
        out["init"] = {"function": _INIT_FUNCTION.get(config.game, f"{fn.__module__}.{fn.__qualname__}"),
                       "scale": init_scale(config),
                       "n_features": game.N_FEATURES}
    return out

"""The PGLeaf experiment's configuration: the profiles, the runs (algorithm × reward ×
replicate), their learner settings, and the identity of a training folder."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Mapping

from gamelib.evaluation import shogi as ev
from gamelib.learn.selfplay import ALGORITHMS, REWARDS, LearnerSettings
from gamelib.runtime.checks import check_integer, check_missing, check_number

#: The learners that learn by temporal differences (``td_alpha`` applies to them).
TD_ALGORITHMS = ("tdleaf", "td")
#: Display names and the paper's abbreviations.
ALGORITHM_LABELS = {"pgleaf": "PGLeaf", "reinforce": "REINFORCE", "tdleaf": "TDLeaf(λ)",
                    "td": "TD(λ)"}
ALGORITHM_ABBREVIATIONS = {"pgleaf": "PL", "reinforce": "RE", "tdleaf": "TL", "td": "TD"}
#: Column labels of the round-robin tables: display name -> the paper's abbreviation.
_COLUMN_LABELS = {ALGORITHM_LABELS[a]: ALGORITHM_ABBREVIATIONS[a] for a in ALGORITHM_LABELS}


def _nearest(points, target: int) -> int:
    """The point closest to ``target`` on a log scale (numbers of games)."""
    return min(points, key=lambda p: abs(math.log(p / target)))

#: The learners' settings a profile (and ``-p KEY VALUE`` on the command line) may set. Their
#: values are owned by :class:`~gamelib.learn.selfplay.LearnerSettings`: its defaults (the
#: paper's; ``None`` = the paper's value for each algorithm) are the profiles' values, and it
#: validates them.
LEARNER_KEYS = tuple(f.name for f in fields(LearnerSettings) if f.name not in ("algorithm",
                                                                               "reward"))
_LEARNER_DEFAULTS = {f.name: f.default for f in fields(LearnerSettings) if f.name in LEARNER_KEYS}
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


def _int_list(sizes, name, low=0):
    value = sizes[name]
    if not isinstance(value, (list, tuple)) or not value or any(
            isinstance(v, bool) or not isinstance(v, int) or v < low for v in value):
        raise ValueError(f"{name} must be a non-empty list of integers >= {low}, got {value!r}")
    if list(value) != sorted(set(value)):
        raise ValueError(f"{name} must be increasing without repeats, got {value!r}")
    return list(value)


def _check_sizes(sizes: Mapping[str, Any]) -> dict:
    """The sizes validated; learner settings a run's sizes lack (runs made before they could be
    set) are :class:`LearnerSettings`'s defaults, and ``match_opening_plies`` 0."""
    sizes = check_missing({**_LEARNER_DEFAULTS, **_LATER_DEFAULTS, **sizes}, PROFILES["quick"],
                          "the pgleaf experiment")
    for name in ("n_games", "replicates", "M", "round_robin_games", "gauntlet_games",
                 "node_budget", "max_depth", "max_plies", "games_per_job"):
        check_integer(name, sizes[name], 1)
    if check_integer("match_opening_plies", sizes["match_opening_plies"], 0):
        odd = [k for k in ("round_robin_games", "gauntlet_games") if sizes[k] % 2]
        if odd:
            raise ValueError(f"{' and '.join(odd)} must be even with match_opening_plies > 0 "
                             f"(each opening is played with both colours)")
        if sizes["match_opening_plies"] >= sizes["max_plies"]:
            raise ValueError(f"match_opening_plies ({sizes['match_opening_plies']}) must be "
                             f"below max_plies ({sizes['max_plies']})")
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
    if sizes["td_alpha"] is not None:
        check_number("td_alpha", sizes["td_alpha"], 0.0, low_open=True)
    for algorithm in sizes["algorithms"]:     # the settings' owner validates them
        settings_of(RunSpec(algorithm, sizes["rewards"][0], 0), sizes)
    return sizes


def runs_of(sizes: Mapping[str, Any]) -> list[RunSpec]:
    """Every run of the experiment, replicate by replicate, reward by reward."""
    return [RunSpec(a, r, k) for k in range(sizes["replicates"]) for r in sizes["rewards"]
            for a in sizes["algorithms"]]


def settings_of(run: RunSpec, sizes: Mapping[str, Any]) -> LearnerSettings:
    """The run's :class:`LearnerSettings` (the paper's, with the profile's learning sizes;
    a TD learner's step is ``td_alpha`` where that is set)."""
    values = {k: sizes[k] for k in LEARNER_KEYS}
    if sizes.get("td_alpha") is not None and run.algorithm in TD_ALGORITHMS:
        values["alpha"] = sizes["td_alpha"]
    return LearnerSettings(run.algorithm, run.reward, **values)


def train_config(sizes: Mapping[str, Any]) -> dict:
    """The identity of the training run folder: everything that changes the parameters."""
    sizes = _check_sizes(sizes)
    return {"experiment": "pgleaf", "stage": "train",
            "runs": {run.key: settings_of(run, sizes).as_dict() for run in runs_of(sizes)},
            "init": {"function": "gamelib.evaluation.shogi.initial_theta", "scale": 1e-4,
                     "layout": ev.LAYOUT_NAME, "n_features": ev.N_FEATURES}}

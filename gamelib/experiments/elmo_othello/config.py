"""The Othello elmo experiment's configuration: profiles, the losses compared, and the typed
configuration of a run (:class:`ElmoOthelloConfig`, made and validated as a whole by
:func:`elmo_othello_config`, the registry's ``check``; its mapping view is the ``sizes`` a run's
``provenance.json`` stores)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from gamelib.experiments.bonanza_othello.config import PROFILES as BONANZA_PROFILES
from gamelib.experiments.bonanza_othello.config import (BonanzaOthelloConfig,
                                                        bonanza_othello_config)
from gamelib.experiments.config import ExperimentConfig, distinct_numbers
from gamelib.experiments.elmo_shogi import loss_names
from gamelib.learn.elmo_positions import DeepSettings
from gamelib.runtime.checks import check_integer, check_number

__all__ = ["PROFILES", "CHUNK_SIZE", "MAX_DEPTH", "SHARED_SIZES", "ElmoOthelloConfig",
           "elmo_othello_config", "bonanza_view", "deep_settings"]

#: Positions per deep-search job (the numbers do not depend on it).
CHUNK_SIZE = 256
#: The teacher's deepest iteration: the matches' players' (the budget stops it first).
MAX_DEPTH = 32
#: The evaluation noise of the matches: bonanza_othello's (the PGLeaf study's on Othello).
_NOISE = 0.0085
_LAMBDAS = [0, 0.33, 0.5, 1]

#: ``quick``: about 20 s on one core once numba's cache is warm. ``paper`` sized to two cores
#: shared with other runs: the data of 1977-2020 in 20 s, a 5,000-node search
#: 2.2-3.2 ms a position alone (depth 5.8) and about 5.5 ms on busy cores (220,000 positions:
#: 10-20 min on two processes), AdaGrad 2 µs a position and epoch (5 losses × 10 epochs ×
#: 200,000: under a minute), a match game at 5,000 nodes 0.2-0.5 s (1,000 games: 2-4 min).
PROFILES = {
    "quick": {"first_year": 1977, "last_year": 1981, "test_fraction": 0.1, "n_train": 4000,
              "n_test": 1000, "node_budget": 1000, "positions_per_batch": 2500,
              "lambdas": list(_LAMBDAS), "n_epochs": 8, "batch_size": 64,
              "learning_rate": 0.003, "evals_per_epoch": 1, "match_games": 20,
              "match_nodes": 500, "match_opening_plies": 4, "match_noise_std": _NOISE},
    "paper": {"first_year": 1977, "last_year": 2020, "test_fraction": 0.05, "n_train": 200_000,
              "n_test": 20_000, "node_budget": 5000, "positions_per_batch": 30_000,
              "lambdas": list(_LAMBDAS), "n_epochs": 10, "batch_size": 256,
              "learning_rate": 0.003, "evals_per_epoch": 2, "match_games": 200,
              "match_nodes": 5000, "match_opening_plies": 4, "match_noise_std": _NOISE},
}


#: The sizes shared with :mod:`gamelib.experiments.bonanza_othello` (the records read and the
#: matches), checked by its configuration (:func:`bonanza_view`).
SHARED_SIZES = ("first_year", "last_year", "test_fraction", "match_games", "match_nodes",
                "match_opening_plies", "match_noise_std")


@dataclass(frozen=True)
class ElmoOthelloConfig(ExperimentConfig):
    """One run of the experiment, every size typed and every relation between them checked
    (``ValueError`` naming the field and the problem), however it is made.

    Attributes
    ----------
    first_year, last_year, match_games, match_nodes, match_opening_plies : int
        The WTHOR years read, and the matches' games per pairing (even), nodes per move and
        random opening plies: as in
        :class:`~gamelib.experiments.bonanza_othello.config.BonanzaOthelloConfig`, which checks
        them (:data:`SHARED_SIZES`).
    test_fraction, match_noise_std : float
        Held-out fraction of the games, and the matches' evaluation noise: the same.
    n_train, n_test : int
        Positions drawn from the training games and from the held-out games (at most the
        positions there are).
    node_budget : int
        Nodes of the teacher's deep search of every position.
    positions_per_batch : int
        Positions searched between two checkpoints of the teacher stage (the numbers do not
        depend on it).
    lambdas : tuple of float
        Distinct λ >= 0 of elmo's loss ``L + λH``, with distinct loss names (``elmo_<λ:g>``).
    n_epochs, batch_size, evals_per_epoch : int
        AdaGrad's passes over the training positions, positions per step, measuring points per
        epoch.
    learning_rate : float
        AdaGrad's η (positive).
    """

    first_year: int
    last_year: int
    test_fraction: float
    n_train: int
    n_test: int
    node_budget: int
    positions_per_batch: int
    lambdas: tuple[float, ...]
    n_epochs: int
    batch_size: int
    learning_rate: float
    evals_per_epoch: int
    match_games: int
    match_nodes: int
    match_opening_plies: int
    match_noise_std: float

    EXPERIMENT = "elmo_othello"

    def __post_init__(self):
        for name in ("n_train", "n_test", "node_budget", "positions_per_batch", "batch_size",
                     "evals_per_epoch"):
            self._set(name, check_integer(name, getattr(self, name), 1))
        self._set("n_epochs", check_integer("n_epochs", self.n_epochs, 0))
        check_number("learning_rate", self.learning_rate, 0, low_open=True)
        self._set("lambdas", distinct_numbers("lambdas", self.lambdas, 0))
        names = loss_names({"lambdas": self.lambdas})
        if len(names) != len(self.lambdas) + 1:          # two λ, one name
            raise ValueError(f"lambdas {list(self.lambdas)} must differ in their first 6 "
                             f"significant digits: their losses are named "
                             f"{[f'elmo_{float(lam):g}' for lam in self.lambdas]}")
        checked = bonanza_view(self)
        for name in SHARED_SIZES:
            self._set(name, getattr(checked, name))


def bonanza_view(sizes) -> BonanzaOthelloConfig:
    """The :data:`SHARED_SIZES` of ``sizes`` in a bonanza_othello configuration (its other sizes
    its quick profile's): their check, with that experiment's messages naming the field."""
    return bonanza_othello_config({**BONANZA_PROFILES["quick"],
                                   **{name: sizes[name] for name in SHARED_SIZES}})


def elmo_othello_config(sizes: Mapping[str, Any]) -> ElmoOthelloConfig:
    """The typed configuration of ``sizes`` (a profile of :data:`PROFILES` with overrides, or the
    sizes a run stored); an :class:`ElmoOthelloConfig` is returned as it is. ``ValueError``
    names the field and the problem."""
    return ElmoOthelloConfig.of(sizes)


def deep_settings(sizes) -> DeepSettings:
    """The teacher's search (:class:`gamelib.learn.elmo_positions.DeepSettings`): ``node_budget``
    nodes, iterations to :data:`MAX_DEPTH`, no game-length cap (an Othello game ends within
    120 plies), the players' table size."""
    return DeepSettings(node_budget=sizes["node_budget"], max_depth=MAX_DEPTH)


"""The Othello Bonanza experiment's configuration: profiles, the learners compared, and the
typed configuration of a run (:class:`BonanzaOthelloConfig`, made and validated as a whole by
:func:`bonanza_othello_config`, the registry's ``check``; its mapping view is the ``sizes`` a
run's ``provenance.json`` stores)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from gamelib.experiments.config import ExperimentConfig, choices
from gamelib.learn.bonanza_search import SearchSettings
from gamelib.learn.bonanza_steps import BonanzaSettings
from gamelib.runtime.checks import check_integer, check_number

__all__ = ["PROFILES", "VARIANTS", "CHUNK_SIZE", "REDUCTION", "FIRST_WTHOR_YEAR",
           "BonanzaOthelloConfig", "bonanza_othello_config", "variant_settings",
           "variant_constraint"]

#: The first year of the WTHOR records.
FIRST_WTHOR_YEAR = 1977
#: Positions per search job of the learners and of the measurements.
CHUNK_SIZE = 512
#: How the searches' sums are added (:func:`gamelib.learn.bonanza_search.chunk_sums`):
#: ``"chunks"``, each chunk's J and gradient summed where it is searched (the sums travel, not
#: the leaves), so the numbers depend on :data:`CHUNK_SIZE` but not on the workers.
REDUCTION = "chunks"
#: The evaluation noise of the matches (standard deviation, evaluation units): the PGLeaf
#: study's on Othello, √0.001 × c with its unit c = 0.2702 (0.00854), rounded.
_NOISE = 0.0085
_VARIANTS = ["minibatch", "minibatch_no_constraint", "minibatch_l1"]

PROFILES = {
    "quick": {"first_year": 1977, "last_year": 1981, "test_fraction": 0.1, "n_epochs": 3,
              "batch_size": 2000, "learning_rate": 3e-4, "l1_weight": 0.05, "search_depth": 1,
              "n_train_eval": 2000, "variants": list(_VARIANTS), "match_games": 20,
              "match_nodes": 500, "match_opening_plies": 4, "match_noise_std": _NOISE},
    "paper": {"first_year": 1977, "last_year": 2020, "test_fraction": 0.05, "n_epochs": 2,
              "batch_size": 10_000, "learning_rate": 3e-4, "l1_weight": 0.05, "search_depth": 1,
              "n_train_eval": 50_000, "variants": _VARIANTS[:2], "match_games": 100,
              "match_nodes": 5000, "match_opening_plies": 4, "match_noise_std": _NOISE},
}

#: The learners compared: name -> (description). Every one is the mini-batch learner
#: (``batch_size`` positions a step, their PV leaves searched afresh at every step), started
#: from the classic square weights.
VARIANTS = {
    "minibatch": "mini-batch, the scale constraint (the classic component of the weights stays "
                 "1: gamelib.learn.bonanza_othello.scale_constraint)",
    "minibatch_no_constraint": "mini-batch, no constraint",
    "minibatch_l1": "mini-batch, the scale constraint, L1 (proximal) on every weight",
}
#: Each variant's constraint (:data:`gamelib.learn.bonanza_othello.CONSTRAINTS`).
_CONSTRAINTS = {"minibatch": "classic", "minibatch_no_constraint": "none",
                "minibatch_l1": "classic"}


@dataclass(frozen=True)
class BonanzaOthelloConfig(ExperimentConfig):
    """One run of the experiment, every size typed and every relation between them checked
    (``ValueError`` naming the field and the problem), however it is made.

    Attributes
    ----------
    first_year, last_year : int
        The WTHOR years read (inclusive; from :data:`FIRST_WTHOR_YEAR`).
    test_fraction : float
        Held-out fraction of the games, in (0, 1) (it must leave a test and a training game:
        checked against the records' game count before the run writes anything).
    n_epochs, batch_size : int
        Epochs (an epoch's steps use every training position once) and positions per step.
    learning_rate : float
        η of the steps (positive).
    l1_weight : float
        >= 0; positive when ``variants`` has ``minibatch_l1`` (else it repeats ``minibatch``).
    search_depth : int
        Full-width plies of the search of every legal move (the move itself is ply 1; Othello has
        no quiescence plies).
    n_train_eval : int
        Training positions of the fixed sample the learners are measured on.
    variants : tuple of str
        Distinct names of :data:`VARIANTS`.
    match_games, match_nodes, match_opening_plies : int
        Games per pairing (even: each random opening is played with both colours; 0: no
        matches), nodes per move, random opening plies (at least 1 with matches).
    match_noise_std : float
        Standard deviation of the Gaussian noise on every evaluation in the matches (>= 0).
    """

    first_year: int
    last_year: int
    test_fraction: float
    n_epochs: int
    batch_size: int
    learning_rate: float
    l1_weight: float
    search_depth: int
    n_train_eval: int
    variants: tuple[str, ...]
    match_games: int
    match_nodes: int
    match_opening_plies: int
    match_noise_std: float

    EXPERIMENT = "bonanza_othello"

    def __post_init__(self):
        for name in ("n_epochs", "batch_size", "search_depth", "n_train_eval", "match_nodes"):
            self._set(name, check_integer(name, getattr(self, name), 1))
        for name in ("match_games", "match_opening_plies"):
            self._set(name, check_integer(name, getattr(self, name), 0))
        for name in ("first_year", "last_year"):
            self._set(name, check_integer(name, getattr(self, name), FIRST_WTHOR_YEAR))
        check_number("test_fraction", self.test_fraction, 0, 1, low_open=True, high_open=True)
        check_number("learning_rate", self.learning_rate, 0, low_open=True)
        check_number("l1_weight", self.l1_weight, 0)
        check_number("match_noise_std", self.match_noise_std, 0)
        self._set("variants", choices("variants", self.variants, VARIANTS))
        self._check_relations()
        for variant in self.variants:            # the learners' settings validate them
            variant_settings(variant, self)

    def _check_relations(self) -> None:
        if self.first_year > self.last_year:
            raise ValueError(f"first_year {self.first_year} is after last_year {self.last_year}")
        if self.l1_weight == 0 and "minibatch_l1" in self.variants:
            raise ValueError("l1_weight must be positive with variant 'minibatch_l1', which "
                             "differs from 'minibatch' only by its L1 term; with l1_weight 0 "
                             "it would repeat it")
        if self.match_games % 2:
            raise ValueError(f"match_games must be even (each random opening is played with "
                             f"both colours), got {self.match_games}")
        if self.match_games and not 1 <= self.match_opening_plies <= 20:
            raise ValueError(f"match_opening_plies must be 1..20 with matches (the games start "
                             f"from random openings), got {self.match_opening_plies}")


def bonanza_othello_config(sizes: Mapping[str, Any]) -> BonanzaOthelloConfig:
    """The typed configuration of ``sizes`` (a profile of :data:`PROFILES` with overrides, or the
    sizes a run stored); a :class:`BonanzaOthelloConfig` is returned as it is. ``ValueError``
    names the field and the problem."""
    return BonanzaOthelloConfig.of(sizes)


def variant_constraint(variant: str) -> str:
    """The constraint of ``variant``: ``"classic"`` or ``"none"``
    (:func:`gamelib.learn.bonanza_othello.constraint_of`)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; valid: {list(VARIANTS)}")
    return _CONSTRAINTS[variant]


def variant_settings(variant: str, sizes) -> BonanzaSettings:
    """The learner's :class:`~gamelib.learn.bonanza_steps.BonanzaSettings` of a variant (its
    constraint: :func:`variant_constraint`)."""
    variant_constraint(variant)
    search = SearchSettings(depth=sizes["search_depth"], qdepth=0)
    l1 = (dict(l1_weight=float(sizes["l1_weight"]), l1_step="proximal")
          if variant == "minibatch_l1" else {})
    return BonanzaSettings(batch_size=sizes["batch_size"], refresh_every=1,
                           learning_rate=float(sizes["learning_rate"]), search=search,
                           chunk_size=CHUNK_SIZE, **l1)

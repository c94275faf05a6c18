"""The Bonanza experiment's configuration: profiles, the learners compared, the teacher, and
the typed configuration of a run (:class:`BonanzaConfig`, made and validated as a whole by
:func:`bonanza_config`, the registry's ``check``, and passed down; its mapping view is the
``sizes`` a run's ``provenance.json`` stores)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from gamelib.experiments.config import ExperimentConfig, below_cap, choices
from gamelib.learn import bonanza_shogi as bs
from gamelib.games.minishogi import rules as R
from gamelib.play.expert_games import ExpertSettings
from gamelib.runtime.checks import check_integer, check_number


#: Teacher games per resumable batch.
GAMES_PER_BATCH = 20

PROFILES = {
    "quick": {"n_games": 40, "teacher_nodes": 5000, "opening_plies": 4, "test_fraction": 0.25,
              "n_epochs": 5, "batch_size": 64, "batch_refresh_every": 4,
              "batch_learning_rate": 2.5e-4, "minibatch_learning_rate": 1e-4, "l1_weight": 0.05,
              "qdepth": 4, "n_train_eval": 200, "constraint": "hand",
              "variants": ["batch", "minibatch", "minibatch_material", "minibatch_no_constraint",
                           "minibatch_l1"],
              "match_games": 16, "match_nodes": 1500, "match_opening_plies": 2},
    "paper": {"n_games": 3000, "teacher_nodes": 50_000, "opening_plies": 4,
              "test_fraction": 0.1, "n_epochs": 20, "batch_size": 256,
              "batch_refresh_every": 4, "batch_learning_rate": 2.5e-4,
              "minibatch_learning_rate": 1e-4, "l1_weight": 0.05, "qdepth": 4,
              "n_train_eval": 3000, "constraint": "hand",
              "variants": ["batch", "minibatch", "minibatch_material", "minibatch_no_constraint",
                           "minibatch_l1"],
              "match_games": 400, "match_nodes": 20_000, "match_opening_plies": 2},
}

#: The learners compared: name -> (description, how it differs from the mini-batch learner).
#: "the constraint" is the profile's ``constraint`` size: ``"hand"`` (the sources': the sum of the
#: hand pieces' values stays constant) or ``"material"`` (the sum of every material weight, board
#: and hand; the material-sum run's).
VARIANTS = {
    "batch": "batch (all positions per step, PVs recomputed every batch_refresh_every steps), "
             "the constraint",
    "minibatch": "mini-batch of batch_size positions, PVs recomputed every step, the constraint",
    "minibatch_material": "mini-batch, material-sum constraint (board and hand) instead of the "
                          "profile's hand-sum constraint",
    "minibatch_no_constraint": "mini-batch, no constraint",
    "minibatch_l1": "mini-batch, the constraint, L1 (proximal) on the positional weights",
}

#: The constraint of a run whose provenance predates the ``constraint`` size.
FORMER_CONSTRAINT = "material"


@dataclass(frozen=True)
class BonanzaConfig(ExperimentConfig):
    """One run of the experiment, every size typed and every relation between them checked
    (``ValueError`` naming the field and the problem), however it is made: by
    :func:`bonanza_config`, directly, or with :func:`dataclasses.replace`.

    Attributes
    ----------
    n_games, teacher_nodes, opening_plies
        Teacher games, the teacher's nodes per move and random opening plies (below the
        teacher's ply cap; :class:`~gamelib.play.expert_games.ExpertSettings`).
    test_fraction : float
        Held-out fraction of the games, in (0, 1), leaving at least one test and one training
        game (``round(test_fraction * n_games)`` test games).
    n_epochs, batch_size, batch_refresh_every : int
    batch_learning_rate, minibatch_learning_rate : float
        Positive.
    l1_weight : float
        >= 0; positive when ``variants`` has ``minibatch_l1`` (else it repeats ``minibatch``).
    qdepth, n_train_eval : int
    constraint : str
        ``"hand"`` or ``"material"`` (then ``minibatch_material`` would repeat ``minibatch``).
    variants : tuple of str
        Distinct names of :data:`VARIANTS`; each variant's
        :class:`~gamelib.learn.bonanza_shogi.BonanzaSettings` validates it.
    match_games, match_nodes, match_opening_plies : int
        Games per pairing (0: no matches), nodes per move, random opening plies (below the
        matches' ply cap).
    """

    n_games: int
    teacher_nodes: int
    opening_plies: int
    test_fraction: float
    n_epochs: int
    batch_size: int
    batch_refresh_every: int
    batch_learning_rate: float
    minibatch_learning_rate: float
    l1_weight: float
    qdepth: int
    n_train_eval: int
    constraint: str
    variants: tuple[str, ...]
    match_games: int
    match_nodes: int
    match_opening_plies: int

    EXPERIMENT = "bonanza_shogi"
    #: A run whose provenance predates the ``constraint`` size had the material sum.
    LATER_DEFAULTS = {"constraint": FORMER_CONSTRAINT}

    def __post_init__(self):
        for name in ("n_games", "teacher_nodes", "n_epochs", "batch_size", "batch_refresh_every",
                     "n_train_eval", "match_nodes"):
            self._set(name, check_integer(name, getattr(self, name), 1))
        for name in ("opening_plies", "qdepth", "match_games", "match_opening_plies"):
            self._set(name, check_integer(name, getattr(self, name), 0))
        check_number("test_fraction", self.test_fraction, 0, 1, low_open=True, high_open=True)
        for name in ("batch_learning_rate", "minibatch_learning_rate"):
            check_number(name, getattr(self, name), 0, low_open=True)
        check_number("l1_weight", self.l1_weight, 0)
        self._set("variants", choices("variants", self.variants, VARIANTS))
        if self.constraint not in ("hand", "material"):
            raise ValueError(f"constraint must be 'hand' or 'material', got {self.constraint!r}")
        self._check_relations()
        for variant in self.variants:            # the learners' settings validate them
            variant_settings(variant, self)

    def _check_relations(self) -> None:
        """The relations between the sizes (each field already valid on its own)."""
        if self.constraint == "material" and "minibatch_material" in self.variants:
            raise ValueError("variant 'minibatch_material' differs from 'minibatch' only by its "
                             "constraint; with constraint 'material' it would repeat it")
        if self.l1_weight == 0 and "minibatch_l1" in self.variants:
            raise ValueError("l1_weight must be positive with variant 'minibatch_l1', which "
                             "differs from 'minibatch' only by its L1 term; with l1_weight 0 "
                             "it would repeat it")
        n_test = round(self.test_fraction * self.n_games)
        if n_test < 1 or n_test >= self.n_games:
            raise ValueError(f"test_fraction {self.test_fraction} of {self.n_games} games leaves "
                             f"no test or no training game")
        cap = teacher_settings(self).max_plies   # (which validates the teacher's settings)
        below_cap(self, "opening_plies", cap, "the teacher games'")
        below_cap(self, "match_opening_plies", R.DEFAULT_MAX_PLIES, "the matches'")


def bonanza_config(sizes: Mapping[str, Any]) -> BonanzaConfig:
    """The typed configuration of ``sizes``: a profile of :data:`PROFILES` with overrides (the
    command line's ``-p KEY VALUE``), or the sizes a run stored in its provenance (one made
    before ``constraint`` was a size reads as made, with the material sum); a
    :class:`BonanzaConfig` is returned as it is. ``ValueError`` names the field and the
    problem."""
    return BonanzaConfig.of(sizes)


def teacher_settings(sizes) -> ExpertSettings:
    """The teacher of the profile."""
    return ExpertSettings(node_budget=sizes["teacher_nodes"], opening_plies=sizes["opening_plies"])


def variant_settings(variant: str, sizes) -> bs.BonanzaSettings:
    """The :class:`~gamelib.learn.bonanza_shogi.BonanzaSettings` of a variant."""
    search = bs.SearchSettings(depth=1, qdepth=sizes["qdepth"])
    constraint = sizes["constraint"]
    if variant == "batch":
        return bs.BonanzaSettings(None, sizes["batch_refresh_every"],
                                  float(sizes["batch_learning_rate"]), constraint=constraint,
                                  search=search)
    common = dict(batch_size=sizes["batch_size"], refresh_every=1,
                  learning_rate=float(sizes["minibatch_learning_rate"]), search=search)
    if variant == "minibatch":
        return bs.BonanzaSettings(**common, constraint=constraint)
    if variant == "minibatch_material":
        return bs.BonanzaSettings(**common, constraint="material")
    if variant == "minibatch_no_constraint":
        return bs.BonanzaSettings(**common, constraint="none")
    if variant == "minibatch_l1":
        return bs.BonanzaSettings(**common, constraint=constraint,
                                  l1_weight=float(sizes["l1_weight"]), l1_step="proximal")
    raise ValueError(f"unknown variant {variant!r}; valid: {list(VARIANTS)}")

"""The Bonanza experiment's configuration: profiles, the learners compared, the teacher."""

from __future__ import annotations

from typing import Any, Mapping


from gamelib.runtime.checks import check_integer, check_missing, check_number
from gamelib.learn import bonanza_shogi as bs


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
    if sizes["constraint"] not in ("hand", "material"):
        raise ValueError(f"constraint must be 'hand' or 'material', got {sizes['constraint']!r}")
    if sizes["constraint"] == "material" and "minibatch_material" in variants:
        raise ValueError("variant 'minibatch_material' differs from 'minibatch' only by its "
                         "constraint; with constraint 'material' it would repeat it")
    n_test = round(tf * sizes["n_games"])
    if n_test < 1 or n_test >= sizes["n_games"]:
        raise ValueError(f"test_fraction {tf} of {sizes['n_games']} games leaves no test or no "
                         f"training game")
    return sizes


def teacher_settings(sizes) -> bs.ExpertSettings:
    """The teacher of the profile."""
    return bs.ExpertSettings(node_budget=sizes["teacher_nodes"],
                              opening_plies=sizes["opening_plies"])


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

"""A toy game for the tournament tests: the outcome is drawn from an Elo model with a
first-move advantage, seeded by the game's seed."""

import numpy as np

from gamelib.play.stats import expected_score

STRENGTH = {"PGLeaf": 150.0, "REINFORCE": -100.0, "TDLeaf": 100.0, "TD": 0.0, "ref": 50.0}
FIRST_MOVE_ELO = 60.0
DRAW_RATE = 0.1


def play_game(spec):
    rng = np.random.default_rng(spec.seed)
    p = expected_score(STRENGTH[spec.first] - STRENGTH[spec.second] + FIRST_MOVE_ELO)
    u = rng.random()
    if u < DRAW_RATE:
        return 0
    return 1 if rng.random() < p else -1


def bad_game(spec):
    return 2 if spec.index == 5 else 1

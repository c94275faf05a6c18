"""The PGLeaf experiment's training stage on Othello (``game = "othello"``): the four learners
learn by self-play with the linear Othello evaluation, the results do not depend on the number
of workers, the kept parameters read back, and what Othello lacks is refused when the
configuration is made, before anything runs. For 5×5 shogi the stored sizes and the training
folder's identity are those of the runs made before there was a choice of game.
"""

import numpy as np
import pytest

from gamelib.experiments import pgleaf
from gamelib.games import registry
from gamelib.runtime.seeds import derive_seed

GAME = registry.get("othello")
SIZES = pgleaf.profile_config("quick", game="othello", rewards=["mdp"], n_games=12, M=4,
                              games_per_job=2, keep_points=[4, 12], table_points=[12],
                              curve_points=[0, 12])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return {workers: pgleaf.train(tmp_path_factory.mktemp(f"w{workers}"), SIZES, 5, workers=workers)
            for workers in (1, 2)}


def test_the_learners_learn_othello_and_workers_change_nothing(runs):
    one, two = runs[1].state, runs[2].state
    assert one.keys() == two.keys()
    theta0 = pgleaf.initial_theta(5, 0, "othello")
    assert np.array_equal(theta0, GAME.initial_theta(derive_seed(5, "init", 0), 1e-4))
    for run in pgleaf.runs_of(SIZES):
        theta = one[f"theta/{run.key}"]
        assert theta.tobytes() == two[f"theta/{run.key}"].tobytes(), run.key
        assert theta.shape == (GAME.N_FEATURES,) and np.abs(theta - theta0).max() > 1e-6, run.key
        stats = one[f"stats/{run.key}"]
        assert stats.shape == (3, 6) and stats[:, :3].sum() == 12
        assert np.all(stats[:, 3] >= 58 * stats[:, :3].sum(axis=1))   # an Othello game: >= 58 plies
        assert not stats[:, 5].any()                                   # no mirror replies outside shogi
    kept = pgleaf.trained_theta(runs[1].folder, SIZES, 5, 12)
    assert all(np.array_equal(kept[k], one[f"theta/{k}"]) for k in kept)


def test_the_sizes_name_the_game_and_shogi_stays_as_stored():
    assert dict(SIZES)["game"] == "othello" and pgleaf.pgleaf_config(dict(SIZES)) == SIZES
    assert pgleaf.train_config(SIZES)["game"] == "othello"
    shogi = pgleaf.profile_config("quick")
    assert shogi.game == "minishogi" and "game" not in dict(shogi)
    assert "game" not in pgleaf.train_config(shogi)
    assert pgleaf.pgleaf_config(dict(shogi)) == shogi


@pytest.mark.parametrize("change, message", [
    ({}, "non-MDP reward needs a game with a shaping bonus; othello has none"),
    ({"rewards": ["mdp"], "tie_sides": True}, "othello's evaluation has no side halves"),
    ({"rewards": ["mdp"], "learn_tempo": False}, "othello's evaluation has no tempo feature"),
    ({"rewards": ["mdp"], "game": "chess"}, "unknown game 'chess'; registered: minishogi, othello"),
])
def test_what_othello_lacks_is_refused_when_the_configuration_is_made(change, message):
    with pytest.raises(ValueError, match=message):
        pgleaf.profile_config("quick", **{"game": "othello", **change})

"""The TD learners' squashing scale is a temperature: with θ′ = βθ, TD(λ)/TDLeaf(λ) at scale β
with step α/β² and temperature T is the learner at β = 1 with step α and temperature βT, started
from βθ₀ (:mod:`gamelib.learn.td`, "Scale and temperature").

Why: ``v′ = θ′·φ = βv``, ``tanh(βv) = tanh(v′)``, the step on θ′ is ``β (α/β²) e β (1 − J̃²) φ =
α e (1 − J̃²) φ``, and ``softmax(v/T) = softmax(v′/(βT))``. Not bit for bit: βθ·φ and β(θ·φ)
round differently, and the search's game-end scores ±(1000 − ply) are constants that do not
scale (a choice between a mate and a longer mate is weighted differently; it changes no θ).
"""

import numpy as np
import pytest

from gamelib.experiments.pgleaf.closest import KNIGHTCAP_BETA
from gamelib.experiments.pgleaf.training import initial_theta
from gamelib.learn.learners import settings as learner_settings
from gamelib.learn.td_selfplay import play_td_games

ALPHA, T = 0.001, 0.03
SEEDS = np.arange(1000, 1200)


def _pair(algorithm, beta=KNIGHTCAP_BETA, temperature_b=None, start_b=None):
    theta0 = initial_theta(0, 0)
    scaled = learner_settings(algorithm, beta=beta, alpha=ALPHA / beta ** 2, temperature=T,
                             tie_sides=True)
    unit = learner_settings(algorithm, beta=1.0, alpha=ALPHA, tie_sides=True,
                           temperature=beta * T if temperature_b is None else temperature_b)
    theta_a, games_a = play_td_games(theta0, scaled, SEEDS)
    theta_b, games_b = play_td_games(beta * theta0 if start_b is None else start_b, unit, SEEDS)
    return theta_a, games_a, theta_b, games_b


@pytest.mark.parametrize("algorithm", ["td", "tdleaf"])
def test_scale_beta_with_step_alpha_over_beta_squared_is_temperature_beta_t(algorithm):
    theta_a, games_a, theta_b, games_b = _pair(algorithm)
    assert all(np.array_equal(a.moves, b.moves) for a, b in zip(games_a, games_b))
    assert [a.result for a in games_a] == [b.result for b in games_b]
    assert sum(a.plies for a in games_a) > 20 * SEEDS.size    # 200 updates, real games
    scale = np.abs(theta_b).max()
    np.testing.assert_allclose(KNIGHTCAP_BETA * theta_a, theta_b, rtol=0, atol=1e-12 * scale)
    assert not np.array_equal(KNIGHTCAP_BETA * theta_a, theta_b)   # rounding: not bit for bit


@pytest.mark.parametrize("change", ["temperature T", "start θ₀"])
def test_the_equivalence_needs_the_scaled_temperature_and_start(change):
    """The test above can fail: at β = 1 with the same T, or from the unscaled θ₀, the games
    differ and so does θ."""
    kwargs = ({"temperature_b": T} if change == "temperature T"
              else {"start_b": initial_theta(0, 0)})
    theta_a, games_a, theta_b, games_b = _pair("td", **kwargs)
    assert not all(np.array_equal(a.moves, b.moves) for a, b in zip(games_a, games_b))
    assert np.abs(KNIGHTCAP_BETA * theta_a - theta_b).max() > 1e-3 * np.abs(theta_b).max()

"""Learner results whose bits must not depend on the CPU's code paths (run by
``tests/test_cpu_kernels.py`` in subprocesses with glibc's and numpy's other paths forced).

Prints one line ``<case> <sha256>`` per case: self-play learning of each learner (softmax ``exp``
and ``log``, ``tanh``), a searched match game with evaluation noise (``log``, ``cos``), the
Bonanza learner (its sigmoid), elmo's AdaGrad learner (sigmoid, softplus) and the power of the
replicate t-tests (the noncentral t's integral: ``exp``, ``log``).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent / "perf_exact"))

import exact_cases as C  # noqa: E402


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def bonanza_case() -> str:
    from gamelib.games.minishogi import features as E
    from gamelib.learn import bonanza_shogi as bs
    from gamelib.play.expert_games import ExpertSettings, expert_games

    games = expert_games(3, 11, ExpertSettings(node_budget=200, opening_plies=2))
    positions = bs.RecordPositions(games)
    theta = E.initial_theta(3, 0.002)
    train = np.arange(len(positions))
    st = bs.BonanzaSettings(batch_size=16, learning_rate=1e-4)
    v, _ = bs.learn_steps(theta, positions, train, st, 0, 2 * st.steps_per_epoch(train.size), 0,
                          constraint=bs.constraint_of(st, theta))
    return _digest(v)


def elmo_case() -> str:
    from gamelib.learn import elmo
    from gamelib.learn import elmo_train as L

    data, _ = elmo.synthetic_batch(600, n_features=16, seed=3)
    fit = L.train(np.zeros(16), data, loss="elmo", lam=0.5, scale=600.0, learning_rate=50.0,
                  n_epochs=2, batch_size=32, seed=4)
    return _digest(fit.weights, np.asarray(elmo.cross_entropy(data.result, data.deep_eval)))


def replicate_tests_case() -> str:
    from fractions import Fraction

    from gamelib.play.replicate_tests import t_power, t_test, tost_power

    p = [t_test([Fraction(3, 5), Fraction(7, 10), Fraction(9, 10)], Fraction(1, 2)).p_greater,
         t_power(0.2, 0.1, 5, 0.001), t_power(0.05, 0.1, 40, 0.01),
         tost_power(0.02, 0.1, 0.07, 12, 0.001)]
    return _digest(np.array(p))


CASES = {
    **{f"selfplay/{a}/mdp/0": (lambda a=a: C.selfplay_case(a, "mdp", 0, n_games=100))
       for a in ("pgleaf", "reinforce", "tdleaf", "td")},
    "matches": C.match_case,
    "search": C.search_case,
    "bonanza": bonanza_case,
    "elmo": elmo_case,
    "replicate_tests": replicate_tests_case,
}

if __name__ == "__main__":
    for name, case in CASES.items():
        print(name, case(), flush=True)

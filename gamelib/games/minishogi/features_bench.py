"""Evaluation benchmark: ``python -m gamelib.games.minishogi.features_bench [--positions N] [--repeat N]``.

Times, single core and after numba compilation, :func:`~gamelib.games.minishogi.features.evaluate`
(the full linear evaluation), :func:`~gamelib.games.minishogi.features.evaluate_material` and
:func:`~gamelib.games.minishogi.features.features` (the sorted sparse φ) on positions of seeded random
games, in nanoseconds of CPU time per call (best of ``--repeat`` runs: shared machines make
timings noisy).
The calls go round the positions many times, so the parameters and tables stay in the caches
as they do in a search.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from gamelib.runtime import cli
from . import core
from .rules import START_SFEN
from .notation import parse_sfen

from . import features as E

__all__ = ["random_positions", "evaluation_timings", "main"]


def random_positions(n: int, seed: int = 0, max_plies: int = 80) -> np.ndarray:
    """``n`` states (rows of a 2-D array, without history) from uniformly random games from the
    start position, each stopped after a random number of plies below ``max_plies``."""
    rng = np.random.default_rng(seed)
    board, hands, side, number = parse_sfen(START_SFEN)
    buf = np.empty(core.MAX_MOVES, dtype=np.int32)
    rows = []
    while len(rows) < n:
        s = core.new_state(board, hands, side, number, capacity=max_plies + 2)
        for _ in range(int(rng.integers(0, max_plies))):
            k = core.gen_moves(s, buf, 0, False)
            if k == 0 or core.repetition_result(s) != core.RESULT_NONE:
                break
            core.make_move(s, int(buf[rng.integers(k)]))
        rows.append(core.new_state(s[:25], s[core.HAND:core.HAND + 10], int(s[core.STM]), 1, capacity=1))
    return np.array(rows)


@njit(cache=True)
def _time_evaluate(states, theta, kind, rounds):
    total = 0.0
    for _ in range(rounds):
        for i in range(states.shape[0]):
            total += E.evaluate_kind(states[i], theta, kind)
    return total


@njit(cache=True)
def _time_features(states, rounds, idx, val):
    total = 0
    for _ in range(rounds):
        for i in range(states.shape[0]):
            total += E.features(states[i], idx, val)
    return total


def evaluation_timings(n_positions: int = 1000, rounds: int = 50, repeat: int = 3, seed: int = 0) -> dict:
    """Nanoseconds (CPU time) per call of the evaluation kernels, best of ``repeat`` runs.

    Returns ``{"evaluate": ns, "evaluate_material": ns, "features": ns, "mean_active": float}``
    (``mean_active``: mean number of non-zero features per position).
    """
    states = random_positions(n_positions, seed)
    theta = E.initial_theta(seed)
    idx = np.empty(E.MAX_ACTIVE, dtype=np.int32)
    val = np.empty(E.MAX_ACTIVE, dtype=np.float64)
    calls = rounds * len(states)
    runs = {
        "evaluate": lambda: _time_evaluate(states, theta, E.EVAL_LINEAR, rounds),
        "evaluate_material": lambda: _time_evaluate(states, theta, E.EVAL_MATERIAL, rounds),
        "features": lambda: _time_features(states, rounds, idx, val),
    }
    out = {}
    for name, run in runs.items():
        run()  # compile, warm the caches
        best = min(_elapsed(run) for _ in range(repeat))
        out[name] = best / calls * 1e9
    out["mean_active"] = float(np.mean([E.features(s, idx, val) for s in states]))
    return out


def _elapsed(fn) -> float:
    """CPU time of the process running ``fn`` (less disturbed by other processes than wall time)."""
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(prog="python -m gamelib.games.minishogi.features_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=1000, help="random positions")
    ap.add_argument("--rounds", type=int, default=50, help="passes over the positions per run")
    ap.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    args = ap.parse_args(argv)
    if min(args.positions, args.rounds, args.repeat) < 1:
        ap.error("--positions, --rounds and --repeat must be >= 1")
    t = evaluation_timings(args.positions, args.rounds, args.repeat)
    print(f"evaluation benchmark: {args.positions} positions of random games, {E.N_FEATURES} features, "
          f"{t['mean_active']:.0f} active per position (single thread, after compilation, CPU time, best of {args.repeat})")
    for name in ("evaluate", "evaluate_material", "features"):
        print(f"{name:18s}: {t[name]:7.0f} ns per call = {1e3 / t[name]:6.2f} M calls/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

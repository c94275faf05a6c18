"""The computations whose results the speed-ups must leave bit for bit unchanged.

Each case returns the sha256 of the bytes of its results (θ after self-play learning, the moves of
match games, search values and principal variations, leaf features). The hashes in
``test_exact_hashes.py`` say when they were made (its docstring); run
``python tests/perf_exact/exact_cases.py`` to print the current ones.
"""

from __future__ import annotations

import hashlib
import random

import numpy as np

from gamelib.games.minishogi import features as ev
from gamelib.learn import learners, selfplay as S
from gamelib.learn import pg_selfplay as pg, td_selfplay as tds
from gamelib.games.minishogi import core as mc
from gamelib.games.minishogi.notation import parse_sfen
from gamelib.games.minishogi.rules import START_SFEN
from gamelib.play import shogi as P
from gamelib.search import root_leaves, search

#: Self-play cases: (algorithm, reward, seed).
SELFPLAY_CASES = [(a, r, seed) for a in learners.names() for r in S.REWARDS for seed in (0, 1)]
#: Games per self-play case (PGLeaf / REINFORCE update every ``_M`` games).
SELFPLAY_GAMES = 200
_M = 50

#: The paper's match settings (``gamelib.experiments.pgleaf``, profile paper).
MATCH_BUDGET = 5000
MATCH_DEPTH = 32
MATCH_QDEPTH = 4


def digest(*parts) -> str:
    """sha256 of the parts' bytes (arrays as C-contiguous bytes, other values by ``repr``)."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, np.ndarray):
            h.update(str(p.dtype).encode())
            h.update(np.ascontiguousarray(p).tobytes())
        else:
            h.update(repr(p).encode())
        h.update(b"|")
    return h.hexdigest()


def selfplay_case(algorithm: str, reward: str, seed: int, n_games: int = SELFPLAY_GAMES, **kw) -> str:
    """θ (and every game's moves) after ``n_games`` self-play games from ``initial_theta(seed)``."""
    family = {"M": _M} if algorithm in pg.Settings.PAPER else {}     # (TD learners have no M)
    settings = learners.settings(algorithm, reward=reward, **family, **kw)
    theta = ev.initial_theta(seed)
    seeds = np.arange(n_games, dtype=np.int64) + 1000 * seed + 7
    moves = []
    if isinstance(settings, pg.Settings):
        for b in range(0, n_games, _M):
            records = pg.play_pg_games(theta, settings, seeds[b:b + _M])
            theta = pg.pg_update(theta, records, settings)
            moves += [r.moves for r in records]
    else:
        theta, records = tds.play_td_games(theta, settings, seeds)
        moves += [r.moves for r in records]
    return digest(theta, np.concatenate(moves), [int(len(m)) for m in moves])


def random_positions(seed: int, n: int, max_ply: int = 40) -> list[np.ndarray]:
    """``n`` states (with history) from seeded uniformly random playouts (checks included)."""
    rng = random.Random(seed)
    board, hands, side, number = parse_sfen(START_SFEN)
    buf = np.empty(mc.MAX_MOVES, dtype=np.int32)
    out = []
    while len(out) < n:
        s = mc.new_state(board, hands, side, number, capacity=max_ply + 8)
        for _ in range(rng.randint(4, max_ply)):
            if mc.game_result(s, buf, 0, 0) != mc.RESULT_NONE:
                break
            k = mc.gen_moves(s, buf, 0, False)
            mc.make_move(s, int(buf[rng.randrange(k)]))
        if mc.game_result(s, buf, 0, 0) == mc.RESULT_NONE:
            out.append(s)
    return out


def learned_like_theta(seed: int) -> np.ndarray:
    """Parameters with weights of a trained size (the initial ones with noise of 0.02)."""
    theta = ev.initial_theta(seed, scale=0.02)
    theta[ev.OPP_OFFSET:2 * ev.OPP_OFFSET] += np.random.default_rng(seed + 99).normal(0, 0.01, ev.OPP_OFFSET)
    theta[ev.TEMPO_INDEX] = 0.01
    return theta


def evaluation_case() -> str:
    """``evaluate``, ``evaluate_material`` and ``features`` over 300 random positions."""
    theta = learned_like_theta(3)
    vals, idxs, fvals = [], [], []
    idx = np.empty(ev.MAX_ACTIVE, dtype=np.int32)
    val = np.empty(ev.MAX_ACTIVE)
    for s in random_positions(11, 300):
        vals += [ev.evaluate(s, theta), ev.evaluate_material(s, theta)]
        n = ev.features(s, idx, val)
        idxs.append(idx[:n].copy())
        fvals.append(val[:n].copy())
    return digest(np.array(vals), np.concatenate(idxs), np.concatenate(fvals))


def leaves_case() -> str:
    """``root_leaves`` (1+4, 1+0, 2+2 plies) over 60 random positions."""
    theta = learned_like_theta(4)
    parts = []
    for s in random_positions(12, 60):
        for depth, qdepth in ((1, 4), (1, 0), (2, 2)):
            rl = root_leaves(s, theta, ev.EVAL_LINEAR, depth, qdepth, max_plies=300)
            parts += [rl.moves, rl.scores, rl.leaf_kind, rl.leaf_ptr, rl.leaf_idx, rl.leaf_val]
    return digest(*parts)


def search_case() -> str:
    """``search`` at the match settings (noise, 5,000 nodes; both evaluations) and without
    noise at 50,000 nodes, over random positions."""
    theta = learned_like_theta(5)
    parts = []
    for i, s in enumerate(random_positions(13, 24)):
        runs = [(theta, ev.EVAL_LINEAR, MATCH_BUDGET, MATCH_QDEPTH, P.PAPER_NOISE_STD),
                (ev.table1_theta(), ev.EVAL_MATERIAL, MATCH_BUDGET, 8, P.PAPER_NOISE_STD)]
        if i < 6:
            runs.append((theta, ev.EVAL_LINEAR, 50_000, 8, 0.0))
        for th, kind, budget, qdepth, noise in runs:
            r = search(s, th, kind, MATCH_DEPTH, budget, qdepth, noise, 1234 + i, max_plies=300)
            parts += [r.move, r.score, r.pv, r.depth, r.nodes, r.partial, r.leaf_kind, r.seldepth, r.n_legal]
    return digest(*parts)


def match_case() -> str:
    """The moves of match games at the match settings: learners (noise, 5,000 nodes, qdepth 4)
    against each other and against the reference and the material engine."""
    noise = P.PAPER_NOISE_STD
    learner = lambda theta: P.SearchPlayer(theta, ev.EVAL_LINEAR, node_budget=MATCH_BUDGET,
                                           max_depth=MATCH_DEPTH, qdepth=MATCH_QDEPTH, noise_std=noise)
    a, b = learner(learned_like_theta(6)), learner(learned_like_theta(7))
    ref = P.reference_player(node_budget=MATCH_BUDGET, noise_std=noise)
    mat = P.material_player(node_budget=MATCH_BUDGET, noise_std=noise)
    games = [(a, b, 1), (b, a, 2), (a, ref, 3), (ref, b, 4), (mat, a, 5), (learner(ev.initial_theta(0)), ref, 6)]
    parts = []
    for first, second, seed in games:
        g = P.play_game(first, second, seed, max_plies=300)
        parts += [g.outcome, g.reason, g.moves]
    return digest(*parts)


def all_cases() -> dict[str, str]:
    """Every case's hash, by name."""
    out = {f"selfplay/{a}/{r}/{seed}": selfplay_case(a, r, seed) for a, r, seed in SELFPLAY_CASES}
    out["selfplay/td/mdp/0/tied"] = selfplay_case("td", "mdp", 0, tie_sides=True, learn_tempo=False)
    out["evaluation"] = evaluation_case()
    out["leaves"] = leaves_case()
    out["search"] = search_case()
    out["matches"] = match_case()
    return out


if __name__ == "__main__":
    import time

    for name, fn in [("evaluation", evaluation_case), ("leaves", leaves_case), ("search", search_case),
                     ("matches", match_case)] + [(f"selfplay/{a}/{r}/{s}", lambda a=a, r=r, s=s: selfplay_case(a, r, s))
                                                  for a, r, s in SELFPLAY_CASES] + [
            ("selfplay/td/mdp/0/tied", lambda: selfplay_case("td", "mdp", 0, tie_sides=True, learn_tempo=False))]:
        t = time.perf_counter()
        h = fn()
        print(f'    "{name}": "{h}",  # {time.perf_counter() - t:.1f} s')

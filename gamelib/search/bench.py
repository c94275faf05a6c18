"""Search benchmark: ``python -m gamelib.bench search [--quick] [--repeat N]``.

Prints, single core and after numba compilation (best of ``--repeat`` runs, since machines are
shared and timings noisy):

* **match settings**: nodes/s of :func:`gamelib.search.search` and games/s of learner v reference
  games at the PGLeaf experiment's match settings (5,000 nodes, noise, iterative deepening);
* **nodes/s** of :func:`gamelib.search.search` (quiescence nodes included) on a fixed set of
  middle-game positions, with the material-only and with the full linear evaluation. The
  positions come from seeded playouts of a noisy shallow search (``benchmark_positions``), so
  every run measures the same searches.
* **self-play games/s** of the PGLeaf learning setting: each move is chosen by a softmax with
  temperature T = 0.05 over ``evl(s, a)`` from :func:`gamelib.search.root_leaves_into` (1 ply
  full width + 4 plies of quiescence, full evaluation, features of every principal leaf), both
  sides sharing θ, until the game ends or reaches 300 plies; and what 8 runs × 100,000 games
  would take at that speed.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from gamelib.exactmath import softmax_into
from gamelib.runtime import cli
from gamelib.games.minishogi import features as ev
from gamelib.games.minishogi.reference import REFERENCE_QDEPTH, reference_theta
from gamelib.games.minishogi import Position
from gamelib.games.minishogi import core as mc
from gamelib.games.minishogi.rules import DEFAULT_MAX_PLIES

from .core import new_workspace
from .iterative import search
from .leaves import new_leaves_buffers, root_leaves_into
from .state import as_search_state

__all__ = ["benchmark_positions", "self_play_games", "main"]


def benchmark_positions(n: int = 16, seed: int = 0) -> list[np.ndarray]:
    """``n`` middle-game states: seeded playouts of a noisy 2-ply material search, stopped
    after 16-31 plies at a position whose side to move is not in check."""
    theta = ev.table1_theta()
    out: list[np.ndarray] = []
    game = 0
    while len(out) < n:
        pos = Position()
        stop = 16 + (seed + game) % 16
        ok = True
        for ply in range(stop):
            r = search(pos, theta, ev.EVAL_MATERIAL, 2, 2000, 2, 0.03, seed * 100003 + game * 1009 + ply)
            if r.move < 0 or pos.outcome() is not None:
                ok = False
                break
            pos.push(r.move)
        game += 1
        if ok and pos.outcome() is None and not pos.is_check():
            out.append(pos.state.copy())
    return out


@njit(cache=True)
def _pick(probs, n, u):
    """The index drawn by the uniform number ``u`` from the probabilities ``probs[:n]``."""
    acc = 0.0
    for k in range(n):
        acc += probs[k]
        if u < acc:
            return k
    return n - 1


@njit(cache=True)
def self_play_games(theta, n_games, seed, temperature, max_plies, start, ws, out):
    """Play ``n_games`` softmax self-play games of the learning setting from state ``start``.

    Returns ``(plies, leaves)``: the total number of moves played and of principal leaves
    computed. Game ``g`` seeds numba's RNG with ``(seed + g) mod 2**32``.
    """
    plies = 0
    leaves = 0
    s = start.copy()
    buf = np.empty(mc.MAX_MOVES, dtype=np.int32)
    probs = np.empty(mc.MAX_MOVES)
    for g in range(n_games):
        np.random.seed((seed + g) & 0xFFFFFFFF)
        s[:] = start
        while mc.game_result(s, buf, 0, max_plies) == mc.RESULT_NONE:
            n = root_leaves_into(s, theta, ev.EVAL_LINEAR, 1, 4, max_plies, ws, out)
            leaves += n
            softmax_into(out.scores, n, temperature, probs)
            k = _pick(probs, n, np.random.random())
            mc.make_move(s, np.int64(out.moves[k]))
            plies += 1
    return plies, leaves


def _best_of(repeat, fn):
    best = None
    for _ in range(repeat):
        t0 = time.process_time()
        value = fn()
        dt = time.process_time() - t0
        if best is None or dt < best[0]:
            best = (dt, value)
    return best


def _nodes_per_second(positions, theta, kind, budget, repeat):
    def run():
        nodes = 0
        for s in positions:
            nodes += search(s, theta, kind, 64, budget, 8).nodes
        return nodes

    run()  # compile
    return _best_of(repeat, run)


def _ordering_effect(positions, theta, depth, repeat):
    """Nodes and CPU time to finish iteration ``depth`` with each ordering feature switched off."""
    configs = (
        ("TT + killers + history", {}),
        ("no killers", {"killers": False}),
        ("no history", {"history": False}),
        ("no killers, no history", {"killers": False, "history": False}),
        ("no TT", {"use_tt": False}),
    )
    rows = []
    for name, kw in configs:
        def run(kw=kw):
            return sum(search(s, theta, ev.EVAL_LINEAR, depth, 10**12, 8, **kw).nodes for s in positions)

        dt, nodes = _best_of(repeat, run)
        rows.append((name, nodes, dt))
    return rows


def _match_players():
    """The PGLeaf experiment's match settings ``(theta, kind, max_depth, node_budget, qdepth,
    noise_std)`` of a learner (Table-1 start) and of the reference opponent (noise var 0.001)."""
    noise = 0.001 ** 0.5
    return ((ev.initial_theta(0), ev.EVAL_LINEAR, 32, 5000, 4, noise),
            (reference_theta(), ev.EVAL_LINEAR, 64, 5000, REFERENCE_QDEPTH, noise))


def _match_speed(positions, repeat):
    """Nodes/s of :func:`search` at the PGLeaf experiment's match settings (full evaluation,
    noise of variance 0.001, iterative deepening under 5,000 nodes; learner qdepth 4, the
    reference opponent qdepth 8). Games/s of such games: ``python -m gamelib.bench matches``."""
    players = _match_players()

    def searches():
        return sum(search(s, theta, kind, depth, budget, qdepth, noise, i,
                          max_plies=DEFAULT_MAX_PLIES).nodes
                   for i, s in enumerate(positions)
                   for theta, kind, depth, budget, qdepth, noise in players)

    searches()  # compile
    return _best_of(repeat, searches)


def main(argv: list[str]) -> int:
    ap = cli.ArgumentParser(prog="python -m gamelib.bench search", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is reported")
    ap.add_argument("--positions", type=int, default=None, help="number of middle-game positions")
    ap.add_argument("--nodes", type=int, default=None, help="node budget per position")
    ap.add_argument("--games", type=int, default=None, help="self-play games per run")
    ap.add_argument("--match-only", action="store_true", help="stop after the match-settings measurement")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")
    n_pos = args.positions or (4 if args.quick else 16)
    budget = args.nodes or (20_000 if args.quick else 200_000)
    n_games = args.games or (5 if args.quick else 200)

    print("search benchmark (single thread, after compilation; CPU time of the process, best of "
          f"{args.repeat}: a shared machine makes wall-clock timings noisy)")
    positions = benchmark_positions(n_pos)
    theta = ev.initial_theta(0)
    for name, kind in (("material-only", ev.EVAL_MATERIAL), ("full linear", ev.EVAL_LINEAR)):
        dt, nodes = _nodes_per_second(positions, theta, kind, budget, args.repeat)
        print(f"nodes/s {name:13s}: {nodes} nodes on {n_pos} middle-game positions "
              f"({budget} per position) in {dt:.2f} s = {nodes / dt / 1e6:.3f} M nodes/s")

    dt, nodes = _match_speed(positions, args.repeat)
    print(f"match settings (5,000 nodes, qdepth 4 / reference 8, noise var 0.001): {nodes} nodes "
          f"in {dt:.2f} s = {nodes / dt / 1e6:.3f} M nodes/s")
    if args.match_only:
        return 0

    depth = 3 if args.quick else 5
    print(f"move ordering: nodes and CPU time to finish depth {depth} (full evaluation, qdepth 8):")
    for name, nodes, dt in _ordering_effect(positions, theta, depth, args.repeat):
        print(f"  {name:24s} {nodes:10d} nodes  {dt:6.2f} s")

    ws = new_workspace(0)
    out = new_leaves_buffers()
    start = as_search_state(Position(), DEFAULT_MAX_PLIES + 16)
    self_play_games(theta, 1, 0, 0.05, DEFAULT_MAX_PLIES, start, ws, out)  # compile
    dt, (plies, leaves) = _best_of(args.repeat, lambda: self_play_games(theta, n_games, 1, 0.05, DEFAULT_MAX_PLIES, start, ws, out))
    gps = n_games / dt
    print(f"self-play (1 ply + 4 plies quiescence, softmax T=0.05, cap {DEFAULT_MAX_PLIES} plies): "
          f"{n_games} games, {plies} plies, {leaves} principal leaves in {dt:.2f} s = {gps:.2f} games/s "
          f"({plies / dt:.0f} plies/s)")
    total = 8 * 100_000
    hours = total / gps / 3600
    print(f"8 runs x 100,000 games: {hours:.1f} h on one core, {hours / 8:.1f} h on 8 cores "
          f"(self-play only, without the learners' updates, at this evaluation's {plies / n_games:.0f} plies "
          "per game)")
    worst = total * DEFAULT_MAX_PLIES / (plies / dt) / 3600
    print(f"  if every game lasted {DEFAULT_MAX_PLIES} plies: {worst:.0f} h on one core, {worst / 8:.1f} h on 8 cores")
    return 0

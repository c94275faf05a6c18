"""Benchmark: perft leaves/s of the numba core, and of a Python loop over pyffish for the ratio.

``python -m gamelib.bench minishogi [--depth 6] [--pyffish-depth 3] [--repeat 3] [--no-pyffish]``

Perft counts the leaves of the legal-move tree from the start position; both engines count the
last ply without playing it (bulk counting). pyffish (Fairy-Stockfish's Python binding, a
test-only dependency) answers one position per call, so it is timed at a smaller depth, and our
core is timed at that depth too. Times are the best of ``--repeat`` runs, single core, after
numba compilation; on a shared machine they are noisy.
"""

from __future__ import annotations

import time

from gamelib.runtime import cli
from . import core
from .position import Position
from .rules import START_SFEN

_VARIANT = "minishogi"


def time_perft(depth: int, repeat: int = 3) -> tuple[int, float]:
    """(leaves, best seconds) of our perft from the start position, after compilation."""
    s = Position(START_SFEN).state
    core.perft(s, min(depth, 2))  # compile (or load from the cache) before timing
    best, leaves = float("inf"), 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        leaves = core.perft(s, depth)
        best = min(best, time.perf_counter() - t0)
    return int(leaves), best


def _pyffish_perft(sf, fen: str, depth: int, moves: list[str]) -> int:
    legal = sf.legal_moves(_VARIANT, fen, moves)
    if depth == 1:
        return len(legal)
    return sum(_pyffish_perft(sf, fen, depth - 1, moves + [m]) for m in legal)


def time_pyffish_perft(depth: int, repeat: int = 1) -> tuple[int, float] | None:
    """(leaves, best seconds) of a Python perft loop over pyffish; ``None`` without pyffish."""
    try:
        import pyffish as sf
    except ImportError:
        return None
    fen = sf.start_fen(_VARIANT)
    best, leaves = float("inf"), 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        leaves = _pyffish_perft(sf, fen, depth, [])
        best = min(best, time.perf_counter() - t0)
    return leaves, best


def _line(name: str, depth: int, leaves: int, seconds: float) -> str:
    rate = leaves / seconds
    rate_text = f"{rate / 1e6:.2f} M leaves/s" if rate >= 1e5 else f"{rate / 1e3:.2f} k leaves/s"
    return (
        f"{name}: perft({depth}) startpos: {leaves} leaves in {seconds:.4f} s = {rate_text} "
        f"(single core{', after compile' if name == 'gamelib' else ''})"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one line per measurement; returns the exit status."""
    parser = cli.ArgumentParser(prog="python -m gamelib.bench minishogi", description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=6, help="perft depth of our core (default 6)")
    parser.add_argument("--pyffish-depth", type=int, default=3, help="perft depth of the pyffish loop (default 3)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is reported")
    parser.add_argument("--no-pyffish", action="store_true", help="skip the pyffish measurement")
    args = parser.parse_args(argv)
    if not 1 <= args.depth <= 8 or not 1 <= args.pyffish_depth <= 5 or args.repeat < 1:
        parser.error("need 1 <= --depth <= 8, 1 <= --pyffish-depth <= 5, --repeat >= 1")

    leaves, seconds = time_perft(args.depth, args.repeat)
    print(_line("gamelib", args.depth, leaves, seconds))
    if args.no_pyffish:
        return 0
    theirs = time_pyffish_perft(args.pyffish_depth, 1 if args.pyffish_depth >= 4 else args.repeat)
    if theirs is None:
        print("pyffish is not installed (pip install pyffish): no reference measurement")
        return 0
    f_leaves, f_seconds = theirs
    o_leaves, o_seconds = time_perft(args.pyffish_depth, max(args.repeat, 5))
    print(_line("pyffish (Python loop, one call per node)", args.pyffish_depth, f_leaves, f_seconds))
    print(_line("gamelib", args.pyffish_depth, o_leaves, o_seconds))
    if f_leaves != o_leaves:
        print(f"WARNING: leaf counts differ at depth {args.pyffish_depth}: pyffish {f_leaves}, gamelib {o_leaves}")
    ratio_same = (o_leaves / o_seconds) / (f_leaves / f_seconds)
    ratio_deep = (leaves / seconds) / (f_leaves / f_seconds)
    print(f"ratio gamelib / pyffish: {ratio_same:,.0f}x at depth {args.pyffish_depth}; "
          f"{ratio_deep:,.0f}x comparing our depth-{args.depth} rate with pyffish's depth-{args.pyffish_depth} rate")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

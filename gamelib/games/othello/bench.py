"""Othello engine benchmark: ``python -m gamelib.bench othello [options]``.

Prints, single core and after numba compilation,

* perft leaves/s from the start position (bulk counting at the last ply), checked against
  the published count, and its ratio to the ~440 M leaves/s of the best native engine;
* the time to solve exactly the FFO-style endgame positions with 20, 21 and 22 empties
  (the ``ffo`` folder beside the WTHOR records), checked against their recorded scores.

Timings vary on a shared machine: run it 2-3 times and keep the best. The process CPU time is
printed beside the wall-clock time; on a busy machine it is the steadier of the two.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from gamelib.runtime import cli
from . import core
from .board import START_BOARD
from .board import solve
from .wthor import default_dirs

PUBLISHED_PERFT = {
    1: 4, 2: 12, 3: 56, 4: 244, 5: 1_396, 6: 8_200, 7: 55_092, 8: 390_216, 9: 3_005_288,
    10: 24_571_284, 11: 212_258_800, 12: 1_939_886_636, 13: 18_429_641_748,
}
NATIVE_LEAVES_PER_S = 440e6


def _default_ffo_dir() -> Path:
    return default_dirs()[-2].parent / "ffo"


def _ffo_positions(ffo_dir: Path, empties: int, count: int):
    name = {20: "19_20.txt", 21: "21_22.txt", 22: "21_22.txt"}[empties]
    out = []
    for line in (ffo_dir / name).read_text().splitlines():
        board, side, _, score = line.split()
        if board.count("-") == empties:
            out.append((board, "X" if side == "Black" else "O", int(score)))
        if len(out) == count:
            break
    return out


def bench_perft(depth: int, repeat: int) -> float:
    """Best leaves/s of ``repeat`` runs of perft(depth) from the start."""
    core.perft(core.START_BLACK, core.START_WHITE, 3)  # compile
    best = 0.0
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        leaves = int(core.perft(core.START_BLACK, core.START_WHITE, depth))
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        rate = leaves / dt
        best = max(best, rate)
        check = PUBLISHED_PERFT.get(depth)
        status = "matches published" if check == leaves else f"PUBLISHED {check}" if check else "no published value"
        print(
            f"perft({depth}) startpos: {leaves} leaves in {dt:.2f} s = {rate / 1e6:.1f} M leaves/s "
            f"(single core, after compile; CPU time {cpu:.2f} s = {leaves / max(cpu, 1e-9) / 1e6:.1f} M/s; {status})"
        )
    print(
        f"perft best: {best / 1e6:.1f} M leaves/s = {best / NATIVE_LEAVES_PER_S:.2f} x the "
        f"~{NATIVE_LEAVES_PER_S / 1e6:.0f} M leaves/s of the best native engine"
    )
    return best


def bench_solve(ffo_dir: Path, count: int) -> None:
    """Exact solve of ``count`` positions each with 20, 21, 22 empties."""
    solve("X" * 62 + "O-", "O", False)  # compile
    solve(_ffo_positions(ffo_dir, 20, 1)[0][0], "X", False)
    for empties in (20, 21, 22):
        times, nodes, cpu = [], 0, 0.0
        for board, side, score in _ffo_positions(ffo_dir, empties, count):
            t0, c0 = time.perf_counter(), time.process_time()
            result = solve(board, side, empties_to_winner=False)
            times.append(time.perf_counter() - t0)
            cpu += time.process_time() - c0
            nodes += result.nodes
            black_view = result[0] if side == "X" else -result[0]
            if black_view != score:
                raise SystemExit(f"WRONG: {board} {side}: solved {black_view}, recorded {score}")
        total = sum(times)
        print(
            f"solve {empties} empties: {len(times)} positions, mean {total / len(times):.2f} s, "
            f"median {statistics.median(times):.2f} s, max {max(times):.2f} s, "
            f"{nodes / total / 1e6:.1f} M nodes/s (nodes with >= 4 empties); CPU time mean "
            f"{cpu / len(times):.2f} s (all scores exact)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = cli.ArgumentParser(prog="python -m gamelib.bench othello", description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=11, help="perft depth (default 11)")
    parser.add_argument("--repeat", type=int, default=3, help="perft runs; the best is reported (default 3)")
    parser.add_argument("--solve-count", type=int, default=10, help="positions per empties count (default 10)")
    parser.add_argument("--ffo-dir", type=Path, default=None, help="folder of the FFO-style files")
    parser.add_argument("--no-solve", action="store_true", help="skip the endgame benchmark")
    args = parser.parse_args(argv)
    if args.depth < 1 or args.repeat < 1 or args.solve_count < 1:
        parser.error("--depth, --repeat and --solve-count must be >= 1")
    print(f"start position: {START_BOARD} X")
    bench_perft(args.depth, args.repeat)
    if not args.no_solve:
        ffo_dir = args.ffo_dir or _default_ffo_dir()
        if not ffo_dir.is_dir():
            print(f"solve: skipped, no FFO files at {ffo_dir} (use --ffo-dir)")
        else:
            bench_solve(ffo_dir, args.solve_count)
    return 0

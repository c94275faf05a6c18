#!/usr/bin/env python3
"""Run one of gamelib's benchmarks on this checkout and on an earlier commit, in turn, and print
the ratios of the figures they report (games/s, nodes/s, ...).

    .venv/bin/python scripts/bench_vs.py 6be4807 -- selfplay --games 200
    .venv/bin/python scripts/bench_vs.py HEAD~3 --runs 5 -- search --match-only

The earlier commit is checked out into a temporary git worktree (removed afterwards) and given
this checkout's benchmark code (``gamelib/bench/__main__.py`` and the benchmark's module), so both
sides measure the same thing and only the code under measurement differs; a benchmark that needs
something the earlier code lacks fails there with its error. The two sides run alternately
(base, new, base, new, ...) after one warm-up run each (numba compiles into each tree's cache),
so a drift of the machine's speed hits both; each figure's ratio is new / base per pair, and the
median of the pairs is printed beside the min and max. The benchmarks time CPU seconds of one
process: on a loaded or shared machine the spread still shows how far to trust the median.

A shared virtual machine can also run a whole process a third slower than the next one (we
have seen one evaluation loop take 510 or 700 ns per call, from process to process, on an idle
machine), so a pair may compare a fast base with a slow new run. The last column is therefore
the ratio of each side's best run (its highest figure): the runs least disturbed, compared
with each other (:func:`best_ratio`).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: A figure: a number, an optional k/M prefix, a unit per second.
RATE = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(k |M )?(games|nodes|moves|leaves|plies|calls)/s")


def figures(output: str) -> dict:
    """``{(label, unit, k): value}`` of every rate in a benchmark's output: ``label`` is the line
    up to its first ':' and ``k`` counts the rates of the same unit on that line."""
    out = {}
    for line in output.splitlines():
        label = line.split(":", 1)[0].strip()
        seen: dict = {}
        for match in RATE.finditer(line):
            number, prefix, unit = match.groups()
            scale = {"k ": 1e3, "M ": 1e6}.get(prefix or "", 1.0)
            k = seen.get(unit, 0)
            seen[unit] = k + 1
            out[(label, unit, k)] = float(number.replace(",", "")) * scale
    return out


def best_ratio(pairs: list, key) -> float:
    """The best (highest) figure ``key`` of the new side's runs over the base side's best."""
    return max(n[key] for _, n in pairs) / max(b[key] for b, _ in pairs)


def bench_once(tree: Path, argv: list) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    proc = subprocess.run([sys.executable, "-m", "gamelib.bench", *argv], cwd=tree, env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"error: the benchmark failed in {tree}:\n{proc.stderr.strip()[-2000:]}")
    found = figures(proc.stdout)
    if not found:
        sys.exit(f"error: no figure (games/s, nodes/s, ...) in the output of {argv}:\n{proc.stdout}")
    return found


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench_vs.py", description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s BASE [--runs N] -- BENCHMARK [ARGS ...]")
    parser.add_argument("base", help="the earlier commit (any git revision)")
    parser.add_argument("--runs", type=int, default=3, help="measured pairs (default 3)")
    argv = sys.argv[1:] if argv is None else list(argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    bench = argv[cut + 1:]
    if args.runs < 1:
        parser.error("--runs must be positive")
    sys.path.insert(0, str(ROOT))
    from gamelib.bench.__main__ import BENCHMARKS

    if not bench or bench[0] not in BENCHMARKS:
        parser.error(f"name a benchmark after '--': one of {', '.join(BENCHMARKS)}")
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{args.base}^{{commit}}"],
                         capture_output=True, text=True)
    if rev.returncode != 0:
        parser.error(f"{args.base!r} is not a commit of this repository")
    base = rev.stdout.strip()
    module = Path(*BENCHMARKS[bench[0]].split(".")).with_suffix(".py")
    with tempfile.TemporaryDirectory(prefix="bench-vs-") as tmp:
        tree = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(tree),
                        base], check=True)
        try:
            for part in (Path("gamelib/bench/__main__.py"), module):
                (tree / part).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(ROOT / part, tree / part)
            print(f"{' '.join(bench)}: this checkout against {base[:10]} ({args.runs} pairs after "
                  f"a warm-up)", flush=True)
            bench_once(tree, bench)
            bench_once(ROOT, bench)
            pairs = []
            for i in range(args.runs):
                pairs.append((bench_once(tree, bench), bench_once(ROOT, bench)))
                print(f"  pair {i + 1} of {args.runs} done", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                           check=False)
    print(f"{'figure':58s} {'base':>12s} {'new':>12s}  new/base: median (min-max), best/best")
    for key in pairs[0][1]:
        if not all(key in b and key in n and b[key] > 0 for b, n in pairs):
            continue
        label, unit, k = key
        ratios = [n[key] / b[key] for b, n in pairs]
        name = f"{label[:48]} [{unit}/s{'' if k == 0 else f' #{k + 1}'}]"
        print(f"{name:58s} {statistics.median(b[key] for b, _ in pairs):12,.1f} "
              f"{statistics.median(n[key] for _, n in pairs):12,.1f}  {statistics.median(ratios):.2f}x "
              f"({min(ratios):.2f}-{max(ratios):.2f}), {best_ratio(pairs, key):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

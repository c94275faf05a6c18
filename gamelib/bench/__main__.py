"""Run a benchmark: ``python -m gamelib.bench <name> [options]``, names in :data:`BENCHMARKS`.

Each benchmark lives beside the code it measures (``gamelib/<area>/bench.py``) and prints its
numbers (nodes/s, leaves/s, games/s) after numba compilation, single core.
"""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = {
    "minishogi": "gamelib.games.minishogi.bench",
    "games": "gamelib.games.bench",
    "othello": "gamelib.games.othello.bench",
    "search": "gamelib.search.bench",
    "matches": "gamelib.play.bench",
    "evaluation": "gamelib.games.minishogi.features_bench",
    "othello_value": "gamelib.play.othello_value_bench",
    "bonanza": "gamelib.learn.bonanza_bench",
    "elmo": "gamelib.learn.elmo_bench",
    "selfplay": "gamelib.learn.selfplay_bench",
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in BENCHMARKS:
        if argv and argv[0] not in ("-h", "--help"):
            print(f"unknown benchmark {argv[0]!r}", file=sys.stderr)
        print(f"usage: python -m gamelib.bench {{{','.join(BENCHMARKS)}}} [options]", file=sys.stderr)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    module = importlib.import_module(BENCHMARKS[argv[0]])
    return module.main(argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())

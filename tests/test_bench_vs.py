"""scripts/bench_vs.py: the figures it reads from the benchmarks' outputs, and its refusals."""

import importlib.util
import subprocess
import sys

import pytest

from gamelib import notebook as nb

SCRIPT = nb.repo_root() / "scripts" / "bench_vs.py"
_spec = importlib.util.spec_from_file_location("bench_vs", SCRIPT)
bench_vs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_vs)


def test_every_rate_of_a_line_is_a_figure_with_its_prefix_applied():
    out = bench_vs.figures(
        "   pgleaf: 200 games, 33.3 plies each, 0.87 s = 229.1 games/s, 7,630 moves/s (...)\n"
        "nodes/s full eval    : 200000 nodes on 20 positions in 0.10 s = 1.712 M nodes/s\n"
        "self-play: 5 games in 0.02 s = 243.34 games/s (6570 plies/s)\n"
        "perft(5): 2.90 M leaves/s and 12.5 k leaves/s\n"
        "no rate on this line: 3 games\n")
    assert out == {
        ("pgleaf", "games", 0): 229.1, ("pgleaf", "moves", 0): 7630.0,
        ("nodes/s full eval", "nodes", 0): 1.712e6,
        ("self-play", "games", 0): 243.34, ("self-play", "plies", 0): 6570.0,
        ("perft(5)", "leaves", 0): 2.9e6, ("perft(5)", "leaves", 1): 12.5e3,
    }


def test_best_ratio_compares_the_best_run_of_each_side():
    key = ("pgleaf", "games", 0)
    pairs = [({key: 200.0}, {key: 300.0}), ({key: 250.0}, {key: 240.0}), ({key: 100.0}, {key: 500.0})]
    assert bench_vs.best_ratio(pairs, key) == 500.0 / 250.0


@pytest.mark.parametrize("argv, message", [
    (["6be4807", "--", "chess"], "name a benchmark"),
    (["6be4807"], "name a benchmark"),
    (["no-such-commit", "--", "selfplay"], "is not a commit"),
    (["6be4807", "--runs", "0", "--", "selfplay"], "--runs must be positive"),
])
def test_bad_arguments_are_refused_with_the_reason(argv, message):
    proc = subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True, text=True,
                          cwd=nb.repo_root())
    assert proc.returncode == 2 and message in proc.stderr

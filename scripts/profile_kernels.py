#!/usr/bin/env python3
"""Profile gamelib's numba kernels with Linux ``perf``, function by function.

    .venv/bin/python scripts/profile_kernels.py pgleaf
    .venv/bin/python scripts/profile_kernels.py tdleaf --theta data/results/paper/pgleaf/closest/seed-0/theta/tdleaf_mdp_0_100000.npz

``perf`` calls numba's machine code ``[JIT]`` unless a perf map (``/tmp/perf-<pid>.map``, one
line ``address size name`` per function) says where each function lies. This script plays
self-play games of one learner (:func:`gamelib.learn.learners.settings`, the paper's
settings; initial parameters unless ``--theta``), compiling the kernels afresh in a temporary
``NUMBA_CACHE_DIR`` (code loaded from numba's cache has no symbol table to read), writes the map
from every compiled function's address, records ``--seconds`` of the steady state with ``perf
record`` and prints each function's share of the samples (self time: a function that LLVM
inlined into its caller is counted there).
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Cap of a function's extent in the map (the distance to the next function otherwise).
MAX_FUNCTION_BYTES = 1 << 16
_SAMPLE = re.compile(r"^\s*([\d.]+)%\s+\[\.\]\s+(\S+)")


def readable(symbol: str) -> str:
    """``gamelib.games.minishogi.features.evaluate`` for numba's mangled
    ``_ZN7gamelib10evaluation5shogi8evaluateB4v113B40...E5Array...``; other names unchanged."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, i = [], 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while j < len(symbol) and symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        parts.append(symbol[j:j + n])
        i = j + n
    return ".".join(parts) if parts else symbol


def compiled_functions() -> dict:
    """``{address: symbol}`` of every function numba has compiled in this process."""
    from numba.core.dispatcher import Dispatcher

    found = {}
    for obj in gc.get_objects():
        try:
            if not isinstance(obj, Dispatcher):
                continue
        except ReferenceError:  # a weak proxy whose object is gone
            continue
        for cres in list(obj.overloads.values()):
            library = cres.library
            try:
                module = library._final_module
            except Exception:  # loaded from numba's cache: no module to read
                continue
            for function in module.functions:
                if function.is_declaration:
                    continue
                try:
                    address = library.get_pointer_to_function(function.name)
                except Exception:
                    continue
                if address:
                    found[address] = function.name
    return found


def write_perf_map(functions: dict, pid: int | None = None) -> Path:
    """Write ``/tmp/perf-<pid>.map`` for ``functions`` (``{address: symbol}``): each function
    extends to the next one, at most :data:`MAX_FUNCTION_BYTES`."""
    pid = os.getpid() if pid is None else pid
    path = Path(tempfile.gettempdir()) / f"perf-{pid}.map"
    items = sorted(functions.items())
    lines = []
    for k, (address, name) in enumerate(items):
        end = items[k + 1][0] if k + 1 < len(items) else address + MAX_FUNCTION_BYTES
        lines.append(f"{address:x} {min(end - address, MAX_FUNCTION_BYTES):x} {name}\n")
    path.write_text("".join(lines))
    return path


def shares(report: str, top: int) -> list[tuple[float, str]]:
    """``(percent, readable name)`` of the ``top`` largest lines of ``perf report --stdio``."""
    rows = []
    for line in report.splitlines():
        match = _SAMPLE.match(line)
        if match:
            rows.append((float(match.group(1)), readable(match.group(2))))
    return sorted(rows, reverse=True)[:top]


def _workload(algorithm: str, theta_path: str | None):
    import numpy as np

    from gamelib.games.minishogi import features as E
    from gamelib.learn import learners
    from gamelib.learn.selfplay import SHOGI

    learner = learners.get(algorithm)
    settings = learner.settings()
    theta = E.initial_theta(0) if theta_path is None else E.load_theta(theta_path)
    return lambda k: learner.play_games(theta, settings, np.arange(20, dtype=np.int64) + 20 * k,
                                        SHOGI)


def main(argv: list[str] | None = None) -> int:
    from gamelib.learn import learners

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("algorithm", choices=list(learners.names()))
    parser.add_argument("--theta", default=None, help="parameter file (default: initial θ)")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds recorded")
    parser.add_argument("--top", type=int, default=15, help="functions printed")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.top < 1:
        parser.error("--seconds must be > 0 and --top >= 1")
    perf = shutil.which("perf")
    if perf is None:
        parser.error("perf is not installed (Debian: apt-get install linux-perf)")
    if args.theta is not None and not Path(args.theta).is_file():
        parser.error(f"--theta: no such file: {args.theta}")
    play = _workload(args.algorithm, args.theta)
    play(0)                                            # compile everything the games call
    map_path = write_perf_map(compiled_functions())
    stop = threading.Event()

    def games():
        k = 1
        while not stop.is_set():
            play(k)
            k += 1

    worker = threading.Thread(target=games, daemon=True)
    worker.start()
    time.sleep(1.0)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        subprocess.run([perf, "record", "-q", "-F", "999", "-p", str(os.getpid()), "-o", str(data),
                        "--", "sleep", str(args.seconds)], check=True, capture_output=True)
        stop.set()
        report = subprocess.run([perf, "report", "-i", str(data), "--no-children", "--sort",
                                 "symbol", "--stdio", "-q"], check=True, capture_output=True,
                                text=True).stdout
    worker.join()
    map_path.unlink(missing_ok=True)
    print(f"{args.algorithm} self-play, {'θ from ' + args.theta if args.theta else 'initial θ'}: "
          f"share of {args.seconds:g} s of samples (self time)")
    for percent, name in shares(report, args.top):
        print(f"{percent:6.2f} %  {name}")
    return 0


if __name__ == "__main__":
    if not os.environ.get("GAMELIB_PROFILE_CACHE"):  # a fresh cache: compiled code has symbols
        cache = tempfile.mkdtemp(prefix="gamelib-profile-numba-")
        os.environ["GAMELIB_PROFILE_CACHE"] = cache
        os.environ["NUMBA_CACHE_DIR"] = cache
        try:
            sys.exit(subprocess.run([sys.executable, *sys.argv]).returncode)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())

"""numba's cache of gamelib's code serves another checkout of the same sources, and only those
(gamelib.numba_cache): CI copies the book clone's cache into its test clone; processes that
start together compile a function once; a function is compiled once per argument types, not per
constant."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent

# compiles one cached function of gamelib and prints numba's count of cache hits and misses
PROBE = """
from gamelib.exactmath import exp
exp(-1.5)
print(len(exp.stats.cache_hits), len(exp.stats.cache_misses))
"""


def _checkout(where: Path) -> Path:
    """A copy of the package beside a pyproject.toml: a checkout whose cache is its own."""
    where.mkdir()
    shutil.copy(ROOT / "pyproject.toml", where)
    shutil.copytree(ROOT / "gamelib", where / "gamelib",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return where


def _hits_misses(checkout: Path) -> tuple[int, int]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(checkout)
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=checkout, env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    return int(out[0]), int(out[1])


def test_a_cache_copied_from_another_checkout_of_the_same_sources_is_used(tmp_path):
    first = _checkout(tmp_path / "first")
    assert _hits_misses(first) == (0, 1)                 # compiled and stored
    second = _checkout(tmp_path / "second")
    shutil.copytree(first / ".numba_cache", second / ".numba_cache")
    assert _hits_misses(second) == (1, 0)                # loaded, not compiled again


def test_a_cache_of_other_sources_is_not_used(tmp_path):
    first = _checkout(tmp_path / "first")
    assert _hits_misses(first) == (0, 1)
    second = _checkout(tmp_path / "second")
    with open(second / "gamelib" / "runtime" / "bits.py", "a") as fh:
        fh.write("\n# another version of a module exp does not call\n")
    shutil.copytree(first / ".numba_cache", second / ".numba_cache")
    assert _hits_misses(second) == (0, 1)



# waits until both processes are ready, then compiles one slow-to-compile gamelib function
# (the Othello features, about 4 s) and prints whether it was compiled here or loaded
RACE = """
import os, sys, time
from pathlib import Path
import numpy as np
from gamelib.games.othello.features import board_features
Path(sys.argv[1]).touch()
while not Path(sys.argv[2]).exists():
    time.sleep(0.01)
board_features(np.uint64(0x0000000810000000), np.uint64(0x0000001008000000),
               np.zeros(64, np.int32), np.zeros(64, np.float64))
stats = board_features.stats
print(len(stats.cache_hits), len(stats.cache_misses))
"""


def test_processes_starting_together_compile_a_function_once(tmp_path):
    """Two processes wanting the same function in an empty cache at the same moment: one
    compiles it, holding its lock file, and the other waits and loads it (without the lock both
    would compile it)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", RACE, str(tmp_path / f"ready{i}"),
                               str(tmp_path / f"ready{1 - i}")], env=env, cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in (0, 1)]
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-2000:]
        outs.append(tuple(int(x) for x in out.split()))
    assert sorted(outs) == [(0, 1), (1, 0)], outs


def test_the_compile_lock_gives_way_where_it_cannot_be_taken(tmp_path, monkeypatch):
    """Where the lock file cannot be created (a read-only cache) or the file system has no locks
    (flock fails with ENOLCK), compiling goes on without the lock; a held lock is re-entrant."""
    import errno
    import fcntl

    from gamelib import numba_cache

    ran = []
    with numba_cache.compiling(str(tmp_path / "missing" / "f.lock")):
        ran.append("created")
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o500)
    try:
        if not os.access(tmp_path / "ro", os.W_OK):       # (root may write anyway)
            with numba_cache.compiling(str(tmp_path / "ro" / "sub" / "f.lock")):
                ran.append("read-only")
    finally:
        (tmp_path / "ro").chmod(0o700)
    path = str(tmp_path / "g.lock")
    with numba_cache.compiling(path):
        with numba_cache.compiling(path):                 # a compile within a compile
            ran.append("re-entrant")

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "no locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    with numba_cache.compiling(str(tmp_path / "h.lock")):
        ran.append("no locks")
    assert "created" in ran and "re-entrant" in ran and "no locks" in ran
    assert not numba_cache._held


def test_a_constant_argument_compiles_the_general_version_unless_its_value_is_needed(
        tmp_path, monkeypatch):
    """Called from jitted code with a constant, a gamelib function is compiled for the constant's
    type (int64, bool), not once more for each value (numba's Literal types): the same code for
    every call site, compiled once. A function that needs the value to be typed (an index into a
    tuple of mixed types) fails with an error that says why."""
    from numba import njit, types
    from numba.core import errors

    from gamelib import numba_cache
    from gamelib.algorithms.noise import mix_seed

    @njit
    def seed_of_zero():
        return mix_seed(0)

    assert seed_of_zero() == mix_seed(np.int64(0))
    assert mix_seed.signatures and not any(isinstance(a, types.Literal)
                                           for sig in mix_seed.signatures for a in sig)

    # functions of this test, treated as gamelib's
    monkeypatch.setattr(numba_cache, "_lock_path", lambda dispatcher: str(tmp_path / "f.lock"))

    @njit
    def add_one(x, flag):
        return x + 1 if flag else x

    @njit
    def item(t, i):
        return t[i]

    @njit
    def calls():
        return add_one(3, True) + add_one(4, False)

    @njit
    def calls_item(x):
        return item((x, 2.5), 1)

    assert calls() == 8
    assert add_one.signatures == [(types.int64, types.boolean)]
    with pytest.raises(errors.TypingError, match="once per argument types, not for the value"):
        calls_item(3)

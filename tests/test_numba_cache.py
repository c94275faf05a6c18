"""numba's cache of gamelib's code serves another checkout of the same sources, and only those
(gamelib.numba_cache): CI copies the book clone's cache into its test clone."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

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


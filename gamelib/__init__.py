"""gamelib: game engines and evaluation learners for the book.

Importing the package chooses numba's on-disk cache folder (``NUMBA_CACHE_DIR``) unless you set
one yourself: a folder named by a hash of every ``gamelib`` source file, under ``.numba_cache/``
in a source checkout (else under ``~/.cache/gamelib/numba/``). Numba keys a cached function only
on its own file, so a jitted function that calls one from another module would otherwise keep
running the old callee after that module changed; a new source tree gets a new, empty cache.
Old folders can be deleted at any time. Within the folder a module's code is filed by the hash of
the sources and its place in the package, not by its absolute path (:mod:`gamelib.numba_cache`),
so the cache of one checkout serves another checkout of the same sources.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gamelib.sources import source_digest

__version__ = "0.1.0"
__all__ = ["source_digest"]


def _numba_cache_dir() -> Path:
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / "pyproject.toml").is_file() and os.access(checkout, os.W_OK):
        base = checkout / ".numba_cache"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gamelib" / "numba"
    return base / source_digest()


if not os.environ.get("NUMBA_CACHE_DIR"):
    os.environ["NUMBA_CACHE_DIR"] = str(_numba_cache_dir())
    if "numba" in sys.modules:  # imported before gamelib: its config has already read the variable
        from numba.core import config as _numba_config

        _numba_config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
from gamelib import numba_cache as _numba_cache  # noqa: E402

_numba_cache.install()

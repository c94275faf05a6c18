"""numba's cache, filed by a module's place in the package: a cache copied between checkouts works.

``import gamelib`` chooses the cache folder (``NUMBA_CACHE_DIR``: a hash of every gamelib source,
see :mod:`gamelib`) and calls :func:`install`. Inside that folder numba would file a module's
compiled code under a hash of the module's absolute path, so a cache copied from another checkout
of the same sources (CI's book clone to its test clone) would be ignored and everything compiled
again. :class:`PackageCacheLocator` files it under ``gamelib-<hash of the sources>/`` and the
module's folder inside the package instead: the same in every checkout of the same sources, and
apart for other sources even in a ``NUMBA_CACHE_DIR`` given by hand (where a function could
otherwise load a copy compiled with another version of a callee from another module).
Nothing else changes in what numba checks before it loads code: the source file's content hash,
the function's bytecode and closure, the argument types, the CPU and the numba version.
"""

from __future__ import annotations

import os
from pathlib import Path

from numba.core import config
from numba.core.caching import CacheImpl, UserProvidedCacheLocator

from gamelib.sources import source_digest

PACKAGE = Path(__file__).resolve().parent


class PackageCacheLocator(UserProvidedCacheLocator):
    """numba's locator for the functions of gamelib's own modules: their code is filed in
    ``NUMBA_CACHE_DIR/gamelib-<hash of the sources>/<the module's folder in the package>``, the
    same in every checkout; functions defined elsewhere are left to numba's own locators."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        inside = Path(py_file).resolve().parent.relative_to(PACKAGE)
        self._cache_path = os.path.join(config.CACHE_DIR, f"gamelib-{source_digest(PACKAGE)}",
                                        *inside.parts)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not Path(py_file).resolve().is_relative_to(PACKAGE):
            return None
        return super().from_function(py_func, py_file)


def install() -> None:
    """Put :class:`PackageCacheLocator` first among numba's cache locators (in this process;
    every process that imports gamelib installs it)."""
    if PackageCacheLocator not in CacheImpl._locator_classes:
        CacheImpl._locator_classes = [PackageCacheLocator, *CacheImpl._locator_classes]

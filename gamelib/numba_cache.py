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

Processes that start together with an empty cache (a pool's workers, CI's book and tests) would
each compile the same functions at the same moment. :func:`install` also makes the compilation
of one of gamelib's cached functions hold a lock file beside its index (``<index>.lock``,
``fcntl.flock``): a second process wanting the same function waits for the first and then loads
its code from the cache instead of compiling it again. The locks follow the call graph (a
function's callees are compiled while it is), so two processes cannot wait for each other unless
functions call each other in a circle; a process waits at most :data:`COMPILE_WAIT` seconds and
then compiles by itself, and the operating system releases the lock of a process that dies.

numba would also compile a function called from jitted code with a constant (``f(x, 0, False)``)
once more for each constant value (its ``Literal`` types): the 5×5 shogi search's largest
functions were compiled two to four times in one process. :func:`install` makes gamelib's cached
functions compile for the constants' types instead (``int64``, ``bool``; LLVM still sees the
constants where it inlines a call): 20 of 104 compilations fewer for the learners'
CPU cases, a quarter of their compile time, the same bits and speed. A gamelib function that
needs a constant's value to be typed (an index into a tuple of mixed types) cannot be cached; it
fails to compile with an error that says so.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from numba.core import config, errors, sigutils, types
from numba.core.caching import CacheImpl, UserProvidedCacheLocator
from numba.core.dispatcher import Dispatcher

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


#: Seconds a process waits for another one compiling the same function before compiling it too.
COMPILE_WAIT = 300.0
_POLL = 0.05
_held: set[str] = set()          # lock files this process holds (a compile within a compile)
_numba_compile = Dispatcher.compile


def _lock_path(dispatcher) -> str | None:
    """The lock file of ``dispatcher``'s cached code, or None if numba does not cache it under
    :class:`PackageCacheLocator`."""
    cache = getattr(dispatcher, "_cache", None)
    impl = getattr(cache, "_impl", None)
    if not isinstance(getattr(impl, "locator", None), PackageCacheLocator):
        return None
    return os.path.join(cache._cache_path, f"{impl.filename_base}.lock")


@contextlib.contextmanager
def compiling(path: str | None):
    """Hold the lock file ``path`` (waiting at most :data:`COMPILE_WAIT` seconds for another
    process); nothing if ``path`` is None or already held here, and no lock where the file
    cannot be created or the file system has no locks (the body runs all the same)."""
    try:
        import fcntl
    except ImportError:          # no flock (Windows): every process compiles for itself
        fcntl = None
    if path is None or path in _held or fcntl is None:
        yield
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:              # a read-only cache folder: no lock
        yield
        return
    try:
        deadline = time.monotonic() + COMPILE_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    break
                time.sleep(_POLL)
            except OSError:      # a file system without locks (ENOLCK): compile unlocked
                break
        _held.add(path)
        try:
            yield
        finally:
            _held.discard(path)
    finally:
        os.close(fd)   # releases the lock


def _compile(self, sig):
    """numba's ``Dispatcher.compile``, holding the function's lock file unless the signature is
    already compiled in this process, and once for the types of a call's constants rather than
    once for each constant (see the module docstring)."""
    args, return_type = sigutils.normalize_signature(sig)
    path = _lock_path(self)
    if path is not None and return_type is None and any(isinstance(a, types.Literal)
                                                        for a in args):
        general = tuple(types.unliteral(a) for a in args)
        try:
            return _compile(self, general)
        except errors.TypingError as err:
            raise errors.TypingError(
                f"{self.py_func.__qualname__} cannot be compiled for the types {general} of "
                f"its arguments {args}: gamelib compiles a function once per argument types, "
                f"not for the value of a constant (gamelib.numba_cache)\n{err}") from None
    if tuple(args) in self.overloads:
        return _numba_compile(self, sig)
    with compiling(path):
        return _numba_compile(self, sig)


def install() -> None:
    """Put :class:`PackageCacheLocator` first among numba's cache locators, and make compiling
    a gamelib function hold its lock file (in this process; every process that imports gamelib
    installs both)."""
    if PackageCacheLocator not in CacheImpl._locator_classes:
        CacheImpl._locator_classes = [PackageCacheLocator, *CacheImpl._locator_classes]
    Dispatcher.compile = _compile

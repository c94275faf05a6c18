"""Algorithms written once over the protocol, compiled for each game, and cached on disk.

An algorithm module writes plain Python functions marked :func:`generic` that call the
protocol's names (:mod:`gamelib.games.protocol`, imported from there, where they are stubs).
:func:`specialize` makes, for one game, a copy of every such function whose globals are the
module's with the protocol's names bound to the game's kernels and constants (and the module's
other generic functions, and those it imports from other algorithm modules, to their copies for
the same game), and compiles it with numba. numba
reads a function's globals when it compiles it and treats a global ``@njit`` function as a
constant: a call of ``gen_moves`` in the copy is a direct call of the game's compiled
``gen_moves``, as if the algorithm had been written for that game (no function pointer, no
dispatch at run time).

Why not closures. The obvious factory, ``def make_perft(game): @njit def perft(...): ...
game.gen_moves(...)``, compiles to the same code but is never loaded from numba's on-disk cache:
numba keys a cached closure on a pickle of its cell contents, and a pickled ``@njit`` function
carries an identifier drawn anew in every process, so each process compiles again and appends
one more entry to the cache file (measured with numba 0.68: ``cache_hits`` 0 on every run, one
more ``.nbc`` file per run). Passing the kernels as arguments (numba's dispatcher type) has the
same defect. The copies made here have no closure; numba keys them on their bytecode and
argument types, and files them under their qualified name, which :func:`specialize` makes
``<name>[<game>-<fingerprint>]``: one cache file per algorithm function and game, the
fingerprint naming the kernels and constants bound (so two games of one name but different
kernels never share an entry). The gamelib cache folder is keyed by a hash of every gamelib
source (:mod:`gamelib.numba_cache`), so a change of a game's kernels starts a new cache as it
does for any other function; a game whose kernels are defined outside gamelib (a test's) is
compiled without the on-disk cache, as that hash does not cover its sources.
"""

from __future__ import annotations

import hashlib
import sys
import types
from types import ModuleType, SimpleNamespace

from numba import njit

from .protocol import Game

__all__ = ["generic", "specialize", "fingerprint"]

_MARK = "__gamelib_generic__"
_SPECIALISED: dict[tuple[str, Game], SimpleNamespace] = {}


def generic(func=None, **options):
    """Mark a function of an algorithm module as generic over the protocol.

    ``options`` are numba's (``_nrt=False`` for an allocation-free kernel, as
    :func:`gamelib.runtime.kernels.kernel`; ``inline="always"``); ``cache`` is chosen by
    :func:`specialize`. The function itself stays a plain Python function.
    """
    if "cache" in options:
        raise TypeError("generic(): cache is chosen by specialize (on for games inside gamelib)")

    def mark(f):
        setattr(f, _MARK, dict(options))
        return f

    return mark if func is None else mark(func)


def fingerprint(game: Game) -> str:
    """Eight hex digits naming what a game binds: each kernel's module and qualified name, each
    constant's value."""
    parts = []
    for name, value in sorted(game.bindings().items()):
        py = getattr(value, "py_func", None)
        parts.append(f"{name}={py.__module__}.{py.__qualname__}" if py else f"{name}={value!r}")
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=4).hexdigest()


def specialize(game: Game, module: ModuleType) -> SimpleNamespace:
    """The generic functions of ``module`` compiled for ``game``: a namespace of numba
    dispatchers under the functions' names (made once per game and module in a process).

    Raises
    ------
    ValueError
        If ``module`` has no function marked :func:`generic`.
    """
    key = (module.__name__, game)   # a Game hashes by identity and is kept alive here
    if key in _SPECIALISED:
        return _SPECIALISED[key]
    marked = {n: f for n, f in vars(module).items()
              if isinstance(f, types.FunctionType) and hasattr(f, _MARK)
              and f.__module__ == module.__name__}
    if not marked:
        raise ValueError(f"{module.__name__} has no function marked gamelib.games.specialize.generic")
    scope = dict(vars(module))
    scope.update(game.bindings())
    for name, f in list(scope.items()):   # another algorithm module's generic functions
        if (isinstance(f, types.FunctionType) and hasattr(f, _MARK)
                and f.__module__ != module.__name__):
            scope[name] = getattr(specialize(game, sys.modules[f.__module__]), f.__name__)
    tag = f"{game.name}-{fingerprint(game)}"
    out = {}
    for name, f in marked.items():
        copy = types.FunctionType(f.__code__, scope, f.__name__, f.__defaults__, f.__closure__)
        copy.__qualname__ = f"{f.__qualname__}[{tag}]"
        copy.__module__ = f.__module__
        copy.__doc__ = f.__doc__
        out[name] = njit(cache=game.in_package, **getattr(f, _MARK))(copy)
    scope.update(out)   # the copies call each other's compiled versions
    _SPECIALISED[key] = SimpleNamespace(**out)
    return _SPECIALISED[key]
